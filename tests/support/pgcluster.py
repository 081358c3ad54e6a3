"""A throwaway PostgreSQL server owned by one test, which may stop and start it (never the
shared server other tests use). Its binaries as .ci/run finds them; as root, the cluster
belongs to the `postgres` user (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import asyncio
import glob
import os
import shlex
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest


def pg_bin() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(candidates[-1]).parent if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self, bin_dir: Path, root: Path) -> None:
        self.bin = bin_dir
        self.root = root
        self.data = root / "data"
        self.port = _free_port()

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"

    async def _run(self, *argv: str) -> None:
        command = shlex.join(argv)
        if os.geteuid() == 0:
            args = ["su", "postgres", "-s", "/bin/sh", "-c", command]
        else:
            args = ["/bin/sh", "-c", command]
        proc = await asyncio.create_subprocess_exec(
            *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
        )
        out, _ = await proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"{command} failed: {out.decode(errors='replace')[-2000:]}")

    async def init(self) -> None:
        await self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"
        )

    async def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} "
            "-c fsync=off -c max_connections=100"
        )
        await self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "server.log"),
            "-w",
            "-o",
            options,
            "start",
        )

    async def stop(self, mode: str = "fast") -> None:
        await self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")


@pytest.fixture
async def own_postgres() -> AsyncIterator[Cluster]:
    """A started cluster of this test's own, stopped and removed afterwards."""
    bin_dir = pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
    root = Path(tempfile.mkdtemp(prefix="quiztutor-own-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    cluster = Cluster(bin_dir, root)
    try:
        await cluster.init()
        for attempt in range(3):
            try:
                await cluster.start()
                break
            except RuntimeError:
                # The free port was taken before the server bound it (parallel workers
                # pick ports too): another one.
                if attempt == 2:
                    raise
                cluster.port = _free_port()
        yield cluster
    finally:
        try:
            await cluster.stop("immediate")
        except RuntimeError:
            pass  # not running
        shutil.rmtree(root, ignore_errors=True)
