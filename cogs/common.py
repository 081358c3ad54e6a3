"""Pieces every cog shares: the command translator, the services, permission and topic checks.

Replies, embeds and buttons are the presentation layer, `cogs.ui`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.core.errors import UserError
from bot.core.i18n import locale_for
from cogs.ui.replies import interaction_locale

if TYPE_CHECKING:
    from bot.discord.client import QuizTutorBot, Services

log = logging.getLogger("quiztutor.discord")


# Indonesian names and descriptions of commands, options and choices, keyed by the
# English text the cogs declare. Discord shows them to members whose client is in Indonesian.
COMMAND_TEXTS_ID: dict[str, str] = {
    "quiz": "kuis",
    "Take a quiz on mixed precision or gradient accumulation": "Ikuti kuis presisi campuran atau akumulasi gradien",
    "start": "mulai",
    "Start a quiz (only you see it)": "Mulai kuis (hanya Anda yang melihatnya)",
    "stop": "berhenti",
    "review": "ulang",
    "Review the questions due for you (only you see it)": "Ulangi soal yang jatuh tempo untuk Anda (hanya Anda yang melihatnya)",
    "Stop your current quiz": "Hentikan kuis Anda yang sedang berjalan",
    "topic": "topik",
    "Which quiz (default: all)": "Kuis yang mana (bawaan: semua)",
    "questions": "jumlah",
    "How many questions": "Berapa soal",
    "daily": "harian",
    "The daily question of this server": "Soal harian server ini",
    "setup": "atur",
    "Post a daily question in a channel": "Kirim soal harian ke sebuah kanal",
    "channel": "kanal",
    "Where to post": "Tempat mengirim",
    "time": "waktu",
    "Local time of the post, HH:MM (24h)": "Waktu lokal pengiriman, HH:MM (24 jam)",
    "timezone": "zona_waktu",
    "IANA time zone, e.g. Asia/Jakarta": "Zona waktu IANA, mis. Asia/Jakarta",
    "reveal_after": "buka_setelah",
    "Reveal the answer after this many hours (default: before the next post)": "Buka jawaban setelah sekian jam (bawaan: sebelum soal berikutnya)",
    "language": "bahasa",
    "Language of the posts": "Bahasa soal harian",
    "repeat_after": "ulang_setelah",
    "No question is posted again within this many days (default: 30)": "Tidak ada soal yang dikirim ulang dalam sekian hari (bawaan: 30)",
    "status": "status",
    "Show the daily question settings": "Tampilkan pengaturan soal harian",
    "off": "matikan",
    "Stop the daily question": "Hentikan soal harian",
    "now": "sekarang",
    "Post today's question now": "Kirim soal hari ini sekarang",
    "reveal": "buka",
    "Close the open question and reveal the answer": "Tutup soal yang terbuka dan buka jawabannya",
    "stats": "statistik",
    "How this server is doing": "Bagaimana perkembangan server ini",
    "streak": "streak",
    "Your daily-question streak": "Streak soal harian Anda",
    "member": "anggota",
    "Whose streak (default: yours)": "Streak siapa (bawaan: Anda)",
    "me": "saya",
    "Your own progress (only you see it)": "Kemajuan Anda sendiri (hanya Anda yang melihatnya)",
    "leaderboard": "papan_skor",
    "The server's best": "Yang terbaik di server ini",
    "by": "urutan",
    "Rank by": "Urutkan menurut",
    "current streak": "streak saat ini",
    "longest streak": "streak terpanjang",
    "correct answers": "jawaban benar",
    "accuracy": "akurasi",
    "demo": "demo",
    "Run a small torch experiment that shows the point": "Jalankan eksperimen torch kecil yang membuktikannya",
    "name": "nama",
    "Which experiment": "Eksperimen yang mana",
    "micro_batches": "mikro_batch",
    "Number of micro-batches (1-16)": "Jumlah micro-batch (1-16)",
    "micro_batch_size": "ukuran_mikro_batch",
    "Samples per micro-batch (1-256)": "Sampel per micro-batch (1-256)",
    "quizadmin": "adminkuis",
    "Manage this server's own quizzes": "Kelola kuis milik server ini",
    "add": "tambah",
    "Add or replace a quiz from a YAML file": "Tambah atau ganti kuis dari berkas YAML",
    "file": "berkas",
    "A quiz file (.yaml), see quiztutor validate": "Berkas kuis (.yaml), lihat quiztutor validate",
    "remove": "hapus",
    "Remove one of this server's quizzes": "Hapus salah satu kuis server ini",
    "quiz_id": "id_kuis",
    "The quiz id": "Id kuis",
    "list": "daftar",
    "Bahasa Indonesia": "Bahasa Indonesia",
    "English": "Bahasa Inggris",
    "List the quizzes": "Daftar kuis",
    "help": "bantuan",
    "What this bot can do for you": "Apa yang bisa dilakukan bot ini untuk Anda",
}


def _demo_titles_id() -> dict[str, str]:
    from experiments.catalog import CATALOG  # torch-free

    return {info.title("en"): info.title("id") for info in CATALOG.values()}


class CommandTranslator(app_commands.Translator):
    def __init__(self) -> None:
        # Demo choices are named by the experiments' own localized titles.
        self.texts_id = {**_demo_titles_id(), **COMMAND_TEXTS_ID}

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is discord.Locale.indonesian:
            return self.texts_id.get(string.message)
        return None


def guild_locale(interaction: discord.Interaction) -> str:
    return locale_for(str(interaction.guild_locale) if interaction.guild_locale else None)


def services_of(interaction: discord.Interaction) -> Services:
    bot: QuizTutorBot = interaction.client  # type: ignore[assignment]
    return bot.services


def require_manage_guild(interaction: discord.Interaction) -> None:
    """Server-side check: default permissions only hide commands, clients can still send them."""
    if interaction.guild is None and interaction.guild_id is None:
        raise UserError("perm.guild_only")
    permissions = interaction.permissions
    if not (permissions.manage_guild or permissions.administrator):
        raise UserError("perm.manage_guild")


async def topic_choices(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """Autocomplete of a quiz topic: the quizzes this server sees, titled in the member's language."""
    from bot.core.quizbank import pick_locale

    locale = interaction_locale(interaction)
    needle = current.lower()
    choices = []
    for quiz in services_of(interaction).bank.visible_quizzes(interaction.guild_id):
        title = pick_locale(quiz.title, locale)
        if needle in quiz.id or needle in title.lower():
            choices.append(app_commands.Choice(name=title[:100], value=quiz.id))
    return choices[:25]  # Discord shows at most 25
