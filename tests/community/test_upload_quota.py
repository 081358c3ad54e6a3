"""What a server may store: an import is refused when the quiz file it becomes is larger than
the bot reads back at start (it would be skipped there, silently), and a server's uploads
together stay within a byte quota, with a clear message in the admin's language."""

from __future__ import annotations

import pytest

from bot.common.errors import UserError
from bot.common.i18n import t
from bot.community import custom_quizzes_store
from bot.community.custom_quizzes import (
    MAX_BYTES_PER_GUILD,
    load_custom_quizzes,
    upload_quiz,
)
from bot.db.database import Database
from bot.quizbank import QuizBank
from bot.quizbank.parse import MAX_FILE_BYTES
from tests.support.db import NOW
from tests.support.guilds import quiz_yaml

GUILD, OTHER, ADMIN = 111, 222, 333


def quiz_text(quiz_id: str) -> bytes:
    return quiz_yaml(quiz_id, f"{quiz_id}-01").encode()


def big_gift(questions: int = 190, prompt_chars: int = 800) -> bytes:
    """A GIFT file well under the upload limit whose quiz file (YAML: every text in both
    languages, the feedback gathered into explanations) is well over it."""
    lines = [
        f"::g{n}:: {'Which format keeps the range? ' * (prompt_chars // 30)}{n}"
        " {=bf16 #Eight exponent bits. ~fp16 #Five exponent bits.}"
        for n in range(questions)
    ]
    return "\n\n".join(lines).encode()


async def test_an_import_larger_than_the_bot_reads_back_is_refused(
    bank: QuizBank, db: Database
) -> None:
    data = big_gift()
    assert len(data) < MAX_FILE_BYTES
    with pytest.raises(UserError) as refused:
        await upload_quiz(db, bank, GUILD, ADMIN, "week9.gift", data)
    assert refused.value.key == "admin.import_too_large"
    size = refused.value.params["size_kib"]
    assert size > MAX_FILE_BYTES // 1024 and refused.value.params["limit_kib"] == 256
    assert t(refused.value.key, "en", **refused.value.params) == (
        f"Imported, this file becomes a quiz file of {size} KiB; a server's quiz holds at"
        " most 256 KiB. Split it into smaller files."
    )
    assert f"berkas kuis {size} KiB" in t(refused.value.key, "id", **refused.value.params)
    # Nothing stored, so nothing is skipped at the next start either.
    assert await custom_quizzes_store.ids_of(db, GUILD) == []
    assert await load_custom_quizzes(db, QuizBank([])) == []

    # Half of it fits, and loads again as it will at a start.
    added = await upload_quiz(db, bank, GUILD, ADMIN, "week9.gift", big_gift(questions=60))
    assert len(added.quiz.questions) == 60
    fresh = QuizBank([])
    assert await load_custom_quizzes(db, fresh) == [] and "week9" in fresh.quizzes


async def test_a_servers_uploads_stay_within_its_byte_quota(bank: QuizBank, db: Database) -> None:
    # Stored quizzes filling the quota exactly, counted in bytes (é is two in UTF-8).
    share = MAX_BYTES_PER_GUILD // 8
    for n in range(8):
        source = "#" + "é" * ((share - 1) // 2) + "#" * ((share - 1) % 2)
        assert len(source.encode()) == share
        await custom_quizzes_store.save(
            db, GUILD, f"fill{n}", source, ADMIN, NOW, 25, MAX_BYTES_PER_GUILD
        )
    with pytest.raises(UserError) as refused:
        await upload_quiz(db, bank, GUILD, ADMIN, "q.yaml", quiz_text("q"))
    assert refused.value.key == "admin.quota_full"
    params = refused.value.params
    assert (params["limit_kib"], params["used_kib"], params["size_kib"]) == (2048, 2048, 1)
    assert t("admin.quota_full", "en", **params) == (
        "This server's quizzes may take 2048 KiB in all: 2048 KiB are used, and this quiz"
        " needs 1 KiB. Remove a quiz with /quizadmin remove, or upload a smaller one."
    )
    assert t("admin.quota_full", "id", **params).startswith(
        "Kuis server ini paling banyak 2048 KiB seluruhnya: 2048 KiB sudah terpakai"
    )
    assert "q" not in await custom_quizzes_store.ids_of(db, GUILD)
    # Replacing a stored quiz counts the new file in place of the old one.
    added = await upload_quiz(db, bank, GUILD, ADMIN, "fill0.yaml", quiz_text("fill0"))
    assert added.replaced and bank.owner_of("fill0") == GUILD
    # Another server has its own quota.
    added = await upload_quiz(db, bank, OTHER, ADMIN, "q.yaml", quiz_text("q"))
    assert bank.owner_of("q") == OTHER
