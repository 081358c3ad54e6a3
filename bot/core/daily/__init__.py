"""The daily question's rules and types (Discord-free, database-free)."""
