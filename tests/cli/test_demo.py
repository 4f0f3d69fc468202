"""The demo leads to the command line: `--serve` keeps its server until Ctrl+C and prints export
lines with which a second shell's `token`/`status` read the demo's files; the temporary home is
removed when the demo ends; Done's next step is true in a demo."""

from __future__ import annotations

import os
import pathlib
import re
import signal
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.cli.test_cli import SCRIPT, run
from tests.conftest import default_signals
from tui.app.screens.done import next_steps

COMMAND = [SCRIPT] if SCRIPT else [sys.executable, "-m", "tui.cli"]


def demo_home(stderr: str) -> pathlib.Path:
    assert "it is removed when the demo ends" in stderr
    return pathlib.Path(re.search(r"ASSISTANT_CODE_HOME=(\S+)", stderr).group(1))


def test_the_temporary_home_is_removed_when_the_demo_ends(monkeypatch):
    monkeypatch.delenv("ASSISTANT_CODE_HOME")
    result = run("demo", "--no-tui", "--approve-after", "0.3")
    assert result.returncode == 0, result.stderr
    home = demo_home(result.stderr)
    assert f"Demo ended: removed {home}" in result.stderr
    assert not home.exists()


def signal_state(pid: int) -> str:
    """What a process does with signals (blocked, ignored, caught, pending) and its threads."""
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text().splitlines()
        threads = [
            f"{task.name} {(task / 'comm').read_text().strip()} {(task / 'wchan').read_text().strip()}"
            for task in pathlib.Path(f"/proc/{pid}/task").iterdir()
        ]
    except OSError as exc:
        return f"(no /proc: {exc})"
    return "\n".join([line for line in status if line.startswith(("Sig", "ShdPnd"))] + threads)


def serve_demo(monkeypatch) -> subprocess.Popen:
    """`demo --serve` in a clean environment (none of our settings: the demo makes its own)."""
    for name in list(os.environ):
        if name.startswith("ASSISTANT_"):
            monkeypatch.delenv(name)
    return subprocess.Popen(
        COMMAND + ["demo", "--no-tui", "--serve", "--approve-after", "0.3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
        preexec_fn=default_signals,  # a test run started in the background hands SIGINT down ignored
    )


@pytest.mark.parametrize("ending", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_serve_keeps_the_server_for_a_second_shell_until_ctrl_c(monkeypatch, ending):
    demo = serve_demo(monkeypatch)
    try:
        lines = []
        for line in demo.stdout:  # the exact state asserted: the last line of the instructions
            lines.append(line)
            if line.startswith("then try:"):
                break
        hint = lines[-1]  # each command as it is typed (#57 13): never `token; refresh` that no shell runs
        assert ";" not in hint and all(f"assistant-auth {word}" in hint for word in ("status", "token", "doctor"))
        exports = dict(re.findall(r"^  export (\w+)=(\S+)$", "".join(lines), re.M))
        assert set(exports) >= {"ASSISTANT_CODE_HOME", "ASSISTANT_OAUTH_HOST_CN", "ASSISTANT_OAUTH_HOST_GLOBAL"}
        second_shell = {**os.environ, **exports}
        token = subprocess.run(COMMAND + ["token"], capture_output=True, text=True, env=second_shell, timeout=60)
        assert token.returncode == 0 and token.stdout.strip(), token.stderr
        refresh = subprocess.run(COMMAND + ["refresh"], capture_output=True, text=True, env=second_shell, timeout=60)
        assert refresh.returncode == 0, refresh.stderr  # the demo's server answers the second shell
        home = pathlib.Path(exports["ASSISTANT_CODE_HOME"])
        assert (home / "credentials" / "assistant-code.json").exists()
        demo.send_signal(ending)  # Ctrl+C, a kill, or the terminal closing: all end it cleanly
        try:
            _out, err = demo.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running 30 s after {ending!r}:\n{signal_state(demo.pid)}") from None
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 0
    assert f"Demo ended: removed {home}" in err and not home.exists()


@pytest.mark.skipif(not pathlib.Path("/proc/self/task").is_dir(), reason="needs Linux's /proc and tgkill")
def test_serve_ends_when_the_hang_up_reaches_another_thread(monkeypatch):
    """The kernel may hand a process's signal to any of its threads (here, the server's): the
    demo still ends at once, not when its main thread next wakes by itself."""
    import ctypes

    demo = serve_demo(monkeypatch)
    try:
        for line in demo.stdout:
            if line.startswith("then try:"):
                break
        others = [int(task.name) for task in pathlib.Path(f"/proc/{demo.pid}/task").iterdir()]
        others = [tid for tid in others if tid != demo.pid]
        assert others  # the server's threads
        libc = ctypes.CDLL(None, use_errno=True)
        sys_tgkill = 234  # x86_64; 131 on aarch64
        if os.uname().machine == "aarch64":
            sys_tgkill = 131
        assert libc.syscall(sys_tgkill, demo.pid, others[0], signal.SIGHUP) == 0
        _out, err = demo.communicate(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 0 and "Demo ended: removed" in err


def test_dones_next_step_is_true_in_a_demo():
    assert "scripts can run `assistant-auth token`" in next_steps(None)
    plain = next_steps(SimpleNamespace(serve=False))
    assert "removed when it ends" in plain and "assistant-auth demo --serve" in plain
    assert "scripts can run" not in plain
    assert "export lines for a second shell" in next_steps(SimpleNamespace(serve=True))


@pytest.mark.parametrize("size", [(80, 24), (60, 18)])
async def test_done_in_the_demo_points_at_serve(server, size):
    from tui.app import AssistantAuthApp

    server.auto_approve = 0.2
    demo = SimpleNamespace(page=server.verification_uri(), approve=server.approve_on_page, serve=False)
    app = AssistantAuthApp(no_browser=True, demo=demo)
    async with app.run_test(size=size) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen")
        next_line = app.screen.query_one("#done-next")
        next_line.scroll_visible(animate=False)
        await pilot.pause()
        await wait_for(pilot, lambda: "demo --serve" in " ".join(screen_text(app).split()))


def _serving_home(demo: subprocess.Popen) -> pathlib.Path:
    lines = []
    for line in demo.stdout:
        lines.append(line)
        if line.startswith("then try:"):
            break
    return pathlib.Path(dict(re.findall(r"^  export (\w+)=(\S+)$", "".join(lines), re.M))["ASSISTANT_CODE_HOME"])


def test_a_demo_killed_outright_leaves_no_home_behind(monkeypatch):
    """#57 2: an ending that runs none of the demo's own code (SIGKILL; a lost terminal whose
    SIGHUP another handler took) used to leave the temporary home, tokens included. The reaper
    started with the demo removes it once the demo is gone."""
    from tests.waiting import until

    demo = serve_demo(monkeypatch)
    try:
        home = _serving_home(demo)
        assert (home / "credentials" / "assistant-code.json").exists()
        demo.kill()
        demo.wait(30)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    until(lambda: not home.exists(), what="the demo's home removed by its reaper")


def test_removed_is_said_only_when_the_home_is_gone(tmp_path, monkeypatch):
    from tui.demo import reaper

    home = tmp_path / "assistant-auth-demo-x"
    (home / "credentials").mkdir(parents=True)
    monkeypatch.setattr(reaper.shutil, "rmtree", lambda *_a, **_k: None)  # a removal cut short
    assert reaper.remove(str(home)) == "it is still there"
    monkeypatch.undo()
    assert reaper.remove(str(home)) is None and not home.exists()
