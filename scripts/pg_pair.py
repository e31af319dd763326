"""A throwaway PostgreSQL primary and synchronous hot standby, built with Debian's tools.

    python3 scripts/pg_pair.py up [--name pbem_fo] [--ports 5442,5443]
    python3 scripts/pg_pair.py down [--name pbem_fo]

Run as root (the clusters run as the ``postgres`` user). ``up`` creates the cluster
``NAME_a`` (primary) with ``pg_createcluster``, copies it with ``pg_basebackup -R`` into
``NAME_b`` (a hot standby streaming from it), makes that standby synchronous
(``synchronous_standby_names``, ``synchronous_commit = on``: a commit returns only once
the standby has the WAL on disk) and prints the multi-host URL. ``down`` stops and drops
both. Authentication is ``trust``: these clusters are for tests and benchmarks only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

VERSION = "15"
STANDBY_NAME = "standby"
SOCKETS = "/var/run/postgresql"

PRIMARY_SETTINGS = f"""
# Streaming replication to a synchronous hot standby.
wal_level = replica
max_wal_senders = 5
synchronous_standby_names = 'FIRST 1 ({STANDBY_NAME})'
synchronous_commit = on
hot_standby = on
fsync = on
"""


class PairError(RuntimeError):
    pass


def available() -> str | None:
    """None when clusters can be built here, else the reason they cannot."""
    if os.geteuid() != 0:
        return "building clusters needs root"
    for tool in ("pg_createcluster", "pg_ctlcluster", "pg_dropcluster"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed"
    if not Path(f"/usr/lib/postgresql/{VERSION}/bin/pg_basebackup").exists():
        return f"PostgreSQL {VERSION} is not installed"
    return None


def _run(*command: str) -> str:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode:
        raise PairError(f"{' '.join(command)}: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def _as_postgres(*command: str) -> str:
    return _run("runuser", "-u", "postgres", "--", *command)


@dataclass
class StandbyPair:
    name: str = "pbem_fo"
    primary_port: int = 5442
    standby_port: int = 5443

    @property
    def primary(self) -> str:
        return f"{self.name}_a"

    @property
    def standby(self) -> str:
        return f"{self.name}_b"

    def data(self, cluster: str) -> Path:
        return Path(f"/var/lib/postgresql/{VERSION}/{cluster}")

    def url(self, database: str = "postgres", user: str = "postgres") -> str:
        """The multi-host URL: whichever of the two accepts writes is the one used."""
        return (
            f"postgresql+psycopg://{user}@/{database}?host=127.0.0.1:{self.primary_port}"
            f"&host=127.0.0.1:{self.standby_port}&target_session_attrs=read-write"
            "&connect_timeout=5"
        )

    def build(self) -> StandbyPair:
        """Creates, starts and connects both clusters; drops them again if anything fails."""
        self.drop()
        try:
            self._build()
        except BaseException:
            self.drop()
            raise
        return self

    def _build(self) -> None:
        auth = ("--", "--auth-local=trust", "--auth-host=trust", "--no-sync")
        _run("pg_createcluster", VERSION, self.primary, "-p", str(self.primary_port), *auth)
        conf = Path(f"/etc/postgresql/{VERSION}/{self.primary}/conf.d/replication.conf")
        conf.write_text(PRIMARY_SETTINGS)
        conf.chmod(0o644)  # the server reads it as postgres, whatever this process's umask
        _run("pg_ctlcluster", VERSION, self.primary, "start")
        # The standby: Debian's configuration files, the primary's data.
        _run("pg_createcluster", VERSION, self.standby, "-p", str(self.standby_port), *auth)
        data = self.data(self.standby)
        shutil.rmtree(data)
        data.mkdir(mode=0o700)
        shutil.chown(data, "postgres", "postgres")
        _as_postgres(
            f"/usr/lib/postgresql/{VERSION}/bin/pg_basebackup",
            f"--host={SOCKETS}",
            f"--port={self.primary_port}",
            f"--pgdata={data}",
            "--write-recovery-conf",
            "--wal-method=stream",
            "--checkpoint=fast",
        )
        with (data / "postgresql.auto.conf").open("a") as auto:
            # The later line wins: the same connection, under the name the primary waits for.
            auto.write(
                f"primary_conninfo = 'host={SOCKETS} port={self.primary_port} user=postgres "
                f"application_name={STANDBY_NAME}'\n"
            )
        _run("pg_ctlcluster", VERSION, self.standby, "start")
        self.wait_streaming()

    def sql(self, port: int, query: str) -> str:
        return _as_postgres(
            "psql", "-h", SOCKETS, "-p", str(port), "-d", "postgres", "-AtX", "-c", query
        ).strip()

    def wait_streaming(self, seconds: float = 30) -> None:
        """Waits until the primary counts the standby as its synchronous standby."""
        deadline = time.monotonic() + seconds
        query = "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'"
        while time.monotonic() < deadline:
            if self.sql(self.primary_port, query) == "sync":
                return
            time.sleep(0.2)
        raise PairError("the standby did not become a synchronous standby")

    def kill_primary(self) -> None:
        """SIGKILLs the primary's postmaster and every process it started: a host that died."""
        pid_file = self.data(self.primary) / "postmaster.pid"
        postmaster = int(pid_file.read_text().split()[0])
        children = subprocess.run(
            ["pgrep", "-P", str(postmaster)], capture_output=True, text=True
        ).stdout.split()
        for pid in [postmaster, *map(int, children)]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def promote(self) -> None:
        """Turns the standby into the primary (``pg_ctl promote`` waits until it is)."""
        _run("pg_ctlcluster", VERSION, self.standby, "promote")

    def drop(self) -> None:
        """Stops and removes both clusters; quietly does nothing for one that is not there."""
        for cluster in (self.standby, self.primary):
            if Path(f"/etc/postgresql/{VERSION}/{cluster}").exists() or self.data(cluster).exists():
                subprocess.run(
                    ["pg_dropcluster", "--stop", VERSION, cluster], capture_output=True, text=True
                )
            if self.data(cluster).exists():
                shutil.rmtree(self.data(cluster), ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["up", "down"])
    parser.add_argument("--name", default="pbem_fo")
    parser.add_argument("--ports", default="5442,5443", help="primary,standby")
    args = parser.parse_args()
    if reason := available():
        print(reason, file=sys.stderr)
        return 2
    first, second = (int(port) for port in args.ports.split(","))
    pair = StandbyPair(args.name, first, second)
    if args.action == "down":
        pair.drop()
        return 0
    pair.build()
    print(pair.url())
    return 0


if __name__ == "__main__":
    sys.exit(main())
