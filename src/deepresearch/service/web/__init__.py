"""The web page served at ``/``: plain HTML, CSS and ES modules from this folder (no build
step, nothing fetched from the internet, no secrets in the page). It talks to the same
``/v1`` API as any client; docs/service.md, "Web page"."""

from __future__ import annotations

import os
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

WEB_DIR = Path(__file__).resolve().parent
ASSET_SUFFIXES = frozenset({".js", ".css", ".svg"})

# the page loads only its own scripts, styles and images, talks only to this service,
# and cannot be framed; links to sources open with rel="noopener noreferrer"
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    # revalidated on every load (ETag), so an upgraded service serves its new page at once
    "Cache-Control": "no-cache",
}


class _Assets(StaticFiles):
    """This folder's scripts, styles and images, and nothing else in it."""

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if Path(path).suffix not in ASSET_SUFFIXES or "__pycache__" in path:
            return "", None
        return super().lookup_path(path)

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(HEADERS)
        return response


def mount(app: FastAPI) -> None:
    """Serve the page at ``/`` and its assets under ``/web/``."""

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(
            WEB_DIR / "index.html", media_type="text/html; charset=utf-8", headers=HEADERS
        )

    app.mount("/web", _Assets(directory=WEB_DIR), name="web")
