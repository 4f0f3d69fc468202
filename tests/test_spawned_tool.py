"""`tests.spawned`: a command a test talks to while it runs, forked from the warm Python, is a
process as a fresh Popen's is: its own pid (not this process's child), this worker's process
group, the signal dispositions and mask a fresh start after `default_signals` has, pipes that read
and write as Popen's, an exit status by `poll`, `wait` and `communicate`, its CPU counted; an
environment that does not fit a warm start gets `subprocess.Popen` itself."""

import os
import signal
import subprocess
import time

import pytest

from tests import commands
from tests.conftest import write_creds
from tests.spawned import Spawned, spawn_command
from tests.waiting import PATIENCE, until


def agent(tmp_path, name: str, **kwargs):
    return spawn_command(
        ["agent", "--foreground", "--json", "-a", str(tmp_path / name)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        default_signals=True,
        **kwargs,
    )


def signal_masks(pid: int) -> dict[str, int]:
    """What a process ignores and blocks, from /proc (Linux)."""
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("SigIgn", "SigBlk"):
                fields[name] = int(value, 16)
    return fields


def test_a_spawned_agent_is_a_process_as_a_fresh_one_is(home, tmp_path):
    warm, fresh = agent(tmp_path, "w.sock"), agent(tmp_path, "f.sock", fresh=True)
    try:
        assert isinstance(warm, Spawned) and isinstance(fresh, subprocess.Popen)
        said = [process.stdout.readline() for process in (warm, fresh)]  # each says where it listens
        assert all('"socket"' in line for line in said), said
        assert warm.poll() is None and warm.pid != fresh.pid
        with pytest.raises(ChildProcessError):
            os.waitpid(warm.pid, os.WNOHANG)  # the warm server's waiter waits for it, not us
        assert os.getpgid(warm.pid) == os.getpgid(fresh.pid) == os.getpgid(0)
        if os.path.exists(f"/proc/{warm.pid}/status"):
            assert signal_masks(warm.pid) == signal_masks(fresh.pid)
        with pytest.raises(subprocess.TimeoutExpired):
            warm.wait(timeout=0.1)
        before = commands.cpu_seconds
        for process in (warm, fresh):
            process.terminate()
        codes = [process.wait(timeout=PATIENCE) for process in (warm, fresh)]
        assert codes[0] == codes[1], codes
        assert warm.poll() == codes[0] and commands.cpu_seconds > before
    finally:
        for process in (warm, fresh):
            if process.poll() is None:
                process.kill()
                process.wait()


def test_a_stopped_spawned_process_is_continued_and_killed(home, tmp_path):
    warm = agent(tmp_path, "s.sock")
    warm.stdout.readline()
    os.kill(warm.pid, signal.SIGSTOP)
    until(lambda: open(f"/proc/{warm.pid}/stat").read().split(")")[-1].split()[0] == "T", "stopped")
    warm.kill()
    assert warm.wait(timeout=PATIENCE) == -signal.SIGKILL
    warm.send_signal(signal.SIGTERM)  # an ended process: nothing to signal, nothing raised


def test_communicate_writes_the_input_and_reads_both_ends(home, server):
    with spawn_command(["--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as warm:
        out, err = warm.communicate(timeout=PATIENCE)
    fresh = subprocess.run([commands.SCRIPT, "--help"], capture_output=True, text=True)
    assert (warm.returncode, out, err) == (fresh.returncode, fresh.stdout, fresh.stderr)
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    piped = spawn_command(["exec", "--", "cat"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    data = "中文 line\n".encode() * 20000  # more than a pipe holds: written while read
    out, err = piped.communicate(data, timeout=PATIENCE)
    assert (piped.returncode, out) == (0, data), err


def test_an_environment_that_does_not_fit_gets_a_fresh_popen(home):
    env = {**os.environ, "LC_ALL": "C"}
    process = spawn_command(["--version"], env=env, stdout=subprocess.PIPE, text=True)
    out, _ = process.communicate(timeout=PATIENCE)
    assert isinstance(process, subprocess.Popen) and process.returncode == 0 and out.strip()
