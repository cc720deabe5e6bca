"""Who is calling. With API keys configured every request needs one (``Authorization:
Bearer dr_...`` or ``X-API-Key``); without any, the server is loopback-only and every
caller is the one local user."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import Request

from deepresearch.models.library import LOCAL_OWNER
from deepresearch.service.problems import ApiProblem
from deepresearch.service.state import ServiceState

__all__ = ["LOCAL_OWNER", "Caller", "caller"]


@dataclass(frozen=True)
class Caller:
    owner: str
    max_active_runs: int


def _token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.headers.get("x-api-key") or None


async def caller(request: Request) -> Caller:
    state: ServiceState = request.app.state.service
    token = _token(request)
    if token is None:
        if await state.keys_required():
            raise ApiProblem(
                401,
                "an API key is required: send 'Authorization: Bearer <key>'",
                headers={"WWW-Authenticate": "Bearer"},
                kind="unauthorized",
            )
        return Caller(LOCAL_OWNER, state.service.active_runs_per_key)
    key = await state.key_for(token)
    if key is None:
        raise ApiProblem(
            401,
            "this API key is not valid (unknown or revoked)",
            headers={"WWW-Authenticate": 'Bearer error="invalid_token"'},
            kind="unauthorized",
        )
    return Caller(key.id, key.max_active_runs)
