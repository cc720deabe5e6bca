"""API keys: added with only their hash stored, listed, revoked, and looked up by token."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, func, insert, select, update

from deepresearch.service import tables as t
from deepresearch.service.store.base import StoreBase, aware, utcnow


@dataclass(frozen=True)
class ApiKey:
    id: str
    name: str
    prefix: str
    max_active_runs: int
    created_at: datetime
    revoked_at: datetime | None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class KeyQueries(StoreBase):
    def add_key(self, key_id: str, name: str, token: str, max_active_runs: int) -> ApiKey:
        now = self.clock()
        with self._write() as conn:
            conn.execute(
                insert(t.api_keys).values(
                    id=key_id,
                    name=name,
                    key_hash=hash_token(token),
                    prefix=token[:12],
                    max_active_runs=max_active_runs,
                    created_at=now,
                )
            )
        return ApiKey(key_id, name, token[:12], max_active_runs, now, None)

    def list_keys(self) -> list[ApiKey]:
        with self._read() as conn:
            rows = conn.execute(select(t.api_keys).order_by(t.api_keys.c.created_at)).all()
        return [_key(row) for row in rows]

    def revoke_key(self, key_id: str) -> bool:
        with self._write() as conn:
            result = conn.execute(
                update(t.api_keys)
                .where(t.api_keys.c.id == key_id, t.api_keys.c.revoked_at.is_(None))
                .values(revoked_at=self.clock())
            )
        return bool(result.rowcount)

    def key_for_token(self, token: str) -> ApiKey | None:
        with self._read() as conn:
            row = conn.execute(
                select(t.api_keys).where(
                    t.api_keys.c.key_hash == hash_token(token), t.api_keys.c.revoked_at.is_(None)
                )
            ).first()
        return _key(row) if row else None

    def has_keys(self) -> bool:
        with self._read() as conn:
            count = conn.execute(
                select(func.count())
                .select_from(t.api_keys)
                .where(t.api_keys.c.revoked_at.is_(None))
            ).scalar_one()
        return bool(count)


def _key(row: Row[Any]) -> ApiKey:
    m = row._mapping
    return ApiKey(
        id=m["id"],
        name=m["name"],
        prefix=m["prefix"],
        max_active_runs=int(m["max_active_runs"]),
        created_at=aware(m["created_at"]) or utcnow(),
        revoked_at=aware(m["revoked_at"]),
    )
