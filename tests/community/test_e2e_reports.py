"""Reports through the Discord stand-in: the Report button on a private quiz's answer and on
the daily reveal, one report per member and question, `/quizadmin reports`, hiding a
question from the server until it is fixed (`quiztutor reports`: tests/cli/test_cli_imports.py)."""

from __future__ import annotations

from bot.discord.client import QuizTutorBot
from bot.quiz import sessions_store
from bot.quizbank.bank import question_fingerprint
from testkit.standin.models import FakeMessage, FakeUser
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.community import custom_id, modal_inputs
from tests.support.daily import WAIT, post_todays_question
from tests.support.guilds import other_guild
from tests.support.quiz import button, letters

TOPIC = "gradient-accumulation"


async def answer_one(
    fake: FakeDiscord, bot: QuizTutorBot, member: FakeUser
) -> tuple[FakeMessage, str]:
    """`member` answers one question of TOPIC; the answered message and the question's id."""
    res = await fake.slash(member, "quiz start", topic=TOPIC, questions=1)
    assert res.message is not None
    session = await sessions_store.active_for(bot.services.db, member.id)
    assert session is not None
    right, _ = await letters(bot, member)
    await fake.click(res.message, button(res.message, right), member)
    return fake.message(res.message.id), session.question_ids[0]


async def test_report_from_a_quiz_once_then_admins_list_hide_and_show_it_again(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        message, question_id = await answer_one(fake, bot, bob)
        form = await fake.click(message, f"rp:{question_id}", bob)
        assert form.type == 9 and form.modal is not None
        assert form.modal["title"] == "Report this question"
        inputs = modal_inputs(form)
        assert [o["value"] for o in inputs["reason"]["options"]] == [
            "wrong_answer",
            "two_right",
            "unclear",
            "typo",
            "other",
        ]
        assert inputs["note"]["required"] is False and inputs["note"]["max_length"] == 200
        thanks = await fake.submit_modal(
            form, {"reason": ["wrong_answer"], "note": "The answer should be C, ping @here"}
        )
        assert thanks.ephemeral
        assert thanks.content == "🚩 Thank you: this server's admins will see your report."
        # Once per member and question: the button says so before any form.
        again = await fake.click(message, f"rp:{question_id}", bob)
        assert again.ephemeral and again.content == "⚠️ You reported this question already."

        # Citra reports the same question from her own quiz, in Indonesian.
        bot.services.reports.cooldown.seconds = 0
        for _ in range(60):  # her quiz picks a random question: until it is the same one
            message, _ = await answer_one(fake, bot, citra)
            if f"rp:{question_id}" in message.custom_ids():
                break
            await fake.slash(citra, "quiz stop")
        form = await fake.click(message, f"rp:{question_id}", citra)
        assert form.modal is not None and form.modal["title"] == "Laporkan soal ini"
        await fake.submit_modal(form, {"reason": ["unclear"]})

        # The admins' list: counts per reason, the latest note, a Hide button.
        listed = await fake.slash(fake.admin, "quizadmin reports")
        assert listed.ephemeral and listed.message is not None
        (embed,) = listed.embeds
        assert embed["title"] == "Reported questions (page 1/1, 1 question(s))"
        assert f"`{question_id}` · 2 report(s)" in embed["description"]
        assert "The marked answer is wrong: 1, The question is unclear: 1" in embed["description"]
        assert "The answer should be C, ping \uff20here" in embed["description"]
        refused = await fake.slash(bob, "quizadmin reports")
        assert "Manage Server" in refused.content

        visible = len(bot.services.bank.visible_questions(fake.guild.id, TOPIC))
        hid = await fake.click(listed.message, custom_id(listed.message, "Hide 1"), fake.admin)
        assert hid.type == 7
        shown = fake.message(listed.message.id)
        assert shown.content.startswith(f"🙈 `{question_id}` is hidden from this server")
        assert "🙈 hidden here" in shown.embeds[0]["description"]
        bank = bot.services.bank
        assert len(bank.visible_questions(fake.guild.id, TOPIC)) == visible - 1
        assert question_id not in {q.id for q in bank.visible_questions(fake.guild.id)}
        # Only here: another server still gets it.
        other = await other_guild(fake, bot)
        assert question_id in {q.id for q in bank.visible_questions(other.id, TOPIC)}

        # Show it again.
        await fake.click(shown, custom_id(shown, "Show 1"), fake.admin)
        assert len(bank.visible_questions(fake.guild.id, TOPIC)) == visible
        await fake.click(fake.message(listed.message.id), f"rq:h:1:{question_id}", fake.admin)
        assert bank.is_hidden(fake.guild.id, question_id)

    # Hidden after a restart too; and back once the question changes (it was fixed).
    async with start_bot() as bot:
        bank = bot.services.bank
        assert bank.is_hidden(fake.guild.id, question_id)
        quiz = bank.quiz_of(question_id)
        fixed = quiz.model_copy(
            update={
                "questions": [
                    q.model_copy(update={"explanation": {**q.explanation, "en": "Fixed."}})
                    if q.id == question_id
                    else q
                    for q in quiz.questions
                ]
            }
        )
        before = question_fingerprint(bank.question(question_id))
        bank.add(fixed)
        assert question_fingerprint(bank.question(question_id)) != before
        assert not bank.is_hidden(fake.guild.id, question_id)


async def test_the_daily_reveal_carries_the_report_button(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot() as bot:
        _, message, post, _ = await post_todays_question(fake, bot)
        await fake.slash(fake.admin, "daily reveal")
        reveal = await fake.wait_for_message(
            lambda m: m.message_reference is not None, WAIT, channel=fake.channel2
        )
        assert f"rp:{post.question_id}" in reveal.custom_ids()
        assert custom_id(reveal, "Report") == f"rp:{post.question_id}"
        form = await fake.click(reveal, f"rp:{post.question_id}", bob)
        done = await fake.submit_modal(form, {"reason": ["typo"], "note": "fp61 → fp16"})
        assert done.content.startswith("🚩 Thank you")
        page = await bot.services.reports.page(fake.guild.id, 1)
        assert [
            (line.reported.question_id, line.reported.counts["typo"]) for line in page.lines
        ] == [(post.question_id, 1)]
        assert message.id != reveal.id


async def test_a_forged_report_button_for_an_unknown_question_is_refused(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob = fake.users_list[0]
    async with start_bot():
        forged = fake.store_message(
            fake.channel,
            fake.bot_user,
            {
                "components": [
                    {
                        "type": 1,
                        "components": [
                            {
                                "type": 2,
                                "style": 2,
                                "label": "Report",
                                "custom_id": "rp:no-such-question",
                            }
                        ],
                    }
                ]
            },
        )
        res = await fake.click(forged, "rp:no-such-question", bob)
        assert res.content == "⚠️ This question no longer exists here."
