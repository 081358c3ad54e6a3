"""More texts of the terminal tutor (`quiztutor play`): the end of a run and its recap."""

MESSAGES: dict[str, dict[str, str]] = {
    "tutor.why": {"en": "Why: {text}", "id": "Alasannya: {text}"},
    "tutor.answered_of": {
        "en": "{answered} of {count} question(s) answered; the score counts those only.",
        "id": "{answered} dari {count} soal dijawab; skor hanya menghitung yang dijawab.",
    },
    "tutor.stopped": {
        "en": "Stopped. Score so far: {score}/{answered} ({percent}%), {count} question(s) in the quiz.",
        "id": "Dihentikan. Skor sejauh ini: {score}/{answered} ({percent}%), {count} soal dalam kuis.",
    },
    "tutor.time": {"en": "Time: {time}", "id": "Waktu: {time}"},
    "tutor.review": {
        "en": "To review ({count}):",
        "id": "Untuk diulang ({count}):",
    },
    "tutor.review_item": {
        "en": "Q{number}: {prompt} — the answer: {choice}",
        "id": "S{number}: {prompt} — jawabannya: {choice}",
    },
    "tutor.all_right": {
        "en": "Nothing to review: every answer was right.",
        "id": "Tidak ada yang perlu diulang: semua jawaban tepat.",
    },
}
