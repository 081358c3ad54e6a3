"""Suggestions through the Discord stand-in: `/quiz suggest` (a modal), the review queue
(`/quizadmin suggestions`: Approve, Edit, Reject, Skip), the community quiz, the author told
by DM or at their next command, and what stale, forged or foreign buttons get."""

from __future__ import annotations

from sqlmodel import col, select

from bot.community.rules import MAX_PENDING_PER_MEMBER, community_quiz_id
from bot.db.tables.community import CommunityAction, MemberNotice, Suggestion
from bot.discord.client import QuizTutorBot
from testkit.standin.models import FakeMessage
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.community import VALID, custom_id, modal_inputs, suggest
from tests.support.guilds import other_guild
from tests.support.quiz import button, letters


async def rows(bot: QuizTutorBot) -> list[Suggestion]:
    async with bot.services.db.session() as session:
        return list((await session.exec(select(Suggestion).order_by(col(Suggestion.id)))).all())


async def actions(bot: QuizTutorBot) -> list[tuple[int, str, int | None]]:
    async with bot.services.db.session() as session:
        found = await session.exec(select(CommunityAction).order_by(col(CommunityAction.id)))
        return [(a.actor_id, a.action, a.suggestion_id) for a in found.all()]


def done(message: FakeMessage) -> bool:
    return bool(message.content)


