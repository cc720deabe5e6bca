"""the library: runs, page texts, sources, searchable items, tags, and the full-text
index of the dialect (SQLite FTS5, PostgreSQL tsvector + GIN)

Revision ID: 0001_library
Revises:
Create Date: 2026-11-28 01:30:00
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_library"
down_revision = None
branch_labels = None
depends_on = None

RUN_FK = (["owner", "run_id"], ["library_runs.owner", "library_runs.run_id"])


def upgrade() -> None:
    op.create_table(
        "library_runs",
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("recipe", sa.String(length=32), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("added_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("owner", "run_id"),
    )
    op.create_index("ix_library_runs_owner_finished", "library_runs", ["owner", "finished_at"])
    op.create_table(
        "library_texts",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("chars", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("sha256"),
    )
    op.create_table(
        "library_sources",
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("source_id", sa.String(length=64), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("domain", sa.String(length=255), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("text_sha256", sa.String(length=64), nullable=False),
        sa.Column("fetched_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(*RUN_FK, ondelete="CASCADE", name="fk_library_sources_run"),
        sa.PrimaryKeyConstraint("owner", "run_id", "source_id"),
    )
    op.create_index("ix_library_sources_owner_domain", "library_sources", ["owner", "domain"])
    op.create_index("ix_library_sources_text", "library_sources", ["text_sha256"])
    op.create_table(
        "library_items",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("item_id", sa.String(length=64), nullable=False),
        sa.Column("source_id", sa.String(length=64), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("claim", sa.Text(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(*RUN_FK, ondelete="CASCADE", name="fk_library_items_run"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner", "run_id", "kind", "item_id", name="uq_library_items"),
    )
    op.create_index("ix_library_items_owner_kind", "library_items", ["owner", "kind"])
    op.create_table(
        "library_tags",
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("run_id", sa.String(length=64), nullable=False),
        sa.Column("tag", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(*RUN_FK, ondelete="CASCADE", name="fk_library_tags_run"),
        sa.PrimaryKeyConstraint("owner", "run_id", "tag"),
    )
    op.create_index("ix_library_tags_owner_tag", "library_tags", ["owner", "tag"])
    if op.get_bind().dialect.name == "postgresql":
        _postgres_index()
    else:
        _sqlite_index()


def _postgres_index() -> None:
    # 'english' stems like the porter tokenizer on SQLite; the column follows the text
    op.execute(
        "ALTER TABLE library_items ADD COLUMN tsv tsvector "
        "GENERATED ALWAYS AS (to_tsvector('english', text)) STORED"
    )
    op.execute("CREATE INDEX ix_library_items_tsv ON library_items USING GIN (tsv)")


def _sqlite_index() -> None:
    # external content: the text is stored once, in library_items; triggers keep the
    # index in step with every insert, delete (a run removed) and update
    op.execute(
        "CREATE VIRTUAL TABLE library_fts USING fts5(text, content='library_items', "
        "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')"
    )
    op.execute(
        "CREATE TRIGGER library_items_ai AFTER INSERT ON library_items BEGIN "
        "INSERT INTO library_fts(rowid, text) VALUES (new.id, new.text); END"
    )
    op.execute(
        "CREATE TRIGGER library_items_ad AFTER DELETE ON library_items BEGIN "
        "INSERT INTO library_fts(library_fts, rowid, text) VALUES ('delete', old.id, old.text); "
        "END"
    )
    op.execute(
        "CREATE TRIGGER library_items_au AFTER UPDATE OF text ON library_items BEGIN "
        "INSERT INTO library_fts(library_fts, rowid, text) VALUES ('delete', old.id, old.text); "
        "INSERT INTO library_fts(rowid, text) VALUES (new.id, new.text); END"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        for trigger in ("library_items_ai", "library_items_ad", "library_items_au"):
            op.execute(f"DROP TRIGGER IF EXISTS {trigger}")
        op.execute("DROP TABLE IF EXISTS library_fts")
    for table in ("library_tags", "library_items", "library_sources", "library_texts"):
        op.drop_table(table)
    op.drop_table("library_runs")
