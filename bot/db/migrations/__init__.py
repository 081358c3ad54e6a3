"""Alembic migrations; run through `bot.storage.Database` (configured in code)."""
