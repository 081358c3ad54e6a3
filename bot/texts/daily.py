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
    "daily.result": {
        "en": "{correct} of {answered} answered correctly.",
        "id": "{correct} dari {answered} menjawab dengan benar.",
    },
    "daily.records_name": {"en": "Records", "id": "Rekor"},
}
