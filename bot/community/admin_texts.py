"""Texts of /quizadmin (server quizzes uploaded by admins)."""

MESSAGES: dict[str, dict[str, str]] = {
    "admin.upload_busy": {
        "en": "An upload of this server is being read; try again when it is done.",
        "id": "Unggahan server ini sedang dibaca; coba lagi setelah selesai.",
    },
    "admin.upload_cooldown": {
        "en": "This server just uploaded a quiz; try again in {seconds} s.",
        "id": "Server ini baru saja mengunggah kuis; coba lagi dalam {seconds} detik.",
    },
    "admin.file_too_large": {
        "en": "The file is larger than {limit_kib} KiB.",
        "id": "Berkas lebih besar dari {limit_kib} KiB.",
    },
    "admin.import_too_large": {
        "en": "Imported, this file becomes a quiz file of {size_kib} KiB; a server's quiz holds at most {limit_kib} KiB. Split it into smaller files.",
        "id": "Setelah diimpor, berkas ini menjadi berkas kuis {size_kib} KiB; kuis server paling besar {limit_kib} KiB. Pecah menjadi beberapa berkas yang lebih kecil.",
    },
    "admin.quota_full": {
        "en": "This server's quizzes may take {limit_kib} KiB in all: {used_kib} KiB are used, and this quiz needs {size_kib} KiB. Remove a quiz with /quizadmin remove, or upload a smaller one.",
        "id": "Kuis server ini paling banyak {limit_kib} KiB seluruhnya: {used_kib} KiB sudah terpakai, dan kuis ini perlu {size_kib} KiB. Hapus kuis dengan /adminkuis hapus, atau unggah yang lebih kecil.",
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
    "admin.id_taken_elsewhere": {
        "en": "{count} id(s) of this quiz are used by another server's quiz. Choose other ids.",
        "id": "{count} id kuis ini dipakai kuis server lain. Pilih id lain.",
    },
    "admin.id_taken_some": {
        "en": "These ids are already used by another quiz: {ids}; and {count} more by another "
        "server's quiz. Choose other ids.",
        "id": "Id berikut sudah dipakai kuis lain: {ids}; dan {count} lagi oleh kuis server "
        "lain. Pilih id lain.",
    },
    "admin.too_many": {
        "en": "A server can have at most {limit} quizzes of its own.",
        "id": "Satu server paling banyak punya {limit} kuis sendiri.",
    },
    "admin.no_such_quiz": {
        "en": "This server has no quiz '{quiz_id}'.",
        "id": "Server ini tidak punya kuis '{quiz_id}'.",
    },
    "admin.download_failed": {
        "en": "Couldn't download the file from Discord; please try again.",
        "id": "Berkas tidak bisa diunduh dari Discord; silakan coba lagi.",
    },
    "admin.added": {
        "en": "✅ Added quiz **{title}** (`{quiz_id}`, {count} question(s)). Members of this server can take it now: /quiz start topic:{quiz_id}",
        "id": "✅ Kuis **{title}** (`{quiz_id}`, {count} soal) ditambahkan. Anggota server ini bisa langsung mengikutinya: /kuis mulai topik:{quiz_id}",
    },
    "admin.replaced": {
        "en": "✅ Replaced quiz **{title}** (`{quiz_id}`, {count} question(s)).",
        "id": "✅ Kuis **{title}** (`{quiz_id}`, {count} soal) diganti.",
    },
    "admin.removed": {
        "en": "🗑️ Removed this server's quiz `{quiz_id}`.",
        "id": "🗑️ Kuis server ini `{quiz_id}` dihapus.",
    },
    "admin.list_title": {"en": "Quizzes", "id": "Daftar kuis"},
    "admin.list_shipped": {"en": "Built in", "id": "Bawaan"},
    "admin.list_server": {
        "en": "This server's ({count}/{limit})",
        "id": "Milik server ini ({count}/{limit})",
    },
    "admin.list_none": {
        "en": "None yet: add one with /quizadmin add.",
        "id": "Belum ada: tambahkan dengan /adminkuis tambah.",
    },
    "admin.list_line": {
        "en": "`{quiz_id}` — {title} ({count} question(s))",
        "id": "`{quiz_id}` — {title} ({count} soal)",
    },
    "admin.list_broken": {
        "en": "`{quiz_id}` — ⚠️ no longer valid, not offered (remove it or upload it again)",
        "id": "`{quiz_id}` — ⚠️ tidak valid lagi, tidak ditawarkan (hapus atau unggah ulang)",
    },
    "admin.quiz_is_daily_topic": {
        "en": "'{quiz_id}' is this server's daily question topic. Change it with /daily setup first, then remove the quiz.",
        "id": "'{quiz_id}' adalah topik soal harian server ini. Ganti dulu dengan /harian atur, lalu hapus kuisnya.",
    },
}
