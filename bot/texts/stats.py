"""Texts of /streak, /leaderboard and /me."""

MESSAGES: dict[str, dict[str, str]] = {
    # --- /streak -------------------------------------------------------------------
    "streak.title": {"en": "🔥 {name}'s daily streak", "id": "🔥 Streak harian {name}"},
    "streak.current": {"en": "Current streak", "id": "Streak saat ini"},
    "streak.longest": {"en": "Longest streak", "id": "Streak terpanjang"},
    "streak.answered": {"en": "Answered", "id": "Dijawab"},
    "streak.correct": {"en": "Correct", "id": "Benar"},
    "streak.accuracy": {"en": "Accuracy", "id": "Akurasi"},
    "streak.days": {"en": "{count} day(s)", "id": "{count} hari"},
    "streak.no_accuracy": {"en": "—", "id": "—"},
    "streak.no_answers": {
        "en": "No daily question answered yet. Reacting 🇦 🇧 🇨 🇩 on the daily question counts.",
        "id": "Belum ada soal harian yang dijawab. Beri reaksi 🇦 🇧 🇨 🇩 pada soal harian untuk menjawab.",
    },
    # --- /leaderboard ----------------------------------------------------------------
    "leaderboard.title.streak": {
        "en": "🏆 Leaderboard: current streak",
        "id": "🏆 Papan skor: streak saat ini",
    },
    "leaderboard.title.longest": {
        "en": "🏆 Leaderboard: longest streak",
        "id": "🏆 Papan skor: streak terpanjang",
    },
    "leaderboard.title.correct": {
        "en": "🏆 Leaderboard: correct answers",
        "id": "🏆 Papan skor: jawaban benar",
    },
    "leaderboard.title.accuracy": {
        "en": "🏆 Leaderboard: accuracy",
        "id": "🏆 Papan skor: akurasi",
    },
    "leaderboard.value.streak": {"en": "{value} day(s)", "id": "{value} hari"},
    "leaderboard.value.longest": {"en": "{value} day(s)", "id": "{value} hari"},
    "leaderboard.value.correct": {"en": "{value} correct", "id": "{value} benar"},
    "leaderboard.footer": {
        "en": "Page {page}/{pages} · Accuracy ranks members with at least {min_answered} answers.",
        "id": "Halaman {page}/{pages} · Akurasi hanya memeringkat anggota dengan minimal {min_answered} jawaban.",
    },
    "leaderboard.empty": {
        "en": "Nobody is on this leaderboard yet. Answer the daily question to be the first!",
        "id": "Belum ada yang masuk papan skor ini. Jawab soal harian dan jadilah yang pertama!",
    },
    "leaderboard.empty_accuracy": {
        "en": "Nobody has answered {min_answered} daily questions yet, so nobody ranks by accuracy.",
        "id": "Belum ada yang menjawab {min_answered} soal harian, jadi belum ada peringkat akurasi.",
    },
    "leaderboard.bad_order": {
        "en": "Can't rank by '{value}'; use one of {allowed}.",
        "id": "Tidak bisa mengurutkan menurut '{value}'; gunakan salah satu dari {allowed}.",
    },
    "leaderboard.bad_page": {"en": "Page {page} doesn't exist.", "id": "Halaman {page} tidak ada."},
    # --- /me -------------------------------------------------------------------------
    "me.title": {"en": "📈 {name}'s progress", "id": "📈 Kemajuan {name}"},
    "me.reviews": {"en": "Reviews", "id": "Ulangan"},
    "me.reviews_value": {
        "en": "**{now}** due now · **{week}** due this week",
        "id": "**{now}** jatuh tempo sekarang · **{week}** jatuh tempo minggu ini",
    },
    "me.next_review": {"en": "Next review: {when}", "id": "Ulangan berikutnya: {when}"},
    "me.practise": {
        "en": "Practise them with /quiz review.",
        "id": "Latih dengan /kuis ulang.",
    },
    "me.topics": {
        "en": "Accuracy per topic (weakest first)",
        "id": "Akurasi per topik (terlemah dulu)",
    },
    "me.no_answers": {
        "en": "Nothing answered yet: try /quiz start or the daily question.",
        "id": "Belum ada yang dijawab: coba /kuis mulai atau soal harian.",
    },
    "me.no_streak": {
        "en": "Streaks belong to a server: use /me there.",
        "id": "Streak milik sebuah server: pakai /saya di sana.",
    },
}
