"""The library's Alembic migrations (their own history, in ``library_alembic_version``)."""
