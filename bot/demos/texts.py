"""Texts of generated questions (templates, issue 23): their errors and where an instance
came from, so that it can be printed again (`quiztutor generate NAME --seed S`)."""

MESSAGES: dict[str, dict[str, str]] = {
    "generate.unknown": {
        "en": "There is no question template '{name}'. Available: {available}.",
        "id": "Tidak ada templat soal '{name}'. Yang tersedia: {available}.",
    },
    "generate.seed_range": {
        "en": "The seed must be a whole number from {min} to {max} (you gave {value}).",
        "id": "Seed harus bilangan bulat dari {min} sampai {max} (Anda memberi {value}).",
    },
    "generate.origin": {
        "en": "generated: {template} #{seed}",
        "id": "soal buatan: {template} #{seed}",
    },
    "generate.again": {
        "en": "A generated question: `quiztutor generate {template} --seed {seed}` prints it again.",
        "id": "Soal buatan templat: `quiztutor generate {template} --seed {seed}` menampilkannya lagi.",
    },
}
