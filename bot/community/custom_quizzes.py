"""Quizzes a server's admins upload (`/quizadmin add`): validated, stored, loaded at start.

A GIFT, Aiken or CSV upload is imported (`bot.quizbank.formats`) and stored as the quiz
file (YAML) it becomes, so loading it again is loading any quiz file.

Ids are global across the bank (sessions and daily posts refer to question ids), so an
upload may replace its own server's quiz but never a shipped one or another server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

from bot.common.cooldowns import Cooldown
from bot.common.errors import UserError
from bot.common.times import utcnow
from bot.community import custom_quizzes_store
from bot.db.database import Database
from bot.quizbank import Problem, Quiz, QuizBank, QuizFileError, parse_quiz
from bot.quizbank.formats import Format
from bot.quizbank.links import plain_links
from bot.quizbank.parse import MAX_FILE_BYTES
from bot.quizbank.sandbox import parse_upload

log = logging.getLogger("quiztutor.custom_quizzes")

MAX_QUIZZES_PER_GUILD = 25
# All of a server's uploaded quizzes together (the YAML stored): eight files of the most a
# quiz file may hold.
MAX_BYTES_PER_GUILD = 8 * MAX_FILE_BYTES
# The ids of the community quizzes (approved suggestions, `bot.community.rules`): reserved.
COMMUNITY_PREFIX = "community-"
MAX_PROBLEMS_SHOWN = 15
# The problems go into one Discord message (2000 characters) with the text around them.
MAX_PROBLEMS_CHARS = 1500

# One lock per bank: the id-conflict check, the database write and the bank update must
# not interleave between two uploads (weak keys: tests build many banks).
_locks: weakref.WeakKeyDictionary[QuizBank, asyncio.Lock] = weakref.WeakKeyDictionary()


def _lock(bank: QuizBank) -> asyncio.Lock:
    lock = _locks.get(bank)
    if lock is None:
        lock = _locks[bank] = asyncio.Lock()
    return lock


def _quiz_of_question(bank: QuizBank, question_id: str) -> Quiz | None:
    try:
        return bank.quiz_of(question_id)
    except KeyError:
        return None


def conflicts(bank: QuizBank, quiz: Quiz, guild_id: int) -> list[str]:
    """Quiz and question ids of `quiz` already used by a shipped quiz or another server's,
    and any id of the community quizzes (`community-...`, whoever holds it now).

    The server's own quiz with the same id is being replaced, so its ids are not conflicts.
    """
    replacing = bank.owner_of(quiz.id) == guild_id
    taken = [quiz.id] if quiz.id in bank.quizzes and not replacing else []
    if quiz.id.startswith(COMMUNITY_PREFIX) and quiz.id not in taken:
        taken.append(quiz.id)
    for item_id in [q.id for q in quiz.questions] + [e.id for e in quiz.generated]:
        holder = _quiz_of_question(bank, item_id)
        if holder is not None and not (replacing and holder.id == quiz.id):
            taken.append(item_id)
        elif item_id.startswith(COMMUNITY_PREFIX):
            taken.append(item_id)
    return taken


def _taken_error(bank: QuizBank, taken: list[str], guild_id: int) -> UserError:
    """The refusal of ids in use: it names those this server can see (shipped quizzes, its
    own, the reserved community ids) and only counts another server's, which are not its
    business."""
    hidden = 0
    named = []
    for item_id in taken:
        holder = bank.quizzes.get(item_id) or _quiz_of_question(bank, item_id)
        if holder is None or bank.is_visible(holder.id, guild_id):
            named.append(item_id)
        else:
            hidden += 1
    if not hidden:
        return UserError("admin.id_taken", ids=", ".join(named))
    if not named:
        return UserError("admin.id_taken_elsewhere", count=hidden)
    return UserError("admin.id_taken_some", ids=", ".join(named), count=hidden)


def _add_to_bank(bank: QuizBank, quiz: Quiz, guild_id: int) -> Quiz:
    # Masked links in an upload would hide where they lead: show the addresses.
    quiz = plain_links(quiz)
    bank.add(quiz, owner=guild_id)
    return quiz


async def load_custom_quizzes(db: Database, bank: QuizBank) -> list[str]:
    """Add every stored server quiz to the bank; returns the ids that no longer load."""
    skipped: list[str] = []
    for row in await custom_quizzes_store.all_quizzes(db):
        try:
            quiz = parse_quiz(row.source, f"{row.quiz_id}.yaml")
            # A shipped quiz added since the upload wins: never let an upload replace it.
            taken = conflicts(bank, quiz, row.guild_id)
            if taken:
                raise ValueError(f"ids now used by another quiz: {', '.join(taken)}")
            _add_to_bank(bank, quiz, row.guild_id)
        except (QuizFileError, ValueError) as exc:
            # A schema change may invalidate an old upload: skip it, keep serving the rest.
            log.warning("skipping stored quiz %s of guild %s: %s", row.quiz_id, row.guild_id, exc)
            skipped.append(row.quiz_id)
    return skipped


def _problems_text(exc: QuizFileError) -> str:
    return problems_text(exc.problems)


def problems_text(problems: list[Problem]) -> str:
    """Problems for one Discord message: at most 15 lines, 1,500 characters."""
    lines = [str(p) for p in problems[:MAX_PROBLEMS_SHOWN]]
    more = len(problems) - len(lines)
    if more > 0:
        lines.append(f"(+{more})")
    # The problems are shown in a code block: a ``` in the user's file must not close it.
    text = "\n".join(lines).replace("```", "`\u200b``")
    if len(text) > MAX_PROBLEMS_CHARS:
        text = text[:MAX_PROBLEMS_CHARS].rsplit("\n", 1)[0] + "\n…"
    return text


@dataclass(frozen=True)
class AddedQuiz:
    quiz: Quiz
    replaced: bool
    format: Format
    skipped: list[Problem]  # questions not imported (imports), each with its reason
    notes: list[Problem] = field(default_factory=list)  # imported with a change


# Between two uploads of one server (its uploads are parsed in a child process, one core
# each: a server cannot keep the host's CPUs busy with them).
UPLOAD_COOLDOWN_S = 10.0


class UploadGate:
    """One upload at a time per server, and `cooldown_s` between two of them."""

    def __init__(self, cooldown_s: float = UPLOAD_COOLDOWN_S) -> None:
        self._reading: set[int] = set()
        self._cooldown = Cooldown(cooldown_s)

    @contextlib.contextmanager
    def enter(self, guild_id: int) -> Iterator[None]:
        """Held while the server's upload is downloaded and read; a UserError if one is
        being read already or the last one was too recent."""
        if guild_id in self._reading:
            raise UserError("admin.upload_busy")
        wait = self._cooldown.use(guild_id)
        if wait:
            raise UserError("admin.upload_cooldown", seconds=math.ceil(wait))
        self._reading.add(guild_id)
        try:
            yield
        finally:
            self._reading.discard(guild_id)


async def upload_quiz(
    db: Database,
    bank: QuizBank,
    guild_id: int,
    user_id: int,
    filename: str,
    data: bytes,
    *,
    locale: str = "en",
) -> AddedQuiz:
    """Validate and store one uploaded file: a quiz file (YAML), or a GIFT, Aiken or CSV file
    in `locale` (by its extension, else its content), stored as the YAML it becomes.

    A YAML file is stored only when all of it is valid; an import stores its good
    questions and lists the others. Nothing is stored unless the ids are free.
    """
    if len(data) > MAX_FILE_BYTES:
        raise UserError("admin.file_too_large", limit_kib=MAX_FILE_BYTES // 1024)
    try:
        # utf-8-sig: editors on Windows often save a byte order mark.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError("admin.not_utf8") from None
    try:
        # Read in a child process with a time limit (waited for in a thread): the loop stays
        # free and no upload can hold the bot's process.
        upload = await asyncio.to_thread(parse_upload, text, filename, locale)
    except QuizFileError as exc:
        raise UserError("admin.invalid_quiz", problems=_problems_text(exc)) from None
    # An import is stored as the YAML it becomes, read again at every start: it must fit
    # the size a quiz file may have (else it would be skipped there, silently).
    size = len(upload.source.encode())
    if size > MAX_FILE_BYTES:
        raise UserError(
            "admin.import_too_large",
            size_kib=custom_quizzes_store.kib(size),
            limit_kib=MAX_FILE_BYTES // 1024,
        )
    async with _lock(bank):
        quiz = upload.quiz
        taken = conflicts(bank, quiz, guild_id)
        if taken:
            raise _taken_error(bank, taken, guild_id)
        replaced = await custom_quizzes_store.save(
            db,
            guild_id,
            quiz.id,
            upload.source,
            user_id,
            utcnow(),
            MAX_QUIZZES_PER_GUILD,
            MAX_BYTES_PER_GUILD,
        )
        quiz = _add_to_bank(bank, quiz, guild_id)
    return AddedQuiz(quiz, replaced, upload.format, upload.skipped, upload.notes)


async def remove_custom_quiz(db: Database, bank: QuizBank, guild_id: int, quiz_id: str) -> None:
    async with _lock(bank):
        await custom_quizzes_store.delete(db, guild_id, quiz_id)
        # Only this server's copy: a stored upload that was skipped at start may share
        # its id with a shipped quiz, which must stay.
        if bank.owner_of(quiz_id) == guild_id:
            bank.remove(quiz_id)
