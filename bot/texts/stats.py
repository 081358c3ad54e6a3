"""Texts of /streak and /leaderboard."""

MESSAGES: dict[str, dict[str, str]] = {
    "leaderboard.bad_order": {
        "en": "Can't rank by '{value}'; use one of {allowed}.",
        "id": "Tidak bisa mengurutkan menurut '{value}'; gunakan salah satu dari {allowed}.",
    },
    "leaderboard.bad_page": {"en": "Page {page} doesn't exist.", "id": "Halaman {page} tidak ada."},
}
