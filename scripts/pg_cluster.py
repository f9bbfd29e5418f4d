"""A throw-away PostgreSQL cluster on 127.0.0.1, for the tests and the scale bench.

Runs the server of the Debian ``postgresql`` package (``apt-get install postgresql``; any
``initdb``/``pg_ctl`` on PATH or under /usr/lib/postgresql/*/bin does) from a temporary
folder on a free port, with ``trust`` authentication for loopback connections only. The
server refuses to run as root: under root the cluster runs as the ``postgres`` user
(which the package creates) through ``runuser``.

    python scripts/pg_cluster.py          # start one, print its URL, stop it on Ctrl-C

From Python::

    with TempCluster() as cluster:
        url = cluster.create_database("edgeloop")
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType


class ClusterUnavailable(RuntimeError):
    """No PostgreSQL server can be run here (the reason is the message)."""


def find_bin_dir() -> Path:
    """The folder of ``initdb`` and ``pg_ctl``; ClusterUnavailable if there is none."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "pg_ctl").exists() and (Path(candidate) / "initdb").exists():
            return Path(candidate)
    found = shutil.which("pg_ctl")
    if found and (Path(found).resolve().parent / "initdb").exists():
        return Path(found).resolve().parent
    raise ClusterUnavailable(
        "PostgreSQL is not installed (Debian: apt-get install postgresql; .ci/run does it)"
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class TempCluster:
    """initdb + pg_ctl start in a temporary folder; ``stop`` removes everything.

    Args:
        durable: keep PostgreSQL's default fsync; off (the default) is fine for tests,
            which never kill the database itself.
    """

    def __init__(self, *, durable: bool = False) -> None:
        self.bin = find_bin_dir()
        self.durable = durable
        self.port = 0
        self.root = Path(tempfile.mkdtemp(prefix="edgeloop-pg-"))
        self.data = self.root / "data"
        self._run_as: list[str] = []
        if os.geteuid() == 0:
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                shutil.rmtree(self.root, ignore_errors=True)
                raise ClusterUnavailable(
                    "running as root and there is no 'postgres' user to run the server as"
                ) from None
            runuser = shutil.which("runuser")
            if runuser is None:
                shutil.rmtree(self.root, ignore_errors=True)
                raise ClusterUnavailable("running as root and runuser is missing")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self._run_as = [runuser, "-u", "postgres", "--"]
        self._started = False
        self._reaper: subprocess.Popen[bytes] | None = None

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self._run_as, *args], capture_output=True, text=True, check=False, cwd=self.root
        )

    def start(self) -> TempCluster:
        """Create the cluster and start the server (a few seconds)."""
        init = self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "edgeloop",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        if init.returncode != 0:
            self.stop()
            raise ClusterUnavailable(f"initdb failed: {init.stderr.strip()[-500:]}")
        options = [
            "-c listen_addresses=127.0.0.1",
            f"-c unix_socket_directories={self.root}",
            "-c max_connections=200",
            "-c shared_buffers=64MB",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]
        for _attempt in range(5):
            self.port = _free_port()
            started = self._run(
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.root / "server.log"),
                "-w",
                "-t",
                "30",
                "-o",
                " ".join([f"-p {self.port}", *options]),
                "start",
            )
            if started.returncode == 0:
                self._started = True
                self._reap_when_gone(os.getpid())
                return self
        log = (self.root / "server.log").read_text(errors="replace")[-800:]
        self.stop()
        raise ClusterUnavailable(f"pg_ctl start failed: {started.stderr.strip()} {log}")

    def _reap_when_gone(self, owner: int) -> None:
        """Stop the server and remove its folder once ``owner`` exits, even if killed
        (a test run cut short must not leave a server behind on a shared machine)."""
        stop = " ".join(
            shlex.quote(part)
            for part in [*self._run_as, str(self.bin / "pg_ctl"), "-D", str(self.data)]
        )
        script = (
            f"while kill -0 {owner} 2>/dev/null; do sleep 2; done; "
            f"{stop} -m immediate stop >/dev/null 2>&1; rm -rf {shlex.quote(str(self.root))}"
        )
        self._reaper = subprocess.Popen(
            ["sh", "-c", script],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def url(self, database: str = "postgres") -> str:
        """The connection URL of one of the cluster's databases."""
        return f"postgresql://edgeloop@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create a database (dropping one of that name first) and return its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        """Stop the server at once and remove its folder."""
        if self._started:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
            self._started = False
        shutil.rmtree(self.root, ignore_errors=True)
        if self._reaper is not None:  # nothing left for it to do
            self._reaper.terminate()
            self._reaper.wait(10)
            self._reaper = None

    def __enter__(self) -> TempCluster:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def main() -> None:
    """Start a cluster, print its URL, stop it on Ctrl-C or SIGTERM."""
    import argparse

    argparse.ArgumentParser(
        description="Start a throw-away PostgreSQL cluster on 127.0.0.1, print its database"
        " URL, and stop it on Ctrl-C or SIGTERM."
    ).parse_args()
    try:
        cluster = TempCluster(durable=True).start()
    except ClusterUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print(cluster.create_database("edgeloop"), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
