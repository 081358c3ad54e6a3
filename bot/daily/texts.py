"""Texts of the daily question: /daily commands, posts, reveals, schedule errors."""

MESSAGES: dict[str, dict[str, str]] = {
    "daily.bad_time": {
        "en": "'{value}' is not a time; use HH:MM on a 24-hour clock, e.g. 07:30.",
        "id": "'{value}' bukan format waktu; gunakan HH:MM format 24 jam, mis. 07:30.",
    },
    "daily.bad_timezone": {
        "en": "'{value}' is not a known time zone; use a name like Asia/Jakarta.",
        "id": "'{value}' bukan zona waktu yang dikenal; gunakan nama seperti Asia/Jakarta.",
    },
    "daily.bad_reveal_after": {
        "en": "Reveal after must be {min}–{max} whole hours, or left empty.",
        "id": "Buka setelah harus {min}–{max} jam penuh, atau dikosongkan.",
    },
    "daily.unknown_topic": {
        "en": "There is no topic '{topic}'. Available: {available}.",
        "id": "Tidak ada topik '{topic}'. Yang tersedia: {available}.",
    },
    "daily.bad_locale": {
        "en": "Language '{value}' is not supported; choose one of {allowed}.",
        "id": "Bahasa '{value}' tidak didukung; pilih salah satu dari {allowed}.",
    },
    "daily.no_questions": {
        "en": "There are no questions to post for this topic.",
        "id": "Tidak ada soal untuk dikirim pada topik ini.",
    },
    "daily.post_title": {"en": "Question of the day · {day}", "id": "Soal hari ini · {day}"},
    "daily.post_footer": {
        "en": "{quiz} · Answer by reacting; your first reaction counts.",
        "id": "{quiz} · Jawab dengan reaksi; reaksi pertama Anda yang dihitung.",
    },
    "daily.reveal_title": {"en": "Answer: {letter}", "id": "Jawaban: {letter}"},
    "daily.result_name": {"en": "Result", "id": "Hasil"},
    "daily.result_unclear": {
        "en": "Not counted: {count} member(s) who reacted with more than one letter while the bot was offline (the order of reactions made then is unknown).",
        "id": "Tidak dihitung: {count} anggota yang bereaksi dengan lebih dari satu huruf saat bot sedang offline (urutan reaksi saat itu tidak diketahui).",
    },
    "daily.result": {
        "en": "{correct} of {answered} answered correctly.",
        "id": "{correct} dari {answered} menjawab dengan benar.",
    },
    "daily.records_name": {"en": "Records", "id": "Rekor"},
    "daily.new_best": {
        "en": "{user}: new personal best, {days} in a row",
        "id": "{user}: rekor pribadi baru, {days} berturut-turut",
    },
    "daily.milestone": {
        "en": "🔥 {user} reached {days} days in a row!",
        "id": "🔥 {user} mencapai {days} hari berturut-turut!",
    },
    "daily.answer_unavailable": {
        "en": "The question of {day} is no longer in the quiz bank; {correct} of {answered} answered correctly.",
        "id": "Soal tanggal {day} sudah tidak ada di bank soal; {correct} dari {answered} menjawab dengan benar.",
    },
    # --- /daily commands ------------------------------------------------------------
    "daily.setup_done": {
        "en": "✅ The daily question will be posted in {channel} at {time} ({timezone}). Next post: {next}. {reveal}",
        "id": "✅ Soal harian akan dikirim di {channel} pukul {time} ({timezone}). Kiriman berikutnya: {next}. {reveal}",
    },
    "daily.reveal_default": {
        "en": "The answer is revealed just before the next post.",
        "id": "Jawaban dibuka sesaat sebelum soal berikutnya.",
    },
    "daily.reveal_hours": {
        "en": "The answer is revealed {hours} h after the post.",
        "id": "Jawaban dibuka {hours} jam setelah soal dikirim.",
    },
    "daily.not_configured": {
        "en": "The daily question is not set up here. One command sets it up, e.g. "
        "`/daily setup channel:#general time:08:00 timezone:Asia/Jakarta`.",
        "id": "Soal harian belum diatur di sini. Satu perintah mengaturnya, mis. "
        "`/harian atur kanal:#general waktu:08:00 zona_waktu:Asia/Jakarta`.",
    },
    "daily.status_title": {"en": "Daily question", "id": "Soal harian"},
    "daily.status_channel": {"en": "Channel", "id": "Kanal"},
    "daily.status_time": {"en": "Time", "id": "Waktu"},
    "daily.status_topic": {"en": "Topic", "id": "Topik"},
    "daily.status_all_topics": {"en": "all quizzes", "id": "semua kuis"},
    "daily.status_reveal": {"en": "Reveal", "id": "Buka jawaban"},
    "daily.status_language": {"en": "Language", "id": "Bahasa"},
    "daily.status_next": {"en": "Next post", "id": "Kiriman berikutnya"},
    "daily.status_off": {"en": "Off", "id": "Mati"},
    "daily.status_open": {"en": "Open question", "id": "Soal terbuka"},
    "daily.status_open_value": {
        "en": "[{day}]({link}), revealed {reveal}",
        "id": "[{day}]({link}), dibuka {reveal}",
    },
    "daily.status_none_open": {"en": "none", "id": "tidak ada"},
    # --- why the day's question was chosen (bot.daily.choice) -------------------------
    "daily.bad_repeat_after": {
        "en": "Repeat after must be {min}–{max} whole days, or left empty.",
        "id": "Ulang setelah harus {min}–{max} hari penuh, atau dikosongkan.",
    },
    "daily.status_repeat": {"en": "No repeat within", "id": "Tidak diulang dalam"},
    "daily.repeat_days": {"en": "{days} days", "id": "{days} hari"},
    "daily.status_why": {"en": "Why {question} ({day})", "id": "Mengapa {question} ({day})"},
    "daily.why_weak_cards": {
        "en": "The {members} recently active member(s) recall it least: {recall}% mean recall over {n} review card(s).",
        "id": "{members} anggota yang aktif belakangan paling lemah mengingatnya: rata-rata daya ingat {recall}% dari {n} kartu ulangan.",
    },
    "daily.why_weak_answers": {
        "en": "The {members} recently active member(s) get it wrong most: {recall}% right in {n} answer(s).",
        "id": "{members} anggota yang aktif belakangan paling sering salah: {recall}% benar dari {n} jawaban.",
    },
    "daily.why_known_cards": {
        "en": "Every question left is well recalled by the {members} active member(s); this one least ({recall}% mean recall over {n} card(s)).",
        "id": "Semua soal yang tersisa diingat baik oleh {members} anggota aktif; soal ini paling lemah ({recall}% rata-rata daya ingat dari {n} kartu).",
    },
    "daily.why_known_answers": {
        "en": "Every question left is well known by the {members} active member(s); this one least ({recall}% right in {n} answer(s)).",
        "id": "Semua soal yang tersisa dikuasai {members} anggota aktif; soal ini paling lemah ({recall}% benar dari {n} jawaban).",
    },
    "daily.why_new": {
        "en": "None of the {members} recently active member(s) has answered it yet, and no question left is recalled below {target}%.",
        "id": "Belum ada dari {members} anggota yang aktif belakangan yang menjawabnya, dan tidak ada soal tersisa yang daya ingatnya di bawah {target}%.",
    },
    "daily.why_rotation": {
        "en": "Nobody answered a daily question in the last {active} days, so the rotation chose it.",
        "id": "Tidak ada yang menjawab soal harian dalam {active} hari terakhir, jadi soal dipilih oleh rotasi.",
    },
    "daily.why_window": {
        "en": "Not posted in the last {window} day(s); {candidates} question(s) were eligible.",
        "id": "Tidak dikirim dalam {window} hari terakhir; {candidates} soal memenuhi syarat.",
    },
    "daily.why_tied": {
        "en": "A tie among {tied}, broken by the rotation.",
        "id": "Seri di antara {tied} soal, diputuskan oleh rotasi.",
    },
    "daily.off_done": {
        "en": "The daily question is off. /daily setup turns it on again.",
        "id": "Soal harian dimatikan. /harian atur menyalakannya lagi.",
    },
    "daily.posted": {
        "en": "✅ Today's question is posted: {link}",
        "id": "✅ Soal hari ini sudah dikirim: {link}",
    },
    "daily.already_posted": {
        "en": "Today's question is already posted: {link}",
        "id": "Soal hari ini sudah dikirim: {link}",
    },
    "daily.not_posted": {
        "en": "Today's question could not be posted; please try again.",
        "id": "Soal hari ini tidak bisa dikirim; silakan coba lagi.",
    },
    "daily.owed_title": {"en": "Still to be sent", "id": "Belum terkirim"},
    "daily.owed_value": {
        "en": "The {what} of [{day}]({link}): {attempts} failed tries, next try {next}. Last error: {error}",
        "id": "{what} untuk [{day}]({link}): {attempts} kali gagal, dicoba lagi {next}. Galat terakhir: {error}",
    },
    "daily.owed_sending": {
        "en": "The {what} of [{day}]({link}): being sent now.",
        "id": "{what} untuk [{day}]({link}): sedang dikirim.",
    },
    "daily.owed_interrupted": {
        "en": "The {what} of [{day}]({link}): a try was cut off (the bot stopped while sending), next try {next}.",
        "id": "{what} untuk [{day}]({link}): pengiriman terputus (bot berhenti saat mengirim), dicoba lagi {next}.",
    },
    "daily.owed_unsure": {
        "en": "Before sending again, the bot looks in the channel for a copy Discord may already have.",
        "id": "Sebelum mengirim ulang, bot memeriksa kanal apakah Discord sudah menerima salinannya.",
    },
    "daily.reveal_retry_sent": {
        "en": "📨 The reveal of {day} was still owed: sent now ({link}).",
        "id": "📨 Pengumuman jawaban {day} masih tertunda: sekarang sudah dikirim ({link}).",
    },
    "daily.reveal_retry_found": {
        "en": "📨 The reveal of {day} was already in the channel ({link}); recorded, not sent again.",
        "id": "📨 Pengumuman jawaban {day} ternyata sudah ada di kanal ({link}); dicatat, tidak dikirim ulang.",
    },
    "daily.reveal_retry_failed": {
        "en": "⚠️ The reveal of {day} is still owed: tried again just now, Discord did not take it ({error}). {attempts} failed tries; next automatic try {next}.",
        "id": "⚠️ Pengumuman jawaban {day} masih tertunda: baru saja dicoba lagi, Discord belum menerimanya ({error}). {attempts} kali gagal; dicoba otomatis lagi {next}.",
    },
    "daily.reveal_retry_busy": {
        "en": "⏳ The reveal of {day} is being sent right now; `/daily status` shows it until it is out.",
        "id": "⏳ Pengumuman jawaban {day} sedang dikirim; `/daily status` menampilkannya sampai terkirim.",
    },
    "daily.reveal_retry_refused": {
        "en": "⛔ Discord refused the reveal of {day} for good ({reason}); check the bot's permissions in the channel.",
        "id": "⛔ Discord menolak pengumuman jawaban {day} untuk seterusnya ({reason}); periksa izin bot di kanal itu.",
    },
    "daily.owed_reveal": {"en": "reveal", "id": "Pengumuman jawaban"},
    "daily.owed_reactions": {"en": "answer reactions", "id": "Reaksi jawaban"},
    "daily.reveal_owed": {
        "en": "Discord did not take the announcement yet; it is kept and retried automatically (next try {next}). `/daily status` shows it until it is out.",
        "id": "Discord belum menerima pengumumannya; pengumuman disimpan dan dikirim ulang otomatis (percobaan berikutnya {next}). `/daily status` menampilkannya sampai terkirim.",
    },
    "daily.revealed": {
        "en": "✅ Revealed: {correct} of {answered} answered correctly. Streaks are updated.",
        "id": "✅ Jawaban dibuka: {correct} dari {answered} menjawab dengan benar. Streak diperbarui.",
    },
    "daily.nothing_open": {
        "en": "There is no open daily question to reveal.",
        "id": "Tidak ada soal harian terbuka untuk dibuka jawabannya.",
    },
    "daily.stats_title": {
        "en": "Daily question: recent days",
        "id": "Soal harian: hari-hari terakhir",
    },
    "daily.stats_day": {
        "en": "{day} · {question}: {answered} answered, {correct} right{percent}",
        "id": "{day} · {question}: {answered} menjawab, {correct} benar{percent}",
    },
    "daily.stats_totals": {
        "en": "{members} members answered {answered} times, {correct} right ({percent}).",
        "id": "{members} anggota menjawab {answered} kali, {correct} benar ({percent}).",
    },
    "daily.stats_empty": {
        "en": "No daily question has been posted here yet.",
        "id": "Belum ada soal harian yang dikirim di sini.",
    },
    "daily.disabled_forbidden": {
        "en": "⚠️ I stopped posting the daily question: I may not post in {channel} (missing permissions). Give me View Channel, Send Messages, Embed Links and Add Reactions there, then run /daily setup again.",
        "id": "⚠️ Soal harian berhenti dikirim: saya tidak boleh mengirim di {channel} (izin kurang). Beri saya izin Lihat Kanal, Kirim Pesan, Sematkan Tautan, dan Tambah Reaksi di sana, lalu jalankan /harian atur lagi.",
    },
    "daily.disabled_not_found": {
        "en": "⚠️ I stopped posting the daily question: its channel ({channel}) no longer exists. Run /daily setup with another channel.",
        "id": "⚠️ Soal harian berhenti dikirim: kanalnya ({channel}) sudah tidak ada. Jalankan /harian atur dengan kanal lain.",
    },
    "daily.is_off": {
        "en": "The daily question is off in this server. Turn it on with /daily setup.",
        "id": "Soal harian sedang dimatikan di server ini. Nyalakan dengan /harian atur.",
    },
    "daily.disabled_reactions_forbidden": {
        "en": "⚠️ I stopped the daily question: I may not add the answer reactions in {channel}. Give me Add Reactions and Read Message History there, then run /daily setup again.",
        "id": "⚠️ Soal harian saya hentikan: saya tidak boleh menambahkan reaksi jawaban di {channel}. Beri saya izin Tambah Reaksi dan Baca Riwayat Pesan di sana, lalu jalankan /harian atur lagi.",
    },
    "daily.disabled_other": {
        "en": "⚠️ I stopped posting the daily question in {channel} ({reason}). Run /daily setup again to restart it.",
        "id": "⚠️ Soal harian berhenti dikirim di {channel} ({reason}). Jalankan /harian atur lagi untuk memulainya kembali.",
    },
}
