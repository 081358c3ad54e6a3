"""Texts of the terminal tutor, /quiz, /demo and errors shared by every command."""

MESSAGES: dict[str, dict[str, str]] = {
    # --- the terminal tutor -------------------------------------------------------
    "tutor.header": {
        "en": "{title} — {count} question(s). Answer with the letter of a choice.",
        "id": "{title} — {count} soal. Jawab dengan huruf pilihan.",
    },
    "tutor.question": {
        "en": "Question {number}/{count}",
        "id": "Soal {number}/{count}",
    },
    "tutor.prompt": {"en": "Your answer ({letters}): ", "id": "Jawaban Anda ({letters}): "},
    "tutor.bad_letter": {
        "en": "'{value}' is not a choice. Type one of: {letters}.",
        "id": "'{value}' bukan pilihan. Ketik salah satu: {letters}.",
    },
    "tutor.correct": {"en": "Correct!", "id": "Benar!"},
    "tutor.wrong": {
        "en": "Not quite. The answer is {letter}) {choice}",
        "id": "Kurang tepat. Jawabannya {letter}) {choice}",
    },
    "tutor.demo_hint": {
        "en": "See it run: quiztutor demo {demo}",
        "id": "Lihat buktinya: quiztutor demo {demo}",
    },
    "tutor.score": {
        "en": "Score: {score}/{count} ({percent}%)",
        "id": "Skor: {score}/{count} ({percent}%)",
    },
    "tutor.ended_early": {
        "en": "Input ended before the quiz did.",
        "id": "Masukan berakhir sebelum kuis selesai.",
    },
    # --- general -------------------------------------------------------------------
    "cooldown": {
        "en": "Slow down a little: try again in {seconds} s.",
        "id": "Pelan-pelan: coba lagi dalam {seconds} detik.",
    },
    "perm.manage_guild": {
        "en": "Only members with the Manage Server permission can do this.",
        "id": "Hanya anggota dengan izin Kelola Server yang bisa melakukan ini.",
    },
    "perm.send_messages": {
        "en": "You may not send messages in this channel, so I do not answer you here in "
        "public either.",
        "id": "Anda tidak boleh mengirim pesan di kanal ini, jadi saya juga tidak menjawab "
        "Anda di sini secara publik.",
    },
    "perm.send_messages_in_threads": {
        "en": "You may not send messages in this thread, so I do not answer you here in "
        "public either.",
        "id": "Anda tidak boleh mengirim pesan di utas ini, jadi saya juga tidak menjawab "
        "Anda di sini secara publik.",
    },
    "perm.create_public_threads": {
        "en": "You may not create threads in this channel, and a live round opens one: "
        "start it where you may, or ask a moderator.",
        "id": "Anda tidak boleh membuat utas di kanal ini, padahal ronde langsung membuka "
        "satu: mulai di tempat Anda boleh, atau minta bantuan moderator.",
    },
    "perm.guild_only": {
        "en": "This command works in a server, not in direct messages.",
        "id": "Perintah ini hanya bisa dipakai di server, bukan di pesan langsung.",
    },
    "error.db_unavailable": {
        "en": "The bot cannot reach its database right now, so this was not recorded. "
        "Please try again in a moment.",
        "id": "Bot sedang tidak dapat menghubungi basis datanya, jadi ini belum tercatat. "
        "Silakan coba lagi sebentar lagi.",
    },
    "error.internal": {
        "en": "Something went wrong on our side. Nothing was lost; please try again.",
        "id": "Terjadi kesalahan di sisi bot. Tidak ada yang hilang; silakan coba lagi.",
    },
    "button.unknown": {
        "en": "This button is no longer understood; run the command again.",
        "id": "Tombol ini tidak dikenali lagi; jalankan perintahnya lagi.",
    },
    # --- /quiz ---------------------------------------------------------------------
    "quiz.question_title": {"en": "Question {number}/{total}", "id": "Soal {number}/{total}"},
    "quiz.right": {"en": "✅ Correct!", "id": "✅ Benar!"},
    "quiz.wrong": {
        "en": "❌ Not quite: the answer is {letter}.",
        "id": "❌ Kurang tepat: jawabannya {letter}.",
    },
    "quiz.why": {"en": "Why", "id": "Penjelasan"},
    "quiz.sources": {"en": "Sources", "id": "Sumber"},
    "quiz.next": {"en": "Next", "id": "Berikutnya"},
    "quiz.finish": {"en": "See my score", "id": "Lihat skor"},
    "quiz.show_me": {"en": "Show me", "id": "Buktikan"},
    "quiz.done_title": {"en": "Quiz finished", "id": "Kuis selesai"},
    "quiz.done": {
        "en": "Score: **{score}/{total}** ({percent}%) in {time}.",
        "id": "Skor: **{score}/{total}** ({percent}%) dalam {time}.",
    },
    "quiz.stopped": {"en": "Your quiz is stopped.", "id": "Kuis Anda dihentikan."},
    "quiz.nothing_to_stop": {
        "en": "You have no quiz running. Start one with /quiz start.",
        "id": "Anda tidak sedang mengikuti kuis. Mulai dengan /kuis mulai.",
    },
    # --- /demo ---------------------------------------------------------------------
    "demo.ran_on": {"en": "Ran on", "id": "Dijalankan di"},
    "demo.device_time": {"en": "{device} in {seconds} s", "id": "{device} dalam {seconds} detik"},
    "demo.params": {"en": "Parameters", "id": "Parameter"},
    "demo.queued": {
        "en": "⏳ Another demo is running; yours is number {position} in the queue.",
        "id": "⏳ Demo lain sedang berjalan; demo Anda nomor {position} dalam antrean.",
    },
    "demo.busy": {
        "en": "The demo queue is full right now. Please try again in a minute.",
        "id": "Antrean demo sedang penuh. Silakan coba lagi sebentar lagi.",
    },
    "demo.timeout": {
        "en": "The demo took too long and was stopped. The worker was restarted; try again.",
        "id": "Demo berjalan terlalu lama dan dihentikan. Worker sudah dijalankan ulang; coba lagi.",
    },
    "demo.crashed": {
        "en": "The demo stopped with an error before it finished. Please try again.",
        "id": "Demo berhenti karena galat sebelum selesai. Silakan coba lagi.",
    },
    "demo.gpu_busy": {
        "en": "The GPU is busy; try again, or run demos on the CPU with `DEMO_DEVICE=cpu`.",
        "id": "GPU sedang sibuk; coba lagi, atau jalankan demo di CPU dengan `DEMO_DEVICE=cpu`.",
    },
    "demo.gpu_failed": {
        "en": "The GPU could not run this demo ({reason}). Try again later, or run demos on "
        "the CPU with `DEMO_DEVICE=cpu`.",
        "id": "GPU tidak dapat menjalankan demo ini ({reason}). Coba lagi nanti, atau "
        "jalankan demo di CPU dengan `DEMO_DEVICE=cpu`.",
    },
    "demo.gpu_restarted": {
        "en": "The GPU failed while running this demo ({reason}); the demo worker was "
        "stopped and is being restarted. Please try again in a minute.",
        "id": "GPU gagal saat menjalankan demo ini ({reason}); worker demo dihentikan dan "
        "sedang dijalankan ulang. Silakan coba lagi sebentar lagi.",
    },
    "demo.disabled": {
        "en": "Demos are turned off on this bot.",
        "id": "Demo dinonaktifkan pada bot ini.",
    },
    "demo.unknown": {
        "en": "There is no demo '{name}'. Available: {available}.",
        "id": "Tidak ada demo '{name}'. Yang tersedia: {available}.",
    },
    "demo.param_unused": {
        "en": "The {demo} demo takes no {param} option.",
        "id": "Demo {demo} tidak memakai opsi {param}.",
    },
    "demo.param_range": {
        "en": "{param} must be between {min} and {max} (you gave {value}).",
        "id": "{param} harus antara {min} dan {max} (Anda memberi {value}).",
    },
    "quiz.unknown_topic": {
        "en": "There is no quiz '{topic}'. Available: {available}.",
        "id": "Tidak ada kuis '{topic}'. Yang tersedia: {available}.",
    },
    "quiz.fewer": {
        "en": "This quiz holds {count} questions, not {asked}: here are all {count}.",
        "id": "Kuis ini berisi {count} soal, bukan {asked}: ini semuanya ({count}).",
    },
    "quiz.bad_count": {
        "en": "Choose between 1 and {max} questions (not {count}).",
        "id": "Pilih antara 1 dan {max} soal (bukan {count}).",
    },
    "quiz.no_questions": {
        "en": "There are no quizzes loaded yet.",
        "id": "Belum ada kuis yang dimuat.",
    },
    "quiz.not_yours": {
        "en": "This quiz belongs to someone else; start your own with /quiz start.",
        "id": "Kuis ini milik orang lain; mulai kuis Anda sendiri dengan /kuis mulai.",
    },
    "quiz.expired": {
        "en": "This quiz is no longer active; start a new one with /quiz start.",
        "id": "Kuis ini sudah tidak aktif; mulai yang baru dengan /kuis mulai.",
    },
    "quiz.old_question": {
        "en": "That button belongs to question {number}, not the current one.",
        "id": "Tombol itu milik soal {number}, bukan soal yang sekarang.",
    },
    "quiz.bad_choice": {
        "en": "Choice {position} doesn't exist (1–{max}).",
        "id": "Pilihan {position} tidak ada (1–{max}).",
    },
    # --- /quiz review ----------------------------------------------------------------
    "quiz.review_now": {
        "en": "📌 {count} question(s) to review now: /quiz review.",
        "id": "📌 {count} soal perlu diulang sekarang: /kuis ulang.",
    },
    "review.nothing_due": {
        "en": "🎉 Nothing to review right now: you have answered every question and none is "
        "due yet. Your next review falls due {when}.",
        "id": "🎉 Belum ada yang perlu diulang: semua soal sudah Anda jawab dan belum ada yang "
        "jatuh tempo. Ulangan berikutnya jatuh tempo {when}.",
    },
}
