"""Texts of the daily question's modes: answering by buttons, the discussion thread."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "daily.post_footer_buttons": {
        "en": "{quiz} · Answer with the buttons; your first answer counts, and nobody sees the answers before the reveal.",
        "id": "{quiz} · Jawab dengan tombol; jawaban pertama Anda yang dihitung, dan tidak ada yang melihat jawaban sebelum diumumkan.",
    },
    "daily.your_answer": {
        "en": "Your answer: **{letter}**. The right answer and how everyone answered come with the reveal.",
        "id": "Jawaban Anda: **{letter}**. Jawaban yang benar dan pilihan semua orang diumumkan saat pengungkapan.",
    },
    "daily.already_answered": {
        "en": "You answered **{letter}** already; your first answer is the one that counts.",
        "id": "Anda sudah menjawab **{letter}**; jawaban pertama Anda yang dihitung.",
    },
    "daily.answers_closed": {
        "en": "This daily question is closed; its answer is in the reveal.",
        "id": "Soal harian ini sudah ditutup; jawabannya ada di pengumuman jawaban.",
    },
    "daily.bad_answer_mode": {
        "en": "Answer mode '{value}' is not supported; choose one of {allowed}.",
        "id": "Mode jawaban '{value}' tidak didukung; pilih salah satu dari {allowed}.",
    },
    "daily.discussion_name": {"en": "Discuss: {prompt}", "id": "Diskusi: {prompt}"},
    "daily.discussion_day": {"en": "the question of {day}", "id": "soal tanggal {day}"},
    "daily.disabled_threads_forbidden": {
        "en": "⚠️ I could not open the discussion thread in {channel}: I may not create public threads there. Discussion is off now; the daily question itself goes on. Give me Create Public Threads there, then run /daily setup with discussion:on.",
        "id": "⚠️ Utas diskusi tidak bisa saya buka di {channel}: saya tidak boleh membuat utas publik di sana. Diskusi kini dimatikan; soal hariannya tetap berjalan. Beri saya izin Buat Utas Publik di sana, lalu jalankan /harian atur dengan diskusi:nyalakan.",
    },
    "daily.owed_discussion": {"en": "discussion thread", "id": "Utas diskusi"},
    "daily.status_answers": {"en": "Answers", "id": "Cara menjawab"},
    "daily.answers_reactions": {
        "en": "reactions (counts visible)",
        "id": "reaksi (jumlahnya terlihat)",
    },
    "daily.answers_buttons": {
        "en": "buttons (private until the reveal)",
        "id": "tombol (rahasia sampai diumumkan)",
    },
    "daily.status_discussion": {"en": "Discussion thread", "id": "Utas diskusi"},
    "daily.discussion_on": {"en": "on, at each reveal", "id": "nyala, di setiap pengumuman"},
    "daily.discussion_off": {"en": "off", "id": "mati"},
    "class.generated_wrong": {
        "en": "a generated question: new numbers in each post",
        "id": "soal buatan: angkanya baru di setiap kiriman",
    },
}
