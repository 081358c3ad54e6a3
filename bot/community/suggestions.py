"""Members' suggestions and their review (`/quiz suggest`, `/quizadmin suggestions`).

Approved suggestions are each server's "community" quiz, rebuilt from the database after
every approval and at start, validated like a quiz file and added to the bank with its
server as owner (so the bank's one visibility rule applies). A suggestion never gets an id
of its own choosing: its question id is `community-q{id}`, refused if anything else holds
it, so it cannot replace a shipped question or another server's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.common.cooldowns import Cooldown
from bot.common.errors import UserError
from bot.common.text import clip, member_text
from bot.common.times import utcnow
from bot.community import suggestions_store
from bot.community.prompt_index import PromptIndex
from bot.community.rules import (
    MAX_COMMUNITY_QUESTIONS,
    MAX_PENDING_PER_GUILD,
    MAX_PENDING_PER_MEMBER,
    Suggestion,
    SuggestionForm,
    check_suggestion,
    community_question_id,
    community_quiz,
    community_quiz_id,
    prompt_key,
    question_data,
)
from bot.db.database import Database
from bot.db.tables.community import CommunityAction
from bot.db.tables.community import Suggestion as SuggestionRow
from bot.quizbank import QuizBank, QuizFileError
from bot.quizbank.links import plain_links

log = logging.getLogger("quiztutor.community")

SUGGEST_COOLDOWN_S = 30.0
EXCERPT = 80


@dataclass(frozen=True)
class ReviewItem:
    """One pending suggestion as an admin reviews it."""

    row: SuggestionRow
    suggestion: Suggestion
    pending: int
    recent: list[CommunityAction]

    @property
    def id(self) -> int:
        assert self.row.id is not None
        return self.row.id


@dataclass(frozen=True)
class Decision:
    suggestion_id: int
    author_id: int
    notice_id: int
    question_id: str | None  # set when approved


class Suggestions:
    def __init__(
        self,
        db: Database,
        bank: QuizBank,
        *,
        clock: Callable[[], datetime] = utcnow,
        cooldown_s: float = SUGGEST_COOLDOWN_S,
    ) -> None:
        self.db = db
        self.bank = bank
        self.clock = clock
        self.cooldown = Cooldown(cooldown_s)
        self.prompts = PromptIndex(bank)
        self._lock = asyncio.Lock()

    # -- members -----------------------------------------------------------------

    async def submit(
        self, guild_id: int, author_id: int, locale: str, form: SuggestionForm
    ) -> tuple[int, Suggestion]:
        """Check and store a suggestion as pending; a UserError (nothing stored) says why not."""
        suggestion = check_suggestion(form, locale)
        # The cooldown before the duplicate check: a refused duplicate costs the wait too.
        wait = self.cooldown.use(author_id)
        if wait:
            raise UserError("cooldown", seconds=max(1, round(wait)))
        self._refuse_known_prompt(guild_id, suggestion)
        row = SuggestionRow(
            guild_id=guild_id,
            author_id=author_id,
            author_locale=locale,
            content=suggestion.as_json(),
            prompt_key=prompt_key(suggestion.prompt),
            created_at=self.clock(),
        )
        try:
            suggestion_id = await suggestions_store.add(
                self.db,
                row,
                max_per_member=MAX_PENDING_PER_MEMBER,
                max_per_guild=MAX_PENDING_PER_GUILD,
            )
        except UserError:
            self.cooldown.reset(author_id)  # a refusal costs no waiting
            raise
        log.info("suggestion %s stored (guild %s)", suggestion_id, guild_id)
        return suggestion_id, suggestion

    def _refuse_known_prompt(
        self, guild_id: int, suggestion: Suggestion, own_id: str | None = None
    ) -> None:
        """A question this server sees already (shipped, uploaded or community)."""
        known = self.prompts.known(guild_id, suggestion.prompt, own_id)
        if known is not None:
            raise UserError("suggest.known_question", question_id=known)

    # -- admins ------------------------------------------------------------------

    async def next_for_review(self, guild_id: int, after_id: int = 0) -> ReviewItem | None:
        row = await suggestions_store.next_pending(self.db, guild_id, after_id)
        return None if row is None else await self._item(guild_id, row)

    async def review_item(self, guild_id: int, suggestion_id: int) -> ReviewItem:
        """One pending suggestion of this server as an admin reviews it."""
        return await self._item(guild_id, await self.pending_row(guild_id, suggestion_id))

    async def _item(self, guild_id: int, row: SuggestionRow) -> ReviewItem:
        pending = await suggestions_store.pending_count(self.db, guild_id, MAX_PENDING_PER_GUILD)
        recent = await suggestions_store.recent_actions(self.db, guild_id)
        return ReviewItem(row, Suggestion.from_json(row.content), pending, recent)

    async def pending_row(self, guild_id: int, suggestion_id: int) -> SuggestionRow:
        """A suggestion of this server still pending; else a UserError saying what became of it."""
        row = await suggestions_store.get(self.db, suggestion_id)
        if row is None or row.guild_id != guild_id:
            raise UserError("suggest.gone")
        if row.status != suggestions_store.PENDING:
            raise UserError(
                f"suggest.already_{row.status}",
                by=f"<@{row.decided_by}>",
                when=row.decided_at.strftime("%Y-%m-%d %H:%M UTC") if row.decided_at else "?",
            )
        return row

    async def edit(
        self, guild_id: int, suggestion_id: int, actor_id: int, form: SuggestionForm, locale: str
    ) -> Suggestion:
        await self.pending_row(guild_id, suggestion_id)
        suggestion = check_suggestion(form, locale)
        self._refuse_known_prompt(guild_id, suggestion)
        changed = await suggestions_store.edit(
            self.db,
            suggestion_id,
            guild_id,
            actor_id,
            suggestion.as_json(),
            prompt_key(suggestion.prompt),
            self.clock(),
        )
        if not changed:
            await self.pending_row(guild_id, suggestion_id)  # says what became of it
            raise UserError("suggest.gone")
        return suggestion

    async def approve(
        self, guild_id: int, suggestion_id: int, actor_id: int, server: str
    ) -> Decision:
        row = await self.pending_row(guild_id, suggestion_id)
        suggestion = Suggestion.from_json(row.content)
        question_id = community_question_id(suggestion_id)
        holder = self._holder(question_id)
        if holder is not None and holder != community_quiz_id(guild_id):
            # Never: but a quiz file may claim the id; it must not be replaced.
            raise UserError("suggest.id_taken", question_id=question_id)
        self._refuse_known_prompt(guild_id, suggestion)
        excerpt = clip(suggestion.prompt, EXCERPT)
        server = member_text(server)  # a server's name, stored in the author's notice
        decided = await suggestions_store.decide(
            self.db,
            suggestion_id,
            guild_id,
            actor_id,
            suggestions_store.APPROVED,
            self.clock(),
            notice=("notice.approved", {"server": server, "prompt": excerpt}),
            max_approved=MAX_COMMUNITY_QUESTIONS,
        )
        if decided is None:
            await self.pending_row(guild_id, suggestion_id)
            raise UserError("suggest.gone")
        await self.rebuild(guild_id)
        log.info("suggestion %s approved as %s", suggestion_id, question_id)
        return Decision(suggestion_id, row.author_id, decided[1], question_id)

    async def reject(
        self, guild_id: int, suggestion_id: int, actor_id: int, reason: str | None, server: str
    ) -> Decision:
        row = await self.pending_row(guild_id, suggestion_id)
        excerpt = clip(Suggestion.from_json(row.content).prompt, EXCERPT)
        key = "notice.rejected_reason" if reason else "notice.rejected"
        params = {"server": member_text(server), "prompt": excerpt, "reason": reason or ""}
        decided = await suggestions_store.decide(
            self.db,
            suggestion_id,
            guild_id,
            actor_id,
            suggestions_store.REJECTED,
            self.clock(),
            reason=reason,
            notice=(key, params),
        )
        if decided is None:
            await self.pending_row(guild_id, suggestion_id)
            raise UserError("suggest.gone")
        return Decision(suggestion_id, row.author_id, decided[1], None)

    # -- the community quiz --------------------------------------------------------

    def _holder(self, question_id: str) -> str | None:
        try:
            return self.bank.quiz_of(question_id).id
        except KeyError:
            return None

    async def rebuild(self, guild_id: int) -> None:
        """The server's community quiz from its approved suggestions (the database's truth)."""
        async with self._lock:
            rows = await suggestions_store.approved(self.db, guild_id, MAX_COMMUNITY_QUESTIONS)
            self._install(guild_id, rows)

    async def load(self) -> None:
        """At start: every server's community quiz, and the index of the bank's prompts."""
        rows = await suggestions_store.approved(self.db, None, MAX_COMMUNITY_QUESTIONS)
        per_guild: dict[int, list[SuggestionRow]] = {}
        for row in rows:
            per_guild.setdefault(row.guild_id, []).append(row)
        for guild_id, guild_rows in per_guild.items():
            self._install(guild_id, guild_rows[:MAX_COMMUNITY_QUESTIONS])
        self.prompts.refresh()

    def _install(self, guild_id: int, rows: list[SuggestionRow]) -> None:
        quiz_id = community_quiz_id(guild_id)
        questions = []
        for row in rows:
            assert row.id is not None
            question_id = community_question_id(row.id)
            holder = self._holder(question_id)
            if holder is not None and holder != quiz_id:
                log.warning("community question %s: id held by quiz %s", question_id, holder)
                continue
            data = question_data(Suggestion.from_json(row.content), question_id, row.author_id)
            questions.append(data)
        if not questions:
            if self.bank.owner_of(quiz_id) == guild_id:
                self.bank.remove(quiz_id)
            return
        try:
            quiz = community_quiz(guild_id, questions)
        except QuizFileError as exc:  # a rule changed since: keep serving the rest of the bank
            log.warning("community quiz of guild %s does not load: %s", guild_id, exc)
            return
        self.bank.add(plain_links(quiz), owner=guild_id)
