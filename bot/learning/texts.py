"""Texts of Learning II: target retention, review reminders, `/me`'s habit, and the memory
model and class retention curve of `/daily stats`."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "daily.status_retention": {"en": "Target retention", "id": "Target retensi"},
    "daily.bad_retention": {
        "en": "Retention must be between {min} and {max} (e.g. 0.90), or left empty.",
        "id": "Retensi harus antara {min} dan {max} (mis. 0,90), atau dikosongkan.",
    },
    # -- reminders -------------------------------------------------------------------------
    "remind.on": {
        "en": "⏰ Reminders on: every day at {time} ({timezone}) I send you a DM when at least "
        "{min_due} of your reviews of this server's questions are due. First check: {next}. "
        "Turn them off with /quiz remind off.",
        "id": "⏰ Pengingat aktif: setiap hari pukul {time} ({timezone}) saya mengirim DM bila "
        "sedikitnya {min_due} ulangan Anda atas soal server ini jatuh tempo. Pemeriksaan "
        "pertama: {next}. Matikan dengan /kuis pengingat matikan.",
    },
    "remind.off": {"en": "Reminders off.", "id": "Pengingat dimatikan."},
    "remind.was_off": {
        "en": "You have no reminders on. Turn them on with /quiz remind on.",
        "id": "Anda tidak punya pengingat yang aktif. Aktifkan dengan /kuis pengingat nyalakan.",
    },
    "remind.bad_min_due": {
        "en": "min_due must be a whole number from {min} to {max}.",
        "id": "min_due harus bilangan bulat dari {min} sampai {max}.",
    },
    "remind.dm": {
        "en": "📚 {count} of your reviews are due in **{server}**. A few minutes now keeps "
        "them fresh.",
        "id": "📚 {count} ulangan Anda jatuh tempo di **{server}**. Beberapa menit sekarang "
        "membuat ingatan Anda tetap segar.",
    },
    "remind.dm_footer": {
        "en": "Reminders at {time} ({timezone}); stop them with /quiz remind off in the server.",
        "id": "Pengingat pukul {time} ({timezone}); hentikan dengan /kuis pengingat matikan di "
        "server.",
    },
    "remind.a_server": {"en": "your server", "id": "server Anda"},
    "remind.button": {"en": "Review now", "id": "Ulangi sekarang"},
    "remind.no_reminder": {
        "en": "This reminder is no longer linked to a server: use /quiz review there.",
        "id": "Pengingat ini tidak lagi terhubung ke server: pakai /kuis ulang di sana.",
    },
    "remind.left_server": {
        "en": "You are no longer in the server of this reminder, so its review is closed to "
        "you, and I turned its reminders off.",
        "id": "Anda tidak lagi berada di server pengingat ini, jadi ulangannya tertutup untuk "
        "Anda, dan pengingatnya saya matikan.",
    },
    "review.not_member": {
        "en": "You are no longer in that server, so its review is closed to you.",
        "id": "Anda tidak lagi berada di server itu, jadi ulangannya tertutup untuk Anda.",
    },
    "remind.dm_closed": {
        "en": "⏰ Your review reminders are off: Discord did not let me send you a DM (your "
        "DMs are closed to me). Open them, then use /quiz remind on again.",
        "id": "⏰ Pengingat ulangan Anda dimatikan: Discord tidak mengizinkan saya mengirim DM "
        "(DM Anda tertutup untuk saya). Buka DM Anda, lalu pakai /kuis pengingat nyalakan lagi.",
    },
    # -- /me -------------------------------------------------------------------------------
    "me.heatmap_title": {
        "en": "Answers per day, last 26 weeks",
        "id": "Jawaban per hari, 26 minggu terakhir",
    },
    "me.habit": {"en": "Habit (26 weeks)", "id": "Kebiasaan (26 minggu)"},
    "me.habit_value": {
        "en": "{answers} answer(s) · current run {current} day(s) · longest run {longest} day(s)",
        "id": "{answers} jawaban · rangkaian saat ini {current} hari · rangkaian terpanjang "
        "{longest} hari",
    },
    "me.weekdays": {"en": "Mon,Wed,Fri,Sun", "id": "Sen,Rab,Jum,Min"},
    "me.months": {
        "en": "Jan,Feb,Mar,Apr,May,Jun,Jul,Aug,Sep,Oct,Nov,Dec",
        "id": "Jan,Feb,Mar,Apr,Mei,Jun,Jul,Agu,Sep,Okt,Nov,Des",
    },
    "me.run_current": {"en": "current run", "id": "rangkaian saat ini"},
    "me.run_longest": {"en": "longest run", "id": "rangkaian terpanjang"},
    "me.next_review_title": {"en": "Next review", "id": "Ulangan berikutnya"},
    "me.next_review_none": {"en": "none yet", "id": "belum ada"},
    "me.true_retention": {"en": "True retention (30 days)", "id": "Retensi nyata (30 hari)"},
    "me.true_retention_value": {
        "en": "{actual}% of {n} due review(s) answered right · target {target}%",
        "id": "{actual}% dari {n} ulangan jatuh tempo dijawab benar · target {target}%",
    },
    "me.true_retention_none": {
        "en": "no review of a due question in 30 days · target {target}%",
        "id": "belum ada ulangan soal jatuh tempo dalam 30 hari · target {target}%",
    },
    # -- /daily stats ----------------------------------------------------------------------
    "class.memory": {"en": "Memory model", "id": "Model memori"},
    "class.memory_fitted": {
        "en": "Fitted to this server ({date}); on {n} held-out reviews: log-loss {ll_fit} "
        "(defaults {ll_def}), RMSE (bins) {rmse_fit} (defaults {rmse_def}).",
        "id": "Disesuaikan dengan server ini ({date}); pada {n} ulangan yang disisihkan: "
        "log-loss {ll_fit} (bawaan {ll_def}), RMSE (bin) {rmse_fit} (bawaan {rmse_def}).",
    },
    "class.memory_not_better": {
        "en": "FSRS's defaults: the last fit ({date}) did not predict {n} held-out reviews "
        "better (log-loss {ll_fit} vs {ll_def}, RMSE (bins) {rmse_fit} vs {rmse_def}).",
        "id": "Parameter bawaan FSRS: penyesuaian terakhir ({date}) tidak lebih baik "
        "memperkirakan {n} ulangan yang disisihkan (log-loss {ll_fit} vs {ll_def}, RMSE (bin) "
        "{rmse_fit} vs {rmse_def}).",
    },
    "class.memory_too_little": {
        "en": "FSRS's defaults: a fit needs {min_reviews} reviews from {min_members} members "
        "(last check {date}: {reviews} reviews).",
        "id": "Parameter bawaan FSRS: penyesuaian butuh {min_reviews} ulangan dari "
        "{min_members} anggota (pemeriksaan terakhir {date}: {reviews} ulangan).",
    },
    "class.memory_none": {
        "en": "FSRS's defaults: no fit yet (weekly, once the server has {min_reviews} reviews "
        "from {min_members} members).",
        "id": "Parameter bawaan FSRS: belum ada penyesuaian (mingguan, setelah server punya "
        "{min_reviews} ulangan dari {min_members} anggota).",
    },
    "class.retention": {
        "en": "Class retention, next 30 days",
        "id": "Retensi kelas, 30 hari ke depan",
    },
    "class.retention_value": {
        "en": "Predicted recall of {cards} card(s) reviewed here in the last 30 days: {now}% "
        "today, {week}% in 7 days, {month}% in 30 days (target {target}%).",
        "id": "Perkiraan ingatan atas {cards} kartu yang diulang di sini dalam 30 hari "
        "terakhir: {now}% hari ini, {week}% dalam 7 hari, {month}% dalam 30 hari (target "
        "{target}%).",
    },
    "class.retention_none": {
        "en": "No card reviewed here in the last 30 days.",
        "id": "Belum ada kartu yang diulang di sini dalam 30 hari terakhir.",
    },
    "class.retention_chart": {
        "en": "Predicted recall of the class",
        "id": "Perkiraan ingatan kelas",
    },
    "class.days_ahead": {"en": "days from today", "id": "hari dari sekarang"},
    "class.target": {"en": "target", "id": "sasaran"},
}
