"""Request bodies read as JSON by one more rule than the standard library's: each key of
an object at most once. ``json.loads`` keeps the last of repeated keys, so
``{"question": "a", "question": "b"}`` would run "b" while a proxy, a log or another
parser saw "a"; such a body is refused (400, ``duplicate-key``), saying which key.

``JsonRoute`` is the API router's route class (FastAPI's way to change how a route reads
its request): its requests parse JSON with :func:`refuse_duplicates`."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from deepresearch.service.problems import BodyProblem


def refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``' ``object_pairs_hook``: the object, or a 400 naming a repeated key."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise BodyProblem(
                400,
                f"the JSON body gives the key {key!r} more than once; give each key once",
                kind="duplicate-key",
            )
        found[key] = value
    return found


class JsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = json.loads(await self.body(), object_pairs_hook=refuse_duplicates)
        return self._json


class JsonRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(JsonRequest(request.scope, request.receive))

        return strict
