"""Texts of the community's questions: suggestions, the review queue, reports, imports."""

MESSAGES: dict[str, dict[str, str]] = {
    # Imports (GIFT, Aiken, CSV).
    "import.description": {"en": "Imported from {file}.", "id": "Diimpor dari {file}."},
    "import.default_explanation": {
        "en": "The right answer is “{choice}”.",
        "id": "Jawaban yang benar adalah “{choice}”.",
    },
    "admin.imported": {
        "en": "✅ Imported **{title}** (`{quiz_id}`, {count} question(s)) from {format}. "
        "The other language holds a copy of the text, marked as not yet translated.",
        "id": "✅ **{title}** (`{quiz_id}`, {count} soal) diimpor dari {format}. "
        "Bahasa lainnya berisi salinan teks yang sama, ditandai belum diterjemahkan.",
    },
    "admin.skipped": {
        "en": "Skipped ({count}), not imported:\n```\n{problems}\n```",
        "id": "Dilewati ({count}), tidak diimpor:\n```\n{problems}\n```",
    },
    "admin.import_notes": {
        "en": "Imported with a change ({count}):\n```\n{problems}\n```",
        "id": "Diimpor dengan perubahan ({count}):\n```\n{problems}\n```",
    },
    "admin.import_notes_more": {
        "en": "{count} question(s) imported with a change (too many to list here).",
        "id": "{count} soal diimpor dengan perubahan (terlalu banyak untuk didaftar di sini).",
    },
    # The community quiz and the question embeds.
    "community.quiz_title": {"en": "Community questions", "id": "Soal komunitas"},
    "community.quiz_description": {
        "en": "Questions this server's members suggested and its admins approved.",
        "id": "Soal yang diusulkan anggota server ini dan disetujui adminnya.",
    },
    "community.full": {
        "en": "The community quiz holds {limit} questions already; it cannot take more.",
        "id": "Kuis komunitas sudah berisi {limit} soal; tidak bisa menampung lagi.",
    },
    "quiz.credit": {"en": "Suggested by {who}", "id": "Diusulkan oleh {who}"},
    "quiz.untranslated": {
        "en": "Not yet translated: shown as written.",
        "id": "Belum diterjemahkan: ditampilkan apa adanya.",
    },
    # /quiz suggest: the form.
    "suggest.title": {"en": "Suggest a question", "id": "Usulkan soal"},
    "suggest.edit_title": {"en": "Edit suggestion #{number}", "id": "Ubah usulan #{number}"},
    "suggest.f_prompt": {"en": "Question", "id": "Pertanyaan"},
    "suggest.f_choices": {"en": "Choices", "id": "Pilihan jawaban"},
    "suggest.f_choices_hint": {
        "en": "One per line, 2 to 6.",
        "id": "Satu per baris, 2 sampai 6.",
    },
    "suggest.f_answer": {"en": "Letter of the right choice", "id": "Huruf pilihan yang benar"},
    "suggest.f_answer_hint": {
        "en": "A for the first line, B for the second, ...",
        "id": "A untuk baris pertama, B untuk baris kedua, ...",
    },
    "suggest.f_explanation": {"en": "Explanation", "id": "Penjelasan"},
    "suggest.f_explanation_hint": {
        "en": "Why the right choice is right (shown after answering).",
        "id": "Mengapa pilihan itu benar (ditampilkan setelah menjawab).",
    },
    "suggest.f_language": {"en": "Language it is written in", "id": "Bahasa yang dipakai"},
    "suggest.f_language_hint": {
        "en": "id (Indonesian) or en (English).",
        "id": "id (Indonesia) atau en (Inggris).",
    },
    # /quiz suggest: problems (nothing is saved).
    "suggest.invalid": {
        "en": "Your suggestion was not saved:\n{problems}\nFix it and send it again with /quiz suggest.",
        "id": "Usulan Anda tidak disimpan:\n{problems}\nPerbaiki lalu kirim lagi dengan /kuis usul.",
    },
    "suggest.p_prompt_empty": {"en": "The question is empty.", "id": "Pertanyaannya kosong."},
    "suggest.p_prompt_long": {
        "en": "The question has {length} characters; at most {limit}.",
        "id": "Pertanyaannya {length} karakter; paling banyak {limit}.",
    },
    "suggest.p_choice_count": {
        "en": "There are {count} choices; write {low} to {high}, one per line.",
        "id": "Ada {count} pilihan; tulis {low} sampai {high}, satu per baris.",
    },
    "suggest.p_choice_long": {
        "en": "Choice {number} is longer than {limit} characters.",
        "id": "Pilihan {number} lebih dari {limit} karakter.",
    },
    "suggest.p_choice_duplicate": {
        "en": "Two choices are the same.",
        "id": "Ada dua pilihan yang sama.",
    },
    "suggest.p_answer": {
        "en": "The right choice must be one letter: {letters}.",
        "id": "Pilihan yang benar harus satu huruf: {letters}.",
    },
    "suggest.p_explanation_empty": {
        "en": "The explanation is empty.",
        "id": "Penjelasannya kosong.",
    },
    "suggest.p_explanation_long": {
        "en": "The explanation has {length} characters; at most {limit}.",
        "id": "Penjelasannya {length} karakter; paling banyak {limit}.",
    },
    "suggest.p_language": {
        "en": "The language must be id or en.",
        "id": "Bahasanya harus id atau en.",
    },
    # /quiz suggest: stored, or refused.
    "suggest.stored": {
        "en": "✅ Thank you! Suggestion #{number} is waiting for an admin's review. "
        "You will be told what they decide.",
        "id": "✅ Terima kasih! Usulan #{number} menunggu ditinjau admin. "
        "Anda akan diberi tahu keputusannya.",
    },
    "suggest.too_many_pending": {
        "en": "You have {limit} suggestions waiting for review already; wait until an admin decides.",
        "id": "Anda sudah punya {limit} usulan yang menunggu ditinjau; tunggu keputusan admin dulu.",
    },
    "suggest.queue_full": {
        "en": "This server's review queue is full; try again once admins have reviewed it.",
        "id": "Antrean tinjauan server ini penuh; coba lagi setelah admin meninjaunya.",
    },
    "suggest.duplicate": {
        "en": "The same question was suggested here already.",
        "id": "Pertanyaan yang sama sudah pernah diusulkan di sini.",
    },
    "suggest.known_question": {
        "en": "This server has this question already (`{question_id}`).",
        "id": "Server ini sudah punya pertanyaan ini (`{question_id}`).",
    },
    "suggest.gone": {
        "en": "This suggestion no longer exists in this server's queue.",
        "id": "Usulan ini tidak ada lagi di antrean server ini.",
    },
    "suggest.already_approved": {
        "en": "This suggestion was approved already, by {by} at {when}.",
        "id": "Usulan ini sudah disetujui oleh {by} pada {when}.",
    },
    "suggest.already_rejected": {
        "en": "This suggestion was rejected already, by {by} at {when}.",
        "id": "Usulan ini sudah ditolak oleh {by} pada {when}.",
    },
    "suggest.id_taken": {
        "en": "The id {question_id} belongs to another quiz; this suggestion cannot replace it.",
        "id": "Id {question_id} milik kuis lain; usulan ini tidak bisa menggantikannya.",
    },
    # /quizadmin suggestions: the review queue.
    "review.empty": {
        "en": "No suggestion is waiting for review.",
        "id": "Tidak ada usulan yang menunggu ditinjau.",
    },
    "review.title": {
        "en": "Suggestion #{number} ({pending} waiting)",
        "id": "Usulan #{number} ({pending} menunggu)",
    },
    "review.by": {
        "en": "By {author}, in {language}, {when}",
        "id": "Oleh {author}, dalam bahasa {language}, {when}",
    },
    "review.approve": {"en": "Approve", "id": "Setujui"},
    "review.edit": {"en": "Edit", "id": "Ubah"},
    "review.reject": {"en": "Reject", "id": "Tolak"},
    "review.skip": {"en": "Skip", "id": "Lewati"},
    "review.approved": {
        "en": "✅ #{number} approved: now `{question_id}` in the community quiz.",
        "id": "✅ #{number} disetujui: sekarang `{question_id}` di kuis komunitas.",
    },
    "review.rejected": {"en": "🗑️ #{number} rejected.", "id": "🗑️ #{number} ditolak."},
    "review.edited": {"en": "✏️ #{number} edited.", "id": "✏️ #{number} diubah."},
    "review.told_dm": {"en": "The author was told by DM.", "id": "Pengusul diberi tahu lewat DM."},
    "review.told_later": {
        "en": "The author does not accept DMs: they are told at their next command.",
        "id": "Pengusul tidak menerima DM: ia diberi tahu saat memakai perintah berikutnya.",
    },
    "review.reject_title": {"en": "Reject suggestion #{number}", "id": "Tolak usulan #{number}"},
    "review.reason": {"en": "Reason (optional)", "id": "Alasan (opsional)"},
    "review.reason_hint": {
        "en": "Sent to the author with the decision.",
        "id": "Dikirim ke pengusul bersama keputusannya.",
    },
    "review.recent": {"en": "Recently", "id": "Terakhir"},
    "review.action_approved": {"en": "approved", "id": "menyetujui"},
    "review.action_rejected": {"en": "rejected", "id": "menolak"},
    "review.action_edited": {"en": "edited", "id": "mengubah"},
    "review.action_hid": {"en": "hid", "id": "menyembunyikan"},
    "review.action_unhid": {"en": "showed again", "id": "menampilkan lagi"},
    # Notices to the author (DM, or with their next command).
    "notice.approved": {
        "en": "🎉 Your suggested question in {server} was approved and joined its community "
        "quiz: “{prompt}”",
        "id": "🎉 Soal usulan Anda di {server} disetujui dan masuk kuis komunitasnya: “{prompt}”",
    },
    "notice.rejected": {
        "en": "Your suggested question in {server} was not accepted: “{prompt}”",
        "id": "Soal usulan Anda di {server} tidak diterima: “{prompt}”",
    },
    "notice.rejected_reason": {
        "en": "Your suggested question in {server} was not accepted: “{prompt}”\nReason: {reason}",
        "id": "Soal usulan Anda di {server} tidak diterima: “{prompt}”\nAlasan: {reason}",
    },
    # The Report button and its form.
    "report.button": {"en": "Report", "id": "Laporkan"},
    "report.title": {"en": "Report this question", "id": "Laporkan soal ini"},
    "report.reason": {"en": "What is wrong?", "id": "Apa yang salah?"},
    "report.note": {"en": "Details (optional)", "id": "Rincian (opsional)"},
    "report.note_hint": {
        "en": "One line for the admins, at most 200 characters.",
        "id": "Satu baris untuk admin, paling banyak 200 karakter.",
    },
    "report.wrong_answer": {
        "en": "The marked answer is wrong",
        "id": "Jawaban yang ditandai salah",
    },
    "report.two_right": {"en": "Two answers are right", "id": "Ada dua jawaban yang benar"},
    "report.unclear": {"en": "The question is unclear", "id": "Pertanyaannya tidak jelas"},
    "report.typo": {
        "en": "A typo or a bad translation",
        "id": "Salah ketik atau terjemahan buruk",
    },
    "report.other": {"en": "Something else", "id": "Lainnya"},
    "report.thanks": {
        "en": "🚩 Thank you: this server's admins will see your report.",
        "id": "🚩 Terima kasih: admin server ini akan melihat laporan Anda.",
    },
    "report.already": {
        "en": "You reported this question already.",
        "id": "Anda sudah melaporkan soal ini.",
    },
    "report.unknown_question": {
        "en": "This question no longer exists here.",
        "id": "Soal ini sudah tidak ada di sini.",
    },
    "report.note_long": {
        "en": "The text is longer than {limit} characters.",
        "id": "Teksnya lebih dari {limit} karakter.",
    },
    "report.bad_reason": {"en": "Pick one of the reasons.", "id": "Pilih salah satu alasan."},
    # /quizadmin reports.
    "reports.title": {
        "en": "Reported questions (page {page}/{pages}, {total} question(s))",
        "id": "Soal yang dilaporkan (halaman {page}/{pages}, {total} soal)",
    },
    "reports.empty": {
        "en": "No question was reported in this server.",
        "id": "Belum ada soal yang dilaporkan di server ini.",
    },
    "reports.count": {"en": "{count} report(s)", "id": "{count} laporan"},
    "reports.last": {"en": "last {when}", "id": "terakhir {when}"},
    "reports.hidden": {"en": "🙈 hidden here", "id": "🙈 disembunyikan di sini"},
    "reports.gone": {"en": "(no longer in the bank)", "id": "(sudah tidak ada di bank soal)"},
    "reports.note": {"en": "Latest note", "id": "Catatan terakhir"},
    "reports.hide": {"en": "Hide {number}", "id": "Sembunyikan {number}"},
    "reports.unhide": {"en": "Show {number}", "id": "Tampilkan {number}"},
    "reports.hid": {
        "en": "🙈 `{question_id}` is hidden from this server until it changes (is fixed).",
        "id": "🙈 `{question_id}` disembunyikan dari server ini sampai diubah (diperbaiki).",
    },
    "reports.unhid": {
        "en": "👁️ `{question_id}` is shown in this server again.",
        "id": "👁️ `{question_id}` ditampilkan lagi di server ini.",
    },
    "modal.unknown": {
        "en": "This form is no longer understood; open it again.",
        "id": "Formulir ini tidak dikenali lagi; buka ulang.",
    },
}
