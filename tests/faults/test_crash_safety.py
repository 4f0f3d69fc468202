"""SIGKILL at random points while writing and while refreshing: the file is always whole."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.conftest import write_creds
from tests.waiting import PATIENCE
from tui.core import endpoints

WRITE_ITERATIONS = 150
REFRESH_ITERATIONS = 100

# The processes killed here are real processes running the product's code, forked from one that
# loaded it once (a fresh interpreter for each of 250 kills cost most of this file's CPU time).
# Each child says "go <pid>" when it is about to write or refresh, then loops until it is killed.
ZYGOTE = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    import httpx, tui.core.http, tui.core.signin.protocol, tui.core.credentials.locks
    from tui.core import get_access_token
    from tui.core.credentials.slot import write_merged

    def writer(i):
        i = int(i)
        print("go", os.getpid(), flush=True)
        while True:
            i += 1
            write_merged("assistant-code", {
                "access_token": f"AT-{i}", "refresh_token": f"RT-{i}", "expires_in": 900,
                "scope": "s" * 4000,  # a bigger file: more time inside each write
            })

    def refresher(base):
        async def main():
            async with httpx.AsyncClient(timeout=10, verify=TRUST) as client:  # built before "go"
                print("go", os.getpid(), flush=True)
                while True:
                    await get_access_token(None, base, client=client)
        asyncio.run(main())

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps a killed child: gone at once
    TRUST = tui.core.http.tls_trust()  # loaded once here, as one process of ours does: not 0.1 s per child
    print("ready", flush=True)
    for line in sys.stdin:
        kind, arg = line.split()
        if os.fork() == 0:
            {"writer": writer, "refresher": refresher}[kind](arg)
            os._exit(0)
    """
)


class Forks:
    """The process that forks the children to kill (started inside a test: its environment points
    at the test's home and server)."""

    def __init__(self) -> None:
        self.zygote = subprocess.Popen(
            [sys.executable, "-c", ZYGOTE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=os.environ.copy(),
        )
        assert self.zygote.stdout.readline().strip() == b"ready"

    def spawn(self, kind: str, arg: str) -> int:
        """A child running `kind` with `arg`, once it says "go": its pid."""
        self.zygote.stdin.write(f"{kind} {arg}\n".encode())
        self.zygote.stdin.flush()
        word, pid = self.zygote.stdout.readline().split()
        assert word == b"go"
        return int(pid)

    def close(self) -> None:
        self.zygote.kill()
        self.zygote.wait()  # SIGKILL cannot be caught: no bound needed


@pytest.fixture
def forks():
    made = Forks()
    try:
        yield made
    finally:
        made.close()


def kill_soon(pid: int, rng: random.Random, limit: float) -> None:
    """SIGKILL after a random pause, then wait until the process is gone (never a guess): on its
    pidfd where the system has them (woken by the exit), else by asking every millisecond."""
    time.sleep(rng.uniform(0, limit))
    try:
        exited = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except (AttributeError, OSError):
        exited = None
    os.kill(pid, signal.SIGKILL)
    if exited is not None:
        try:
            gone, _, _ = select.select([exited], [], [], PATIENCE)
        finally:
            os.close(exited)
        assert gone, f"process {pid} still there {PATIENCE:g} s after SIGKILL"
        return
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.001)
    raise AssertionError(f"process {pid} still there {PATIENCE:g} s after SIGKILL")


def test_sigkill_while_writing_never_leaves_a_mixture(home, forks):
    rng = random.Random(8628)
    path = write_creds(home, {"access_token": "AT-0", "refresh_token": "RT-0", "keep": "me"})
    generation = 0
    for _ in range(WRITE_ITERATIONS):
        pid = forks.spawn("writer", str(generation))
        kill_soon(pid, rng, 0.03)
        data = json.loads(path.read_text())  # always parses
        access, refresh = data["access_token"], data["refresh_token"]
        assert access.removeprefix("AT-") == refresh.removeprefix("RT-"), (access, refresh)  # old or new, never mixed
        assert data["keep"] == "me"  # unknown fields survive every write
        generation = int(access.removeprefix("AT-")) + 1000
    leftovers = [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
    # a kill between creating and renaming the temporary file can leave one behind: private,
    # never the credential file itself, and swept by the next write once it is stale
    for temp in leftovers:
        assert temp.name.startswith(".assistant-code.json.") and temp.stat().st_mode & 0o077 == 0
        os.utime(temp, (time.time() - 3600, time.time() - 3600))
    from tui.core.credentials.slot import write_merged

    write_merged("assistant-code", {"access_token": "AT-final"})
    assert not [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]


# A hundred kills, each waiting on its own events within PATIENCE: the suite's 120 s per test is one
# event's worth of waiting, and beside a CPU hog and the rest of the suite the whole took longer
@pytest.mark.timeout(10 * 60)
def test_sigkill_while_refreshing_keeps_an_issued_pair(home, server, forks):
    rng = random.Random(5)
    server.access_ttl = 0  # every token is born expired: each call refreshes
    path = write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    base = endpoints("cn").base_url
    for _ in range(REFRESH_ITERATIONS):
        sent = server.count("/api/oauth/token", "refresh_token")
        pid = forks.spawn("refresher", base)
        # the kill lands in the refresh itself, whatever the machine's load: from the moment the
        # server has the request (it rotates the pair then) through its answer, the write and on
        assert server.traffic.wait_for(sent + 1, "/api/oauth/token", "refresh_token", timeout=PATIENCE)
        kill_soon(pid, rng, 0.1)
        lock = home / "oauth" / "assistant-code.lock"
        if lock.exists():  # a SIGKILLed holder's directory lock: stale after 5 s, so age it
            os.utime(lock, (time.time() - 10, time.time() - 10))
        data = json.loads(path.read_text())
        pair = (data["access_token"], data["refresh_token"])
        assert pair in server.issued  # exactly a pair the server issued together
        with server.lock:
            used = server.state.refresh_tokens[pair[1]]["used"]
        if used:  # killed after the server rotated, before the write: start from a fresh session
            write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    assert server.count("/api/oauth/token", "refresh_token") >= REFRESH_ITERATIONS  # every kill fell in a refresh


def test_normal_runs_leave_no_temp_files(home, server):
    import asyncio

    from tui.core import get_access_token, persist_device_signin

    persist_device_signin(server.issue_tokens(), "cn")
    write_creds(home, {**server.issue_tokens(), "expires_at": 1})
    asyncio.run(get_access_token(None, endpoints("cn").base_url))
    names = sorted(p.name for p in home.rglob("*"))
    assert not [n for n in names if n.endswith(".tmp")], names
