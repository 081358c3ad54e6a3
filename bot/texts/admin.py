"""Texts of /quizadmin (server quizzes uploaded by admins)."""

MESSAGES: dict[str, dict[str, str]] = {
    "admin.file_too_large": {
        "en": "The file is larger than {limit_kib} KiB.",
        "id": "Berkas lebih besar dari {limit_kib} KiB.",
    },
    "admin.not_utf8": {
        "en": "The file is not UTF-8 text.",
        "id": "Berkas bukan teks UTF-8.",
    },
    "admin.invalid_quiz": {
        "en": "The quiz file has problems; nothing was changed:\n```\n{problems}\n```",
        "id": "Berkas kuis bermasalah; tidak ada yang diubah:\n```\n{problems}\n```",
    },
    "admin.id_taken": {
        "en": "These ids are already used by another quiz: {ids}. Choose other ids.",
        "id": "Id berikut sudah dipakai kuis lain: {ids}. Pilih id lain.",
    },
    "admin.too_many": {
        "en": "A server can have at most {limit} quizzes of its own.",
        "id": "Satu server paling banyak punya {limit} kuis sendiri.",
    },
    "admin.no_such_quiz": {
        "en": "This server has no quiz '{quiz_id}'.",
        "id": "Server ini tidak punya kuis '{quiz_id}'.",
    },
}