async def test_a_member_suggests_an_admin_approves_the_author_gets_a_dm_and_members_play_it(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        # The form: five labelled fields within Discord's limits (the stand-in checks them).
        shown = await fake.slash(citra, "quiz suggest")
        assert shown.type == 9 and shown.modal is not None
        assert shown.modal["title"] == "Usulkan soal"  # citra's Discord is in Indonesian
        inputs = modal_inputs(shown)
        assert list(inputs) == ["prompt", "choices", "answer", "explanation", "language"]
        assert inputs["language"]["value"] == "id"  # prefilled with her language

        stored = await fake.submit_modal(shown, {**VALID, "language": "en"})
        assert stored.ephemeral
        assert stored.content.startswith("✅ Terima kasih! Usulan #1 menunggu ditinjau admin.")
        (row,) = await rows(bot)
        assert (row.status, row.author_id, row.guild_id) == ("pending", citra.id, fake.guild.id)
        assert row.content["choices"] == ["bf16", "fp16", "int16"] and row.content["locale"] == "en"

        # Members cannot open the queue; admins see the oldest pending one.
        refused = await fake.slash(bob, "quizadmin suggestions")
        assert refused.ephemeral and "Manage Server" in refused.content
        queue = await fake.slash(fake.admin, "quizadmin suggestions")
        assert queue.ephemeral and queue.message is not None
        embed = queue.embeds[0]
        assert embed["title"] == "Suggestion #1 (1 waiting)"
        assert "✅ **A)** bf16" in embed["description"]
        assert f"By <@{citra.id}>, in English" in str(embed["fields"])

        approved = await fake.click(queue.message, custom_id(queue.message, "Approve"), fake.admin)
        assert approved.type == 7
        dm = await fake.wait_for_dm(citra)
        assert dm.content.startswith("🎉 Soal usulan Anda di Study Group disetujui")
        await fake.wait_until(
            lambda: "told by DM" in fake.message(queue.message.id).content, 5, "the DM note"
        )
        text = fake.message(queue.message.id).content
        assert text.startswith("✅ #1 approved: now `community-q1` in the community quiz.")
        assert "No suggestion is waiting for review." in text

        # The community quiz: this server's, credited to its author, flagged untranslated.
        quiz_id = community_quiz_id(fake.guild.id)
        bank = bot.services.bank
        assert bank.is_visible(quiz_id, fake.guild.id)
        question = bank.question("community-q1")
        assert question.credit == f"<@{citra.id}>" and question.untranslated == ["id"]
        choices = await fake.autocomplete(bob, "quiz start", "topic", "community")
        assert [c["value"] for c in choices] == [quiz_id]
        assert choices[0]["name"] == "Community questions"
        res = await fake.slash(bob, "quiz start", topic=quiz_id)
        assert res.message is not None and VALID["prompt"] in str(res.embeds[0])
        right, _ = await letters(bot, bob)
        answered = await fake.click(res.message, button(res.message, right), bob)
        assert f"Suggested by <@{citra.id}>" in str(answered.embeds[0]["fields"])
        # Citra reads it in Indonesian: the copy is said to be untranslated.
        res = await fake.slash(citra, "quiz start", topic=quiz_id)
        assert "Belum diterjemahkan" in res.embeds[0]["footer"]["text"]

        # Another server neither sees it nor can act on this server's suggestions.
        other = await other_guild(fake, bot)
        assert not bank.is_visible(quiz_id, other.id)

        assert await actions(bot) == [(fake.admin.id, "approved", 1)]
        (row,) = await rows(bot)
        assert (row.status, row.decided_by) == ("approved", fake.admin.id)

    # After a restart the community quiz is built again from the database.
    async with start_bot() as bot:
        assert bot.services.bank.question("community-q1").credit == f"<@{citra.id}>"


async def test_problems_come_back_in_the_forms_reply_and_nothing_is_saved(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        res = await suggest(
            fake,
            bob,
            choices="only one",
            answer="Q",
            explanation=" ",
            language="klingon",
        )
        assert res.ephemeral
        assert res.content.startswith("⚠️ Your suggestion was not saved:\n")
        for problem in (
            "There are 1 choices; write 2 to 6, one per line.",
            "The right choice must be one letter: A.",
            "The explanation is empty.",
            "The language must be id or en.",
        ):
            assert problem in res.content
        # In Indonesian for citra; a duplicate choice; a question the server has already.
        res = await suggest(fake, citra, choices="bf16\nBF16", answer="A")
        assert "Ada dua pilihan yang sama." in res.content
        shipped = bot.services.bank.question("mp-01").prompt["en"]
        res = await suggest(fake, bob, prompt=shipped.upper())
        assert res.content == "⚠️ This server has this question already (`mp-01`)."
        assert await rows(bot) == []
        # The cooldown comes before that scan: a refused duplicate costs the wait too, so a
        # member cannot make the bot scan its questions over and over.
        res = await suggest(fake, bob, prompt="A question nobody asked yet?")
        assert res.content.startswith("⚠️ Slow down a little")
        assert await rows(bot) == []
        bot.services.suggestions.cooldown.reset(bob.id)

        # Mentions are neutralised, letters before the choices dropped.
        res = await suggest(
            fake,
            bob,
            prompt="Ping @everyone and <@123>: which dtype?",
            choices="A) bf16\nB) fp16",
        )
        assert res.content.startswith("✅ Thank you! Suggestion #1")
        (row,) = await rows(bot)
        assert row.content["prompt"] == "Ping \uff20everyone and <\uff20123>: which dtype?"
        assert row.content["choices"] == ["bf16", "fp16"]
        # The same prompt again is a duplicate; a second one within the cooldown waits.
        res = await suggest(fake, citra, prompt="ping @everyone and <@123> which dtype")
        assert res.content == "⚠️ Pertanyaan yang sama sudah pernah diusulkan di sini."
        res = await suggest(fake, bob, prompt="Another question?")
        assert res.content.startswith("⚠️ Slow down a little")


async def test_at_most_five_pending_per_member(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        bot.services.suggestions.cooldown.seconds = 0
        for number in range(MAX_PENDING_PER_MEMBER):
            res = await suggest(fake, bob, prompt=f"Question number {number}?")
            assert res.content.startswith(f"✅ Thank you! Suggestion #{number + 1}")
        res = await suggest(fake, bob, prompt="One too many?")
        assert res.content == (
            "⚠️ You have 5 suggestions waiting for review already; wait until an admin decides."
        )
        assert len(await rows(bot)) == MAX_PENDING_PER_MEMBER


async def test_edit_reject_skip_and_the_author_told_at_the_next_command_when_dms_are_closed(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    fake.refuse_dms(bob)
    async with start_bot() as bot:
        bot.services.suggestions.cooldown.seconds = 0
        await suggest(fake, bob, prompt="First question?")
        await suggest(fake, citra, prompt="Second question?")
        queue = await fake.slash(fake.admin, "quizadmin suggestions")
        assert queue.message is not None and queue.embeds[0]["title"].startswith("Suggestion #1")
        early = await fake.slash(fake.admin, "quizadmin suggestions")  # a second copy, kept
        assert early.message is not None

        # Skip shows the next one, and wraps around.
        await fake.click(queue.message, custom_id(queue.message, "Skip"), fake.admin)
        message = fake.message(queue.message.id)
        assert message.embeds[0]["title"] == "Suggestion #2 (2 waiting)"
        await fake.click(message, custom_id(message, "Skip"), fake.admin)
        message = fake.message(queue.message.id)
        assert message.embeds[0]["title"] == "Suggestion #1 (2 waiting)"

        # Edit: the form prefilled with the suggestion; a fix is saved, still pending.
        form = await fake.click(message, custom_id(message, "Edit"), fake.admin)
        assert form.type == 9
        inputs = modal_inputs(form)
        assert inputs["prompt"]["value"] == "First question?"
        assert inputs["choices"]["value"] == "bf16\nfp16\nint16"
        edited = await fake.submit_modal(form, {"prompt": "First question, fixed?"})
        assert edited.type == 7
        message = fake.message(queue.message.id)
        assert message.content == "✏️ #1 edited."
        assert "First question, fixed?" in message.embeds[0]["description"]
        # A bad edit changes nothing and says why.
        form = await fake.click(message, custom_id(message, "Edit"), fake.admin)
        bad = await fake.submit_modal(form, {"answer": "Z"})
        assert bad.ephemeral and "The right choice must be one letter: A, B, C." in bad.content

        # Reject with a reason: Bob does not accept DMs, so he is told at his next command.
        form = await fake.click(message, custom_id(message, "Reject"), fake.admin)
        assert modal_inputs(form)["reason"]["required"] is False
        await fake.submit_modal(form, {"reason": "Too close to mp-01, see <@&42>."})
        await fake.wait_until(
            lambda: "next command" in fake.message(queue.message.id).content,
            5,
            "the rejection's note",
        )
        message = fake.message(queue.message.id)
        assert message.content.startswith("🗑️ #1 rejected. The author does not accept DMs")
        assert message.embeds[0]["title"] == "Suggestion #2 (1 waiting)"
        assert fake.calls_to("POST", rf"/channels/{fake.dm_channel(bob).id}/messages")
        assert fake.dms(bob) == []

        later = await fake.slash(bob, "me")
        note = await later.wait_followup()
        assert note.ephemeral
        assert note.content == (
            "Your suggested question in Study Group was not accepted: “First question, fixed?”\n"
            "Reason: Too close to mp-01, see <\uff20&42>."
        )
        again = await fake.slash(bob, "streak")
        assert again.followups == []  # told once
        async with bot.services.db.session() as session:
            (notice,) = (await session.exec(select(MemberNotice))).all()
        assert notice.via == "command" and notice.delivered_at is not None

        # The older copy's buttons of #1 are stale now: a clear answer, nothing changes.
        stale = await fake.click(early.message, "sg:a:1", fake.admin)
        assert stale.ephemeral
        assert stale.content.startswith(
            f"⚠️ This suggestion was rejected already, by <@{fake.admin.id}> at "
        )
        assert [a[1] for a in await actions(bot)] == ["edited", "rejected"]


async def test_forged_and_foreign_buttons_get_a_clear_answer(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        await suggest(fake, bob)
        queue = await fake.slash(fake.admin, "quizadmin suggestions")
        assert queue.message is not None
        # A member pressing an admin's button (e.g. a forged client): refused.
        res = await fake.click(queue.message, "sg:a:1", bob)
        assert res.ephemeral and "Manage Server" in res.content
        # Another server's admin, with this server's suggestion id: not theirs.
        other = await other_guild(fake, bot)
        olga = next(m.user for m in other.members.values() if m.user.username == "olga_admin")
        channel = other.text_channels[0]
        theirs = await fake.slash(olga, "quizadmin suggestions", channel=channel)
        assert theirs.content == "No suggestion is waiting for review."
        forged = fake.store_message(
            channel,
            fake.bot_user,
            {
                "components": [
                    {
                        "type": 1,
                        "components": [
                            {"type": 2, "style": 3, "label": "Approve", "custom_id": "sg:a:1"},
                            {"type": 2, "style": 2, "label": "Gone", "custom_id": "sg:e:999"},
                        ],
                    }
                ]
            },
        )
        res = await fake.click(forged, "sg:a:1", olga)
        assert res.content == "⚠️ This suggestion no longer exists in this server's queue."
        res = await fake.click(forged, "sg:e:999", olga)
        assert res.content == "⚠️ This suggestion no longer exists in this server's queue."
        (row,) = await rows(bot)
        assert row.status == "pending"
