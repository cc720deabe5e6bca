"""A throwaway PostgreSQL server on loopback for the service tests: ``initdb`` into a
temporary folder, ``pg_ctl start`` on a free port, one fresh database per test.

Uses ``DEEPRESEARCH_TEST_POSTGRES_URL`` (an admin URL to an existing server) when set.
PostgreSQL refuses to run as root, so as root the server runs as the ``postgres`` user."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg


def _binaries() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


ADMIN_URL = os.environ.get("DEEPRESEARCH_TEST_POSTGRES_URL", "")


class PostgresServer:
    def __init__(self) -> None:
        # a folder of its own: the server user must reach it, and pytest's are private
        self.root = Path(tempfile.mkdtemp(prefix="deepresearch-pg-"))
        self.root.chmod(0o755)
        self.admin_url = ADMIN_URL
        self._started = False

    @staticmethod
    def available() -> str | None:
        """None when a server can be had, else why not."""
        if ADMIN_URL:
            return None
        if _binaries() is None:
            return "PostgreSQL is not installed (pg_ctl not found)"
        if os.geteuid() == 0 and shutil.which("runuser") is None:
            return "running as root without runuser"
        return None

    def _as_server_user(self, *args: str) -> list[str]:
        return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else list(args)

    def start(self) -> None:
        if self.admin_url:
            return
        bin_dir = _binaries()
        assert bin_dir is not None
        data = self.root / "pgdata"
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres")
            self.root.chmod(0o755)
        subprocess.run(
            self._as_server_user(
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "--no-sync",
                "-E",
                "UTF8",
            ),
            check=True,
            capture_output=True,
        )
        # the port is free when probed, not necessarily when the server binds it: another
        # worker of the same run (or another suite) may take it first, so try a new one
        for attempt in range(3):
            port = _free_port()
            started = self._pg_ctl_start(bin_dir, data, port)
            if started.returncode == 0:
                break
            if attempt == 2:
                started.check_returncode()
        self._started = True
        self.bin_dir = bin_dir
        self.data = data
        self.admin_url = f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def _pg_ctl_start(
        self, bin_dir: Path, data: Path, port: int
    ) -> subprocess.CompletedProcess[bytes]:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={self.root}"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c max_connections=200"
        )
        return subprocess.run(
            self._as_server_user(
                str(bin_dir / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "-l",
                str(self.root / "server.log"),
                "start",
            ),
            check=False,
            capture_output=True,
        )

    def new_database(self) -> str:
        """A fresh, empty database; its SQLAlchemy URL."""
        name = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        base = self.admin_url.rsplit("/", 1)[0]
        return base.replace("postgresql://", "postgresql+psycopg://", 1) + f"/{name}"

    def stop(self) -> None:
        if self._started:
            subprocess.run(
                self._as_server_user(
                    str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"
                ),
                check=False,
                capture_output=True,
            )
        shutil.rmtree(self.root, ignore_errors=True)
