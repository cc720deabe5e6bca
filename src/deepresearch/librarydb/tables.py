"""The library's schema (SQLAlchemy Core). The Alembic migrations in ``migrations/``
create it; a test compares the two. The full-text index is per dialect and lives in the
migrations only: on SQLite an FTS5 table over ``library_items.text`` (external content,
kept in step by triggers), on PostgreSQL a generated ``tsvector`` column with a GIN index.

Every row names its ``owner`` (an API key's id in the service, ``local`` for the command
line and the Python library), and every query names it too: one owner never reads
another's rows. A page's text is stored once (``library_texts``, by its SHA-256) however
many runs quoted it."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Column,
    DateTime,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

#: the library's Alembic history, apart from the service's (``alembic_version``)
VERSION_TABLE = "library_alembic_version"
#: the SQLite FTS5 table (and the prefix of its shadow tables)
FTS_TABLE = "library_fts"
#: the PostgreSQL text-search configuration (SQLite's tokenizer stems with porter too)
PG_CONFIG = "english"

metadata = MetaData()

library_runs = Table(
    "library_runs",
    metadata,
    Column("owner", String(64), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("recipe", String(32), nullable=False),
    Column("question", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("kind", String(32), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("added_at", DateTime(timezone=True), nullable=False),
    #: a collection of imported documents (``library import``) is a row here too, with
    #: its name; None for a run
    Column("collection", String(64)),
    Index("ix_library_runs_owner_finished", "owner", "finished_at"),
    Index("ix_library_runs_owner_collection", "owner", "collection", unique=True),
)

library_texts = Table(
    "library_texts",
    metadata,
    Column("sha256", String(64), primary_key=True),
    Column("text", Text, nullable=False),
    Column("chars", Integer, nullable=False),
)

_RUN_FK = (["owner", "run_id"], ["library_runs.owner", "library_runs.run_id"])

library_sources = Table(
    "library_sources",
    metadata,
    Column("owner", String(64), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("source_id", String(64), primary_key=True),
    Column("url", Text, nullable=False),
    Column("title", Text, nullable=False),
    Column("domain", String(255), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("text_sha256", String(64), nullable=False),
    Column("fetched_at", DateTime(timezone=True)),
    ForeignKeyConstraint(*_RUN_FK, ondelete="CASCADE", name="fk_library_sources_run"),
    Index("ix_library_sources_owner_domain", "owner", "domain"),
    Index("ix_library_sources_text", "text_sha256"),
)

#: what search finds: a run's report, its verified quotes and its claims, one row each
library_items = Table(
    "library_items",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("owner", String(64), nullable=False),
    Column("run_id", String(64), nullable=False),
    Column("kind", String(8), nullable=False),  # models.library.ItemKind
    Column("item_id", String(64), nullable=False),
    Column("source_id", String(64)),
    Column("text", Text, nullable=False),
    Column("claim", Text, nullable=False),
    Column("confidence", Float),
    Column("detail", JSON, nullable=False),
    ForeignKeyConstraint(*_RUN_FK, ondelete="CASCADE", name="fk_library_items_run"),
    UniqueConstraint("owner", "run_id", "kind", "item_id", name="uq_library_items"),
    Index("ix_library_items_owner_kind", "owner", "kind"),
)

#: an item's embedding (hybrid search, ``librarydb/vectors.py``): float32 bytes of the
#: ``[embeddings]`` extra's model. Rows are written once and never updated, and their
#: ``id`` is never reused (SQLite ``AUTOINCREMENT``, a PostgreSQL sequence), so the count
#: and the largest id of an owner's rows tell a cached matrix whether it is current.
library_vectors = Table(
    "library_vectors",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("item", Integer, nullable=False),
    Column("owner", String(64), nullable=False),
    Column("run_id", String(64), nullable=False),
    Column("vector", LargeBinary, nullable=False),
    ForeignKeyConstraint(
        ["item"], ["library_items.id"], ondelete="CASCADE", name="fk_library_vectors_item"
    ),
    UniqueConstraint("item", name="uq_library_vectors_item"),
    Index("ix_library_vectors_owner_id", "owner", "id"),
    Index("ix_library_vectors_owner_run", "owner", "run_id"),
    sqlite_autoincrement=True,
)

library_tags = Table(
    "library_tags",
    metadata,
    Column("owner", String(64), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("tag", String(64), primary_key=True),
    ForeignKeyConstraint(*_RUN_FK, ondelete="CASCADE", name="fk_library_tags_run"),
    Index("ix_library_tags_owner_tag", "owner", "tag"),
)
