"""Reports see only their own server: a question is reported only where the bank's one
visibility rule shows it, so a forged Report button or form naming another server's
community question is refused and that question's text never reaches this server."""

from __future__ import annotations

from sqlmodel import select

from bot.community import reports_store
from bot.db.tables.community import QuestionReport
from bot.discord.client import QuizTutorBot
from testkit.standin.models import FakeGuild, FakeMessage, FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.community import custom_id, suggest
from tests.support.db import NOW
from tests.support.guilds import other_guild

SECRET = "Which loss scale does our private course use in week 9?"
UNKNOWN = "⚠️ This question no longer exists here."


async def community_question(fake: FakeDiscord, bot: QuizTutorBot) -> str:
    """A question of the first server's community quiz (a member's suggestion, approved)."""
    await suggest(fake, fake.users_list[0], prompt=SECRET)
    queue = await fake.slash(fake.admin, "quizadmin suggestions")
    assert queue.message is not None
    await fake.click(queue.message, custom_id(queue.message, "Approve"), fake.admin)
    assert bot.services.bank.question("community-q1").prompt["en"] == SECRET
    return "community-q1"


def forged_button(fake: FakeDiscord, guild: FakeGuild, question_id: str) -> FakeMessage:
    """A message in `guild` carrying a Report button for `question_id` (a forged client)."""
    button = {"type": 2, "style": 2, "label": "Report", "custom_id": f"rp:{question_id}"}
    return fake.store_message(
        guild.text_channels[0],
        fake.bot_user,
        {"components": [{"type": 1, "components": [button]}]},
    )


def member(guild: FakeGuild, username: str) -> FakeUser:
    return next(m.user for m in guild.members.values() if m.user.username == username)


async def reports(bot: QuizTutorBot) -> list[QuestionReport]:
    async with bot.services.db.session() as session:
        return list((await session.exec(select(QuestionReport))).all())


async def test_another_servers_question_cannot_be_reported_nor_read_through_a_report(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot() as bot:
        question_id = await community_question(fake, bot)
        other = await other_guild(fake, bot)
        eve, olga = member(other, "eve"), member(other, "olga_admin")

        # The button, forged in the other server: refused before any form.
        pressed = await fake.click(
            forged_button(fake, other, question_id), f"rp:{question_id}", eve
        )
        assert pressed.type == 4 and pressed.ephemeral
        assert pressed.content == UNKNOWN

        # The form, forged: a real Report form (a shipped question, which every server
        # sees) sent back naming the community question.
        shown = await fake.click(forged_button(fake, other, "mp-01"), "rp:mp-01", eve)
        assert shown.type == 9 and shown.modal is not None
        shown.modal["custom_id"] = f"m:rp:{question_id}"
        sent = await fake.submit_modal(shown, {"reason": ["unclear"], "note": "what is it?"})
        assert sent.ephemeral and sent.content == UNKNOWN
        assert await reports(bot) == []

        # Its own server reports it as before.
        citra = fake.users_list[1]
        button = forged_button(fake, fake.guild, question_id)
        shown = await fake.click(button, f"rp:{question_id}", citra)
        assert shown.type == 9
        await fake.submit_modal(shown, {"reason": ["typo"]})
        assert [(r.guild_id, r.question_id) for r in await reports(bot)] == [
            (fake.guild.id, question_id)
        ]

        # A report stored for the other server before this check: its admins see the
        # question as gone, never its text, and get no button to hide it.
        await reports_store.add_report(
            bot.services.db,
            guild_id=other.id,
            question_id=question_id,
            user_id=eve.id,
            reason="other",
            note=None,
            fingerprint="f",
            now=NOW,
        )
        listed = await fake.slash(olga, "quizadmin reports", channel=other.text_channels[0])
        (embed,) = listed.embeds
        assert f"`{question_id}`" in embed["description"]
        assert "(no longer in the bank)" in embed["description"]
        assert SECRET not in str(listed.embeds) and "loss scale" not in str(listed.embeds)
        assert listed.message is not None
        assert not [c for c in listed.message.custom_ids() if c.startswith("rq:h")]
        # Nor hide it with a forged Hide button.
        hide_id = f"rq:h:1:{question_id}"
        forged = fake.store_message(
            other.text_channels[0],
            fake.bot_user,
            {
                "components": [
                    {
                        "type": 1,
                        "components": [
                            {"type": 2, "style": 4, "label": "Hide 1", "custom_id": hide_id}
                        ],
                    }
                ]
            },
        )
        hid = await fake.click(forged, hide_id, olga)
        assert hid.content == UNKNOWN
        assert not bot.services.bank.is_hidden(other.id, question_id)
