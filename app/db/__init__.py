"""Database models, sessions and migrations."""
