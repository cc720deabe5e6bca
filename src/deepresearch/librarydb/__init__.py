"""The library's database (issue 25): every finished run's report, the pages it quoted
(their text stored once), its verified quotes and claims, and tags, per owner, with a
full-text index (SQLite FTS5, PostgreSQL tsvector + GIN). ``tables.py`` the schema,
``migrations/`` its Alembic history, ``engine.py`` where it lives, ``store.py`` adding,
showing, removing and tagging runs, ``search.py`` the search."""
