"""Texts of /streak, /leaderboard, /me and the class analytics of /daily stats."""

MESSAGES: dict[str, dict[str, str]] = {
    "charts.busy": {
        "en": "The charts are busy, try again in a moment.",
        "id": "Grafik sedang sibuk, coba lagi sebentar lagi.",
    },
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
        "en": "No daily question answered yet. Reacting 🇦 🇧 🇨 🇩 on the daily question (or pressing its A–D buttons) counts.",
        "id": "Belum ada soal harian yang dijawab. Beri reaksi 🇦 🇧 🇨 🇩 pada soal harian (atau tekan tombol A–D-nya) untuk menjawab.",
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
    "me.chart_title": {"en": "Accuracy per topic", "id": "Akurasi per topik"},
    # --- /daily stats: class analytics ----------------------------------------------
    "class.weakest": {
        "en": "Weakest questions (settled days)",
        "id": "Soal terlemah (hari yang sudah dibuka)",
    },
    "class.row": {
        "en": "`{question}` {percent} ({correct}/{answered}) · most chosen wrong: {choice}",
        "id": "`{question}` {percent} ({correct}/{answered}) · jawaban salah terbanyak: {choice}",
    },
    "class.choice": {"en": "“{text}” ({count} times)", "id": "“{text}” ({count} kali)"},
    "class.no_wrong": {"en": "none", "id": "tidak ada"},
    "class.none_settled": {
        "en": "No answered question has been revealed yet.",
        "id": "Belum ada soal terjawab yang sudah dibuka jawabannya.",
    },
    "class.weeks": {"en": "Members per week", "id": "Anggota per minggu"},
    "class.week_row": {
        "en": "{week}: {members} member(s), {answers} answer(s)",
        "id": "{week}: {members} anggota, {answers} jawaban",
    },
    "class.chart_questions": {
        "en": "Accuracy per question (weakest first)",
        "id": "Akurasi per soal (terlemah dulu)",
    },
    "class.chart_weeks": {
        "en": "Members who answered, per week (from Monday)",
        "id": "Anggota yang menjawab, per minggu (mulai Senin)",
    },
}
