"""The custom quiz service: stored uploads survive restarts; broken ones are skipped."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from bot.common.errors import UserError
from bot.community import custom_quizzes_store
from bot.community.custom_quizzes import (
    MAX_QUIZZES_PER_GUILD,
    conflicts,
    load_custom_quizzes,
    remove_custom_quiz,
    upload_quiz,
)
from bot.db.database import Database
from bot.db.tables.quiz import CustomQuiz
from bot.quizbank import QuizBank
from testkit.standin.server import FakeDiscord
from tests.support.bot import StartBot
from tests.support.db import make_quiz

GUILD, OTHER, ADMIN = 111, 222, 333


def quiz_text(quiz_id: str, prefix: str) -> bytes:
    return f"""\
id: {quiz_id}
title: {{en: {quiz_id} title, id: judul {quiz_id}}}
description: {{en: About it, id: Tentangnya}}
questions:
  - id: {prefix}-01
    prompt: {{en: 'Question?', id: 'Pertanyaan?'}}
    choices: {{en: [a, b, c], id: [a, b, c]}}
    answer: 1
    explanation: {{en: Because., id: Karena.}}
""".encode()


async def test_stored_quizzes_load_at_start_and_a_broken_one_is_skipped(
    bank: QuizBank, open_db: Callable[[], Awaitable[Database]]
) -> None:
    db = await open_db()
    await upload_quiz(db, bank, GUILD, ADMIN, "a.yaml", quiz_text("ours", "ou"))
    await upload_quiz(db, bank, OTHER, ADMIN, "b.yaml", quiz_text("theirs", "th"))
    # An upload that no longer validates (e.g. after a schema change) and one whose id a
    # shipped quiz took since: written straight into the table.
    async with db.session() as session:
        session.add(CustomQuiz(guild_id=GUILD, quiz_id="old", source="id: old\n", added_by=1))
        session.add(
            CustomQuiz(
                guild_id=GUILD,
                quiz_id="mixed",
                source=quiz_text("mixed", "zz").decode(),
                added_by=1,
            )
        )
        await session.commit()
    await db.close()

    # A restart: a fresh bank of shipped quizzes and the database reopened.
    fresh = QuizBank([make_quiz("mixed", [0, 1, 2, 1, 0], prefix="mx"), make_quiz("accum", [2])])
    skipped = await load_custom_quizzes(await open_db(), fresh)
    assert sorted(skipped) == ["mixed", "old"]
    assert fresh.is_visible("ours", GUILD) and not fresh.is_visible("ours", OTHER)
    assert fresh.is_visible("theirs", OTHER) and not fresh.is_visible("theirs", GUILD)
    assert fresh.owner_of("ours") == GUILD and fresh.owner_of("mixed") is None
    # The shipped quiz stays the shipped one, visible everywhere.
    assert fresh.quiz("mixed").questions[0].id == "mx-01"
    assert fresh.is_visible("mixed", OTHER)
    assert "old" not in fresh.quizzes


async def test_restarted_bot_still_offers_an_uploaded_quiz(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    async with start_bot() as bot:
        await upload_quiz(
            bot.services.db,
            bot.services.bank,
            fake.guild.id,
            ADMIN,
            "s.yaml",
            quiz_text("st", "st"),
        )
    async with start_bot():
        res = await fake.slash(fake.users_list[0], "quiz start", topic="st")
        assert res.embeds[0]["title"] == "Question 1/1"


async def test_replace_remove_and_limits(bank: QuizBank, db: Database) -> None:
    added = await upload_quiz(db, bank, GUILD, ADMIN, "a.yaml", quiz_text("q", "qq"))
    assert (added.quiz.id, added.replaced) == ("q", False)
    # Replacing its own quiz: its ids are not conflicts; a new question id set is fine.
    added = await upload_quiz(db, bank, GUILD, ADMIN, "a.yaml", quiz_text("q", "qn"))
    assert added.replaced and bank.quiz("q").questions[0].id == "qn-01"
    assert conflicts(bank, make_quiz("q", [0], prefix="qn"), GUILD) == []
    assert conflicts(bank, make_quiz("q", [0], prefix="qn"), OTHER) == ["q", "qn-01"]
    assert conflicts(bank, make_quiz("new", [0], prefix="mx"), GUILD) == ["mx-01"]

    with pytest.raises(UserError) as refused:
        await upload_quiz(db, bank, OTHER, ADMIN, "a.yaml", quiz_text("q", "zz"))
    # Another server's quiz id: refused, counted, not named.
    assert refused.value.key == "admin.id_taken_elsewhere" and refused.value.params == {"count": 1}

    for n in range(MAX_QUIZZES_PER_GUILD - 1):
        await upload_quiz(db, bank, GUILD, ADMIN, "n.yaml", quiz_text(f"n{n}", f"n{n}"))
    with pytest.raises(UserError) as refused:
        await upload_quiz(db, bank, GUILD, ADMIN, "x.yaml", quiz_text("x", "xx"))
    assert refused.value.key == "admin.too_many"
    # Replacing one at the limit is still allowed.
    await upload_quiz(db, bank, GUILD, ADMIN, "a.yaml", quiz_text("q", "qq"))

    await remove_custom_quiz(db, bank, GUILD, "q")
    assert "q" not in bank.quizzes and "q" not in await custom_quizzes_store.ids_of(db, GUILD)
    with pytest.raises(UserError) as refused:
        await remove_custom_quiz(db, bank, GUILD, "mixed")
    assert refused.value.key == "admin.no_such_quiz"
    assert "mixed" in bank.quizzes


async def test_invalid_upload_lists_problems_briefly_and_stores_nothing(
    bank: QuizBank, db: Database
) -> None:
    # Many problems, one with a ``` that must not close the code block early.
    lines = ["id: x", "title: {en: t, id: t}", "description: {en: d, id: d}", "questions:"]
    for n in range(30):
        lines += [f"  - id: x-{n:02d}", "    '```': 1"]
    with pytest.raises(UserError) as refused:
        await upload_quiz(db, bank, GUILD, ADMIN, "x.yaml", "\n".join(lines).encode())
    assert refused.value.key == "admin.invalid_quiz"
    problems = refused.value.params["problems"]
    assert "```" not in problems
    assert len(problems) <= 1500
    assert problems.startswith("x.yaml:5: questions[0]")
    assert problems.endswith("\n(+135)")  # 150 problems, 15 shown
    assert await custom_quizzes_store.ids_of(db, GUILD) == []
    assert "x" not in bank.quizzes


async def test_a_servers_quiz_stays_in_that_server(bank: QuizBank, db: Database) -> None:
    from bot.daily.service import DailyService
    from bot.quiz.sessions import QuizSessions

    await upload_quiz(db, bank, GUILD, ADMIN, "p.yaml", quiz_text("private", "pv"))
    sessions = QuizSessions(db, bank)
    elsewhere = await sessions.start(1, OTHER, None, None, "en")
    assert elsewhere.question_ids and not any(q.startswith("pv-") for q in elsewhere.question_ids)
    here = await sessions.start(2, GUILD, None, None, "en")
    assert any(q.startswith("pv-") for q in here.question_ids)
    with pytest.raises(UserError) as refused:
        await sessions.start(3, OTHER, "private", None, "en")
    assert refused.value.key == "quiz.unknown_topic"

    # Its removal would silently stop the server's daily question: refused until changed.
    on_it = await sessions.start(4, GUILD, "private", None, "en")
    daily = DailyService(db, bank)
    await daily.configs.configure(GUILD, 10, "07:00", "UTC", topic="private")
    with pytest.raises(UserError) as refused:
        await remove_custom_quiz(db, bank, GUILD, "private")
    assert refused.value.key == "admin.quiz_is_daily_topic"
    await daily.configs.configure(GUILD, 10, "07:00", "UTC", topic=None)
    await remove_custom_quiz(db, bank, GUILD, "private")
    # A session already on the removed quiz ends cleanly instead of failing.
    with pytest.raises(UserError) as ended:
        await sessions.next(on_it.id, 4)
    assert ended.value.key == "quiz.expired"
