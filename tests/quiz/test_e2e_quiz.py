"""/quiz through the Discord stand-in: a member takes a private quiz with buttons."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from sqlmodel import col, func, select

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.db.tables.quiz import QuizResult, QuizSession
from bot.quiz import sessions_store
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.quiz import button, letters


async def test_quiz_start_answer_next_until_score(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot() as bot:
        res = await fake.slash(member, "quiz start", topic="gradient-accumulation", questions=2)
        assert res.ephemeral and res.first_response_s < 3
        assert res.embeds[0]["title"] == "Question 1/2"
        assert [c["label"] for c in res.components[0]["components"]] == ["A", "B", "C", "D"]
        message = res.message
        assert message is not None

        right, _ = await letters(bot, member)
        answered = await fake.click(message, button(message, right), member)
        assert answered.type == 7  # the question message is updated in place
        embed = answered.embeds[0]
        assert embed["fields"][0]["name"] == "✅ Correct!"
        assert len(embed["fields"][0]["value"]) > 80  # the explanation
        assert "Sources" in [f["name"] for f in embed["fields"]]
        updated = fake.message(message.id)
        assert [c.get("label") for c in updated.components[1]["components"]] == [
            "Next",
            "Show me",
            "Report",
        ]

        step = await fake.click(updated, button(updated, "Next"), member)
        assert step.embeds[0]["title"] == "Question 2/2"
        _, wrong = await letters(bot, member)
        second = await fake.click(
            fake.message(message.id), button(fake.message(message.id), wrong), member
        )
        assert second.embeds[0]["fields"][0]["name"].startswith("❌ Not quite: the answer is ")

        done = await fake.click(
            fake.message(message.id), button(fake.message(message.id), "See my score"), member
        )
        assert done.embeds[0]["title"] == "Quiz finished"
        assert done.embeds[0]["description"].startswith("Score: **1/2** (50%) in 0:0")
        assert fake.message(message.id).components == []


async def test_quiz_speaks_indonesian_to_indonesian_members(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale == "id")
    async with start_bot() as bot:
        res = await fake.slash(member, "quiz start", topic="mixed-precision", questions=1)
        assert res.embeds[0]["title"] == "Soal 1/1"
        assert res.embeds[0]["footer"]["text"] == "Kuis Pelatihan Presisi Campuran"
        right, _ = await letters(bot, member)
        assert res.message is not None
        answered = await fake.click(res.message, button(res.message, right), member)
        assert answered.embeds[0]["fields"][0]["name"] == "✅ Benar!"
        assert button(fake.message(res.message.id), "Lihat skor")


async def test_double_click_counts_once(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot() as bot:
        res = await fake.slash(member, "quiz start", topic="mixed-precision", questions=2)
        assert res.message is not None
        right, wrong = await letters(bot, member)
        # A laggy client still shows the enabled buttons after the first click landed.
        stale = copy.deepcopy(res.message)
        first = await fake.click(res.message, button(res.message, wrong), member)
        again = await fake.click(stale, button(stale, right), member)
        assert first.embeds[0]["fields"][0]["name"] == again.embeds[0]["fields"][0]["name"]
        assert again.embeds[0]["fields"][0]["name"].startswith("❌")
        async with bot.services.db.session() as session:
            results = (await session.exec(select(func.count()).select_from(QuizResult))).one()
        assert results == 1


async def test_someone_elses_buttons_are_refused(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    owner, other = fake.users_list[0], fake.users_list[1]
    async with start_bot():
        res = await fake.slash(owner, "quiz start", topic="mixed-precision", questions=1)
        assert res.message is not None
        refused = await fake.click(res.message, button(res.message, "A"), other)
        assert refused.ephemeral
        assert "belongs to someone else" in refused.content or "milik orang lain" in refused.content
        assert fake.message(res.message.id).embeds[0]["title"] == "Question 1/1"  # unchanged


async def test_session_survives_a_restart(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot() as bot:
        res = await fake.slash(member, "quiz start", topic="gradient-accumulation", questions=3)
        assert res.message is not None
        message_id = res.message.id
        right, _ = await letters(bot, member)
        await fake.click(res.message, button(res.message, right), member)
    async with start_bot(sync=False) as bot:
        message = fake.message(message_id)
        step = await fake.click(message, button(message, "Next"), member)
        assert step.embeds[0]["title"] == "Question 2/3"
        session = await sessions_store.active_for(bot.services.db, member.id)
        assert session is not None and session.score == 1


async def test_a_bad_topic_is_refused_and_too_many_questions_plays_them_all(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale == "id")
    async with start_bot() as bot:
        unknown = await fake.slash(member, "quiz start", topic="warp-drive")
        assert unknown.ephemeral
        available = ", ".join(sorted(bot.services.bank.quizzes))
        assert unknown.content == f"⚠️ Tidak ada kuis 'warp-drive'. Yang tersedia: {available}."
        async with bot.services.db.session() as session:
            sessions = (await session.exec(select(func.count()).select_from(QuizSession))).one()
        assert sessions == 0
        # More questions than the quiz holds: all it holds, and a line saying so.
        held = len(bot.services.bank.quiz("mixed-precision").questions)
        too_many = await fake.slash(
            fake.users_list[0], "quiz start", topic="mixed-precision", questions=20
        )
        assert too_many.content == (
            f"This quiz holds {held} questions, not 20: here are all {held}."
        )
        assert too_many.embeds[0]["title"] == f"Question 1/{held}"
        asked = await fake.slash(
            fake.users_list[0], "quiz start", topic="mixed-precision", questions=2
        )
        assert not asked.content and asked.embeds[0]["title"] == "Question 1/2"


async def test_quiz_stop(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot() as bot:
        nothing = await fake.slash(member, "quiz stop")
        assert nothing.content.startswith("You have no quiz running.")
        res = await fake.slash(member, "quiz start")
        assert res.embeds[0]["title"] == f"Question 1/{len(bot.services.bank.all_questions())}"
        stopped = await fake.slash(member, "quiz stop")
        assert stopped.content == "Your quiz is stopped."
        assert await sessions_store.active_for(bot.services.db, member.id) is None
        assert res.message is not None
        late = await fake.click(res.message, button(res.message, "A"), member)
        assert late.content == "⚠️ This quiz is no longer active; start a new one with /quiz start."
        async with bot.services.db.session() as session:
            status = (
                await session.exec(
                    select(QuizSession.status).where(col(QuizSession.user_id) == member.id)
                )
            ).one()
        assert status == "stopped"


async def test_topic_autocomplete_lists_quizzes_in_the_members_language(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    member = next(u for u in fake.users_list if u.locale == "id")
    async with start_bot():
        choices = await fake.autocomplete(member, "quiz start", "topic", "kuis akum")
        assert choices == [{"name": "Kuis Akumulasi Gradien", "value": "gradient-accumulation"}]


async def test_a_question_with_six_choices(discord_fake: FakeDiscord, start_bot: StartBot) -> None:
    from tests.support.db import make_quiz

    fake = discord_fake
    member = fake.users_list[0]
    async with start_bot() as bot:
        bot.services.bank.add(make_quiz("six", [5], n_choices=6, prefix="sx"))
        res = await fake.slash(member, "quiz start", topic="six")
        assert res.message is not None
        labels = [[c["label"] for c in row["components"]] for row in res.components]
        assert labels == [["A", "B", "C", "D", "E"], ["F"]]
        right, _ = await letters(bot, member)
        answered = await fake.click(res.message, button(res.message, right), member)
        assert answered.embeds[0]["fields"][0]["name"] == "✅ Correct!"
        rows = [
            [c["label"] for c in row["components"]]
            for row in fake.message(res.message.id).components
        ]
        assert rows == [["A", "B", "C", "D", "E"], ["F", "See my score", "Report"]]


async def test_a_huge_typed_value_gets_a_short_answer(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot():
        res = await fake.slash(fake.users_list[0], "quiz start", topic="x" * 5000)
        assert res.content.startswith("⚠️ There is no quiz 'xxxx")
        assert "…'" in res.content and len(res.content) < 300


async def test_an_answer_the_database_holds_up_is_acknowledged_then_shown(
    discord_fake: FakeDiscord, start_bot: StartBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past 1 s (a crowd of presses or a slow database) the press is acknowledged within
    Discord's 3 s, and the result replaces the question once it is recorded; a press
    that fails after it gets its localized message privately."""
    fake = discord_fake
    member, other, _ = fake.users_list
    gate = asyncio.Event()
    record = sessions_store.record_answer

    async def slow_record(*args: Any, **kwargs: Any) -> bool:
        await gate.wait()  # the database does not answer until the test says so
        return await record(*args, **kwargs)

    async with start_bot() as bot:
        res = await fake.slash(member, "quiz start", topic="gradient-accumulation", questions=2)
        message = res.message
        assert message is not None
        right, _ = await letters(bot, member)
        monkeypatch.setattr(sessions_store, "record_answer", slow_record)
        held = await fake.click(message, button(message, right), member)
        assert held.type == 6 and held.first_response_s < 3  # acknowledged, message kept
        assert fake.message(message.id).embeds[0]["title"] == "Question 1/2"
        gate.set()
        shown = await fake.wait_until(
            lambda: (m := fake.message(message.id)).embeds[0].get("fields") and m,
            10,
            "the answered question",
        )
        assert shown.embeds[0]["fields"][0]["name"] == "✅ Correct!"
        async with bot.services.db.session() as session:
            rows = (await session.exec(select(QuizResult.user_id, QuizResult.correct))).all()
        assert [tuple(r) for r in rows] == [(member.id, True)]

        # Refused after the acknowledgement: told privately, in the member's words.
        async def expired(*args: Any, **kwargs: Any) -> bool:
            await gate.wait()
            raise UserError("quiz.expired")

        gate.clear()
        monkeypatch.setattr(sessions_store, "record_answer", expired)
        res = await fake.slash(other, "quiz start", topic="gradient-accumulation", questions=2)
        assert res.message is not None
        held = await fake.click(res.message, button(res.message, "A"), other)
        assert held.type == 6
        gate.set()
        told = await held.wait_followup()
        assert other.locale == "id"
        assert told.ephemeral and told.content == "⚠️ " + t("quiz.expired", "id")
        assert fake.message(res.message.id).embeds[0]["title"] == "Soal 1/2"  # as it was
