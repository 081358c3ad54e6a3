"""Texts of live rounds (/quiz live): the lobby, questions, reveals, the scoreboard, and
the replies to every press."""

MESSAGES: dict[str, dict[str, str]] = {
    # --- refusals ------------------------------------------------------------------
    "live.bad_questions": {
        "en": "A live round has {low} to {high} questions.",
        "id": "Satu ronde langsung berisi {low} sampai {high} soal.",
    },
    "live.bad_seconds": {
        "en": "Each question runs {low} to {high} seconds.",
        "id": "Setiap soal berlangsung {low} sampai {high} detik.",
    },
    "live.already_running": {
        "en": "A live round is already running here: {link}. Join it, or wait until it ends.",
        "id": "Sudah ada ronde langsung di sini: {link}. Ikuti, atau tunggu sampai selesai.",
    },
    "live.server_full": {
        "en": "This server already runs {limit} live round(s) at once; try again when one ends.",
        "id": "Server ini sudah menjalankan {limit} ronde langsung sekaligus; coba lagi setelah "
        "salah satunya selesai.",
    },
    "live.text_channel_only": {
        "en": "Live rounds run in a server's text channel.",
        "id": "Ronde langsung berjalan di kanal teks server.",
    },
    "live.cannot_post": {
        "en": "I may not post in {channel}: give me View Channel and Send Messages there "
        "(and Send Messages in Threads).",
        "id": "Saya tidak boleh mengirim pesan di {channel}: beri saya izin Lihat Kanal dan "
        "Kirim Pesan di sana (serta Kirim Pesan di Utas).",
    },
    "live.unknown_round": {
        "en": "This button belongs to no live round I know.",
        "id": "Tombol ini bukan milik ronde langsung mana pun yang saya kenal.",
    },
    "live.other_round": {
        "en": "This button belongs to another live round.",
        "id": "Tombol ini milik ronde langsung yang lain.",
    },
    "live.question_gone": {
        "en": "This question was removed from its quiz; it can no longer be answered.",
        "id": "Soal ini sudah dihapus dari kuisnya; tidak bisa dijawab lagi.",
    },
    "live.round_over": {
        "en": "This live round is over.",
        "id": "Ronde langsung ini sudah selesai.",
    },
    "live.host_only": {
        "en": "Only the host ({host}) or a member with Manage Server can do this.",
        "id": "Hanya pemandu ({host}) atau anggota dengan izin Kelola Server yang bisa "
        "melakukan ini.",
    },
    "live.none_here": {
        "en": "No live round is running in this channel.",
        "id": "Tidak ada ronde langsung yang berjalan di kanal ini.",
    },
    # --- opening -------------------------------------------------------------------
    "live.all_topics": {"en": "all topics", "id": "semua topik"},
    "live.thread_name": {"en": "Live quiz: {title}", "id": "Kuis langsung: {title}"},
    "live.opened": {
        "en": "🎯 A live quiz ({title}) starts in {link}: {questions} questions, {seconds} s "
        "each. Everyone can join!",
        "id": "🎯 Kuis langsung ({title}) dimulai di {link}: {questions} soal, masing-masing "
        "{seconds} detik. Semua boleh ikut!",
    },
    "live.opened_here": {
        "en": "🎯 A live quiz ({title}) starts here: {questions} questions, {seconds} s each. "
        "I may not create threads in this channel, so the round plays in the channel itself.",
        "id": "🎯 Kuis langsung ({title}) dimulai di sini: {questions} soal, masing-masing "
        "{seconds} detik. Saya tidak boleh membuat utas di kanal ini, jadi ronde berjalan di "
        "kanal ini.",
    },
    "live.lobby_title": {"en": "🎯 Live quiz: {title}", "id": "🎯 Kuis langsung: {title}"},
    "live.lobby": {
        "en": "Host: {host}. {questions} questions, {seconds} s each: the faster a right "
        "answer, the more points (up to 1,000).\nPress **Join** to play (answering also "
        "joins). The round starts when the host presses **Start**, or {when}.",
        "id": "Pemandu: {host}. {questions} soal, masing-masing {seconds} detik: makin cepat "
        "jawaban benar, makin banyak poin (sampai 1.000).\nTekan **Ikut** untuk bermain "
        "(menjawab juga berarti ikut). Ronde dimulai saat pemandu menekan **Mulai**, atau "
        "{when}.",
    },
    "live.lobby_started": {
        "en": "The round has started: answer in the questions below.",
        "id": "Ronde sudah dimulai: jawab di soal-soal di bawah.",
    },
    "live.join": {"en": "Join", "id": "Ikut"},
    "live.start": {"en": "Start", "id": "Mulai"},
    "live.skip": {"en": "Skip", "id": "Lewati"},
    "live.my_result": {"en": "My result", "id": "Hasil saya"},
    # --- a question ----------------------------------------------------------------
    "live.question_title": {
        "en": "Question {number}/{total}",
        "id": "Soal {number}/{total}",
    },
    "live.closes": {"en": "⏱️ Closes {when}", "id": "⏱️ Ditutup {when}"},
    "live.closed": {"en": "⏱️ Closed", "id": "⏱️ Ditutup"},
    "live.answered": {"en": "👥 {count} answered", "id": "👥 {count} sudah menjawab"},
    # --- replies to presses --------------------------------------------------------
    "live.your_answer": {
        "en": "Your answer: {letter}. The answer comes at the reveal.",
        "id": "Jawaban Anda: {letter}. Jawaban benar diumumkan saat soal ditutup.",
    },
    "live.already_answered": {
        "en": "You answered {letter} already: your first answer counts.",
        "id": "Anda sudah menjawab {letter}: jawaban pertama yang dihitung.",
    },
    "live.question_closed": {
        "en": "This question is closed.",
        "id": "Soal ini sudah ditutup.",
    },
    "live.late": {
        "en": "Too late: the time for this question was up.",
        "id": "Terlambat: waktu untuk soal ini sudah habis.",
    },
    "live.not_open": {
        "en": "This question is not open yet; try again in a moment.",
        "id": "Soal ini belum dibuka; coba lagi sebentar lagi.",
    },
    "live.joined": {
        "en": "You joined the round: answer each question with its buttons.",
        "id": "Anda ikut ronde ini: jawab setiap soal dengan tombolnya.",
    },
    "live.already_joined": {
        "en": "You are in the round already.",
        "id": "Anda sudah ikut ronde ini.",
    },
    "live.starting": {"en": "The round starts now.", "id": "Ronde dimulai sekarang."},
    "live.started_already": {
        "en": "The round has started already.",
        "id": "Ronde sudah dimulai.",
    },
    "live.skipped": {
        "en": "Question {number} is revealed now.",
        "id": "Soal {number} dibuka jawabannya sekarang.",
    },
    "live.skip_late": {
        "en": "Question {number} is closed already.",
        "id": "Soal {number} sudah ditutup.",
    },
    "live.stopping": {
        "en": "The round ends: the scoreboard so far follows in {link}.",
        "id": "Ronde diakhiri: papan skor sejauh ini menyusul di {link}.",
    },
    # --- the reveal ----------------------------------------------------------------
    "live.reveal_title": {
        "en": "Question {number}/{total}: the answer is {letter}",
        "id": "Soal {number}/{total}: jawabannya {letter}",
    },
    "live.distribution": {"en": "Answers ({count})", "id": "Jawaban ({count})"},
    "live.no_answers": {"en": "Nobody answered.", "id": "Tidak ada yang menjawab."},
    "live.fastest": {"en": "Fastest right answers", "id": "Jawaban benar tercepat"},
    "live.fastest_line": {
        "en": "{place}. {player}: {seconds} s",
        "id": "{place}. {player}: {seconds} detik",
    },
    "live.nobody_right": {"en": "Nobody got it right.", "id": "Tidak ada yang benar."},
    # --- the scoreboard ------------------------------------------------------------
    "live.board_title": {
        "en": "🏁 Live quiz over: {title}",
        "id": "🏁 Kuis langsung selesai: {title}",
    },
    "live.board_line": {
        "en": "**{rank}.** {player}: {points} points, {right} right",
        "id": "**{rank}.** {player}: {points} poin, {right} benar",
    },
    "live.board_empty": {
        "en": "Nobody answered, so there is no scoreboard.",
        "id": "Tidak ada yang menjawab, jadi tidak ada papan skor.",
    },
    "live.board_footer": {
        "en": "{players} player(s), {asked} question(s). Ties go to the faster total time. "
        "Press My result for your rank and what to review.",
        "id": "{players} pemain, {asked} soal. Nilai sama dimenangkan total waktu tercepat. "
        "Tekan Hasil saya untuk peringkat Anda dan soal yang perlu diulang.",
    },
    "live.ended_finished": {"en": "All questions done.", "id": "Semua soal selesai."},
    "live.ended_stopped": {
        "en": "Stopped by the host.",
        "id": "Dihentikan oleh pemandu.",
    },
    "live.ended_idle": {
        "en": "Ended: no answers for 3 questions in a row.",
        "id": "Berakhir: tidak ada jawaban untuk 3 soal berturut-turut.",
    },
    "live.ended_gone": {
        "en": "Ended: the thread or a question was deleted. The scores are kept.",
        "id": "Berakhir: utas atau salah satu soal dihapus. Skor tetap tersimpan.",
    },
    "live.ended_forbidden": {
        "en": "Ended: I may no longer post in the thread (Send Messages in Threads). The "
        "scores are kept.",
        "id": "Berakhir: saya tidak boleh lagi mengirim pesan di utas (Kirim Pesan di Utas). "
        "Skor tetap tersimpan.",
    },
    "live.ended_abandoned": {"en": "Cancelled.", "id": "Dibatalkan."},
    "live.board_in_channel": {
        "en": "The round's thread is gone; here are its scores.",
        "id": "Utas ronde ini sudah tidak ada; ini skornya.",
    },
    # --- my result -----------------------------------------------------------------
    "live.result": {
        "en": "Rank {rank} of {players}: {points} points, {right} of {answered} right.",
        "id": "Peringkat {rank} dari {players}: {points} poin, {right} dari {answered} benar.",
    },
    "live.result_none": {
        "en": "You did not answer in this round.",
        "id": "Anda tidak menjawab di ronde ini.",
    },
    "live.result_wrong": {
        "en": "Answered wrong (now in your `/quiz review`):",
        "id": "Dijawab salah (sekarang ada di `/kuis ulang` Anda):",
    },
    "live.result_all_right": {
        "en": "No wrong answers. 🎉",
        "id": "Tidak ada jawaban salah. 🎉",
    },
    # --- the server's language for rounds ------------------------------------------
    "live.language_set": {
        "en": "Live rounds in this server are now in {language}.",
        "id": "Ronde langsung di server ini sekarang memakai {language}.",
    },
    "live.language_host": {
        "en": "Live rounds in this server use the host's language.",
        "id": "Ronde langsung di server ini memakai bahasa pemandunya.",
    },
    "live.language_id": {"en": "Indonesian", "id": "bahasa Indonesia"},
    "live.language_en": {"en": "English", "id": "bahasa Inggris"},
}
