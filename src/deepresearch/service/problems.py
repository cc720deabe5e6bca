"""Every error the API returns is RFC 9457 problem details (``application/problem+json``)
with a short, safe ``detail``: never a stack trace, an internal address or a secret."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger(__name__)

TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    410: "Gone",
    413: "Request too large",
    422: "Unprocessable request",
    429: "Too many requests",
    431: "Request header fields too large",
    500: "Internal error",
    503: "Unavailable",
}


class ApiProblem(Exception):
    def __init__(
        self,
        status: int,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        kind: str = "",
        hint: str = "",
        errors: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.headers = headers or {}
        self.kind = kind
        self.hint = hint
        self.errors = errors


class BodyProblem(StarletteHTTPException):
    """A problem found while a request body is read (too large, keys repeated): an
    HTTPException, so FastAPI lets it through its body parsing to the problem handler (any
    other error there becomes "400 error parsing the body")."""

    def __init__(self, status: int, detail: str, *, kind: str) -> None:
        super().__init__(status, detail)
        self.kind = kind


#: on every response the service sends unless it sets its own (the web page, the HTML
#: report): nothing it returns is run, framed, or sniffed into another type
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


def too_large(max_bytes: int) -> str:
    return (
        f"the request body is larger than the service accepts ({max_bytes} bytes); "
        "send a smaller one (the limit is the server's max_request_bytes setting)"
    )


#: the longest request head (request line and headers) the service reads; a longer one
#: is refused with 431 (``middleware.HeaderCap`` when it arrived whole, ``http11`` when it
#: is still arriving)
MAX_HEAD_BYTES = 64 * 1024


def head_too_large(max_bytes: int = MAX_HEAD_BYTES) -> str:
    return (
        f"the request's headers are larger than the service reads ({max_bytes} bytes with "
        "the request line); send smaller ones"
    )


def problem_body(
    status: int,
    detail: str,
    *,
    instance: str | None = None,
    kind: str = "",
    errors: list[dict[str, Any]] | None = None,
    hint: str = "",
) -> dict[str, Any]:
    """The RFC 9457 document itself, for a response made here or below the app."""
    body: dict[str, Any] = {
        "type": f"/problems/{kind}" if kind else "about:blank",
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    if instance is not None:
        body["instance"] = instance
    if hint:
        body["hint"] = hint
    if errors is not None:
        body["errors"] = errors
    return body


def problem_document(
    status: int,
    detail: str,
    *,
    instance: str,
    headers: dict[str, str] | None = None,
    kind: str = "",
    errors: list[dict[str, Any]] | None = None,
    hint: str = "",
) -> JSONResponse:
    body = problem_body(status, detail, instance=instance, kind=kind, errors=errors, hint=hint)
    sent = {**SECURITY_HEADERS, **(headers or {})}
    if status == 413:  # the rest of the body is not wanted: stop receiving it
        sent["connection"] = "close"
    return JSONResponse(
        body, status_code=status, headers=sent, media_type="application/problem+json"
    )


def problem_response(
    request: Request,
    status: int,
    detail: str,
    *,
    headers: dict[str, str] | None = None,
    kind: str = "",
    errors: list[dict[str, Any]] | None = None,
    hint: str = "",
) -> JSONResponse:
    return problem_document(
        status,
        detail,
        instance=request.url.path,
        headers=headers,
        kind=kind,
        errors=errors,
        hint=hint,
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiProblem)
    async def _problem(request: Request, exc: ApiProblem) -> JSONResponse:
        return problem_response(
            request,
            exc.status,
            exc.detail,
            headers=exc.headers,
            kind=exc.kind,
            hint=exc.hint,
            errors=exc.errors,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else TITLES.get(exc.status_code, "")
        kind = exc.kind if isinstance(exc, BodyProblem) else ""
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"no such endpoint: {request.method} {request.url.path}"
        if exc.status_code == 413:  # middleware.BodyCap, counting a body as it is read
            state = getattr(request.app.state, "service", None)
            detail = too_large(state.service.max_request_bytes) if state else detail
            kind = "too-large"
        return problem_response(
            request, exc.status_code, detail, headers=dict(exc.headers or {}), kind=kind
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {
                "where": ".".join(str(part) for part in error.get("loc", ())),
                "problem": str(error.get("msg", "")).removeprefix("Value error, "),
            }
            for error in exc.errors()
        ]
        detail = "; ".join(f"{e['where']}: {e['problem']}" for e in errors[:5])
        return problem_response(
            request,
            422,
            detail or "the request is not valid",
            kind="invalid-request",
            errors=errors,
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return problem_response(
            request, 500, "the server failed to handle this request; it was logged"
        )
