"""Undo ``Content-Encoding`` under a decoded-bytes cap: gzip, deflate, br, stacked.

Every stage is asked for at most a little more than the room left under the cap from
each input chunk, so a compression bomb (gzip, br, or stacked codings such as
``gzip, gzip`` or ``gzip, br``) cannot balloon memory: ``overflow`` turns True as soon as
the output would pass the cap, and the caller stops reading. Unknown codings (``zstd``,
``compress`` ...) are refused: we never advertise them.
"""

from __future__ import annotations

import zlib
from typing import Protocol, cast

import brotli  # type: ignore[import-untyped]

from deepresearch.errors import FetchError

#: what the fetcher advertises in ``Accept-Encoding``
ACCEPT_ENCODING = "gzip, deflate, br"
MAX_CODINGS = 4  # more stacked codings than this are refused
_CORRUPT = "the page's compressed body is corrupt"
_UNSUPPORTED = "the page uses an unsupported content encoding"


class _Stage(Protocol):
    #: True when the stage holds output it could not return under ``max_length``
    pending: bool

    def decompress(self, data: bytes, max_length: int) -> bytes: ...

    def flush(self) -> bytes: ...


class BodyDecoder:
    """Decode one response body chunk by chunk; see the module docstring."""

    def __init__(self, content_encoding: str) -> None:
        codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
        codings = [c for c in codings if c != "identity"]
        if len(codings) > MAX_CODINGS:
            raise FetchError(_UNSUPPORTED)
        # the last coding applied is undone first
        self._stages = [_stage(coding) for coding in reversed(codings)]
        self.overflow = False

    def feed(self, data: bytes, room: int) -> bytes:
        """Decode one raw chunk; ``room`` is how many more decoded bytes are allowed."""
        return self._run(data, max(room, 0), final=False)

    def flush(self, room: int) -> bytes:
        """Decode what the stages still hold at the end of the body."""
        return self._run(b"", max(room, 0), final=True)

    def _run(self, data: bytes, room: int, *, final: bool) -> bytes:
        try:
            for index, stage in enumerate(self._stages):
                # an inner (still compressed) stream can be slightly larger than its output
                last = index == len(self._stages) - 1
                cap = room + 1 if last else room + 1 + 65_536 + room // 100
                out = stage.decompress(data, cap) if data else b""
                if final:
                    out += stage.flush()
                if stage.pending or len(out) > cap:
                    self.overflow = True
                    return b""
                data = out
        except (zlib.error, brotli.error):
            raise FetchError(_CORRUPT) from None
        return data


def _stage(coding: str) -> _Stage:
    if coding in ("gzip", "x-gzip"):
        return _Zlib(zlib.decompressobj(16 + zlib.MAX_WBITS))
    if coding == "deflate":
        return _Deflate()
    if coding == "br":
        return _Brotli()
    raise FetchError(_UNSUPPORTED)


class _Zlib:
    def __init__(self, inner: zlib._Decompress) -> None:
        self._inner = inner
        self.pending = False

    def decompress(self, data: bytes, max_length: int) -> bytes:
        out = self._inner.decompress(data, max_length)
        self.pending = bool(self._inner.unconsumed_tail)
        return out

    def flush(self) -> bytes:
        return self._inner.flush()


class _Deflate(_Zlib):
    """``deflate`` is zlib-wrapped by the spec but raw in many servers: try both."""

    def __init__(self) -> None:
        super().__init__(zlib.decompressobj())
        self._started = False

    def decompress(self, data: bytes, max_length: int) -> bytes:
        if not self._started and data:
            self._started = True
            try:
                return super().decompress(data, max_length)
            except zlib.error:
                self._inner = zlib.decompressobj(-zlib.MAX_WBITS)
        return super().decompress(data, max_length)


class _Brotli:
    """brotli >= 1.2: ``output_buffer_limit`` bounds the output of one call."""

    def __init__(self) -> None:
        self._inner = brotli.Decompressor()
        self.pending = False

    def decompress(self, data: bytes, max_length: int) -> bytes:
        out = cast(bytes, self._inner.process(data, output_buffer_limit=max_length))
        self.pending = not self._inner.can_accept_more_data()
        return out

    def flush(self) -> bytes:
        return b""
