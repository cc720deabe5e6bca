"""A loopback TCP proxy in front of the service that can cut the network: ``drop()`` resets
every open connection and refuses new ones, ``restore()`` listens again on the same port.
The browser sees what it would see on a real network drop: its event stream breaks and
its reconnection attempts fail until the network is back."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from types import TracebackType


class DroppableProxy:
    def __init__(self, target_url: str) -> None:
        host, _, port = target_url.removeprefix("http://").rstrip("/").partition(":")
        self.target = (host, int(port))
        self.port = 0
        self.url = ""
        self.connections = 0
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._accepting = threading.Event()

    def __enter__(self) -> DroppableProxy:
        self.restore()
        self.url = f"http://127.0.0.1:{self.port}"
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.drop()

    def restore(self) -> None:
        """Listen (again, on the same port) and forward new connections."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.settimeout(0.1)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._accepting.set()
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def drop(self) -> None:
        """Reset every open connection and stop listening: connections are refused."""
        self._accepting.clear()
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.close()
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                # linger 0: closing resets the connection, as a broken network path would
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # wakes the pump blocked in recv()
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while self._accepting.is_set() and listener is self._listener:
            try:
                client, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            client.settimeout(None)
            with self._lock:
                self._sockets.update((client, upstream))
                self.connections += 1
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while chunk := src.recv(65536):
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                with contextlib.suppress(OSError):
                    sock.close()
            with self._lock:
                self._sockets.discard(src)
                self._sockets.discard(dst)
