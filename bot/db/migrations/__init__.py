"""Alembic migrations; run through `bot.db.database.Database` (configured in code)."""
