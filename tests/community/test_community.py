"""The community's rules (pure) and their storage: suggestions checked like quiz files,
mentions neutralised, hiding until fixed, and decisions, reports and notices taken once
even from two processes at the same moment."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from sqlmodel import select

from bot.common.errors import UserError
from bot.common.text import neutralise_mentions
from bot.community import notices_store, reports_store, suggestions_store
from bot.community.rules import (
    SuggestionForm,
    check_note,
    check_suggestion,
    community_quiz,
    prompt_key,
    question_data,
)
from bot.db.database import Database
from bot.db.tables.community import CommunityAction, MemberNotice, ReportSummary, Suggestion
from bot.quizbank import QuizBank
from bot.quizbank.bank import question_fingerprint
from tests.support.db import NOW

FORM = SuggestionForm(
    prompt="Which dtype keeps fp32's range?",
    choices="bf16\nfp16",
    answer="a",
    explanation="Eight exponent bits.",
    language="English",
)


def problems(form: SuggestionForm, locale: str = "en") -> str:
    with pytest.raises(UserError) as caught:
        check_suggestion(form, locale)
    return str(caught.value.params["problems"])


def test_a_valid_suggestion_and_its_question() -> None:
    suggestion = check_suggestion(FORM, "en")
    assert (suggestion.choices, suggestion.answer, suggestion.locale) == (("bf16", "fp16"), 0, "en")
    data = question_data(suggestion, "community-q7", author_id=42)
    quiz = community_quiz(1, [data])
    (question,) = quiz.questions
    assert question.prompt == {"en": FORM.prompt, "id": FORM.prompt}
    assert question.untranslated == ["id"] and question.credit == "<@42>"
    assert quiz.title == {"id": "Soal komunitas", "en": "Community questions"}


def test_lengths_are_checked_on_our_side_too() -> None:
    # Discord's client enforces the form's lengths; a forged submission meets these.
    long = SuggestionForm(
        prompt="p" * 1001,
        choices="\n".join(["c" * 201, "d", "e", "f", "g", "h", "i"]),
        answer="A",
        explanation="e" * 1001,
        language="id",
    )
    found = problems(long, "id")
    assert "Pertanyaannya 1001 karakter; paling banyak 1000." in found
    assert "Ada 7 pilihan; tulis 2 sampai 6, satu per baris." in found
    assert "Pilihan 1 lebih dari 200 karakter." in found
    assert "Penjelasannya 1001 karakter; paling banyak 1000." in found


def test_mentions_are_neutralised_and_keep_their_length() -> None:
    text = "hi <@1> <@!2> <@&3> <#4> @everyone @here email@here.com"
    out = neutralise_mentions(text)
    assert len(out) == len(text)
    assert "<@" not in out and "<#" not in out and "@everyone" not in out
    assert out.startswith("hi <\uff201> <\uff20!2> <\uff20&3> <\uff034> \uff20everyone \uff20here")
    assert check_note("  a\n note <@5> ") == "a note <\uff205>"
    assert check_note("   ") is None
    with pytest.raises(UserError):
        check_note("x" * 201)


def test_the_same_prompt_whatever_its_case_spacing_or_punctuation() -> None:
    assert prompt_key("Which dtype?") == prompt_key("  which   DTYPE ")
    assert prompt_key("Which dtype?") != prompt_key("Which dtypes?")


def test_a_hidden_question_comes_back_once_it_changes(bank: QuizBank) -> None:
    question = bank.question("mx-02")
    bank.hide(1, "mx-02", question_fingerprint(question))
    assert "mx-02" not in {q.id for q in bank.visible_questions(1)}
    assert "mx-02" not in {q.id for q in bank.visible_questions(1, "mixed")}
    assert "mx-02" in {q.id for q in bank.visible_questions(2, "mixed")}  # another server
    quiz = bank.quiz("mixed")
    fixed = quiz.model_copy(
        update={
            "questions": [
                q.model_copy(update={"answer": 0}) if q.id == "mx-02" else q for q in quiz.questions
            ]
        }
    )
    bank.add(fixed)
    assert not bank.is_hidden(1, "mx-02")
    assert "mx-02" in {q.id for q in bank.visible_questions(1)}


async def pending(db: Database, guild_id: int = 1, author_id: int = 5) -> int:
    row = Suggestion(
        guild_id=guild_id,
        author_id=author_id,
        author_locale="en",
        content={"prompt": "p"},
        prompt_key=prompt_key(f"p{author_id}"),
        created_at=NOW,
    )
    return await suggestions_store.add(db, row, max_per_member=5, max_per_guild=200)


async def test_two_admins_deciding_at_once_decide_once(
    open_db: Callable[[], Awaitable[Database]],
) -> None:
    first, second = await open_db(), await open_db()
    sid = await pending(first)
    outcomes = await asyncio.gather(
        suggestions_store.decide(first, sid, 1, 10, "approved", NOW, notice=("k", {})),
        suggestions_store.decide(second, sid, 1, 11, "rejected", NOW, notice=("k", {})),
    )
    assert sum(outcome is not None for outcome in outcomes) == 1
    async with first.session() as session:
        assert len((await session.exec(select(CommunityAction))).all()) == 1
        assert len((await session.exec(select(MemberNotice))).all()) == 1
    # Another server's admin cannot decide it at all.
    other = await pending(first, author_id=6)
    assert (
        await suggestions_store.decide(first, other, 2, 12, "approved", NOW, notice=("k", {}))
        is None
    )


async def test_reports_count_once_per_member_and_add_up_per_question(
    open_db: Callable[[], Awaitable[Database]],
) -> None:
    first, second = await open_db(), await open_db()

    async def report(db: Database, user_id: int, reason: str) -> bool:
        return await reports_store.add_report(
            db,
            guild_id=1,
            question_id="mx-01",
            user_id=user_id,
            reason=reason,
            note=None,
            fingerprint="f",
            now=NOW,
        )

    twice = await asyncio.gather(report(first, 5, "unclear"), report(second, 5, "typo"))
    assert sorted(twice) == [False, True]
    many = await asyncio.gather(
        *(report(db, 100 + n, "typo") for n, db in enumerate([first, second] * 5))
    )
    assert all(many)
    async with first.session() as session:
        (summary,) = (await session.exec(select(ReportSummary))).all()
    assert summary.total == 11 and summary.typo + summary.unclear == 11
    page, total = await reports_store.of_guild(first, 1, limit=5)
    assert total == 1 and page[0].total == 11
    (host,) = await reports_store.for_host(first, None)
    assert host.total == 11 and host.servers == 1


async def test_a_notice_is_claimed_once_and_given_back_when_sending_fails(db: Database) -> None:
    sid = await pending(db)
    decided = await suggestions_store.decide(db, sid, 1, 10, "approved", NOW, notice=("k", {}))
    assert decided is not None
    notice_id = decided[1]
    claims = await asyncio.gather(
        *(notices_store.claim(db, notice_id, NOW, "dm") for _ in range(3))
    )
    assert sum(claim is not None for claim in claims) == 1
    assert await notices_store.pending_ids(db, 5, 5) == []
    await notices_store.release(db, notice_id)
    assert await notices_store.pending_ids(db, 5, 5) == [notice_id]
