"""Texts of /help: the member's and the admin's summary of the bot's commands."""

MESSAGES: dict[str, dict[str, str]] = {
    "help.title": {"en": "What quiztutor can do", "id": "Apa yang bisa dilakukan quiztutor"},
    "help.intro": {
        "en": "A study bot for the numerics of training neural networks: mixed precision and "
        "gradient accumulation. Only you see this message.",
        "id": "Bot belajar numerik pelatihan jaringan saraf: presisi campuran dan akumulasi "
        "gradien. Hanya Anda yang melihat pesan ini.",
    },
    "help.members": {"en": "For everyone", "id": "Untuk semua anggota"},
    "help.admins": {
        "en": "For admins (Manage Server)",
        "id": "Untuk admin (Kelola Server)",
    },
    "help.reactions": {
        "en": "Answer the daily question by reacting 🇦 🇧 🇨 🇩 (or with its A–D buttons, where it has them): your first answer counts.",
        "id": "Jawab soal harian dengan reaksi 🇦 🇧 🇨 🇩 (atau dengan tombol A–D-nya, bila ada): jawaban pertama Anda yang dihitung.",
    },
    "help.terminal": {
        "en": "Without Discord: `quiztutor play --lang en` on the host takes the same quizzes.",
        "id": "Tanpa Discord: `quiztutor play --lang id` di host berisi kuis yang sama.",
    },
    "help.first_daily": {
        "en": "First time here? Start the daily question with `/daily setup`.",
        "id": "Baru pertama? Mulai soal harian dengan `/harian atur`.",
    },
}
