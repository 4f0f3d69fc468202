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


@pytest.mark.parametrize("ending", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_serve_keeps_the_server_for_a_second_shell_until_ctrl_c(monkeypatch, ending):
    for name in list(os.environ):
        if name.startswith("ASSISTANT_"):
            monkeypatch.delenv(name)
    demo = subprocess.Popen(
        COMMAND + ["demo", "--no-tui", "--serve", "--approve-after", "0.3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        lines = []
        for line in demo.stdout:  # the exact state asserted: the last line of the instructions
            lines.append(line)
            if line.startswith("then try:"):
                break
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
        _out, err = demo.communicate(timeout=30)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
    assert demo.returncode == 0
    assert f"Demo ended: removed {home}" in err and not home.exists()


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
        await wait_for(pilot, lambda: screen_name(app) == "DoneScreen", timeout=15)
        next_line = app.screen.query_one("#done-next")
        next_line.scroll_visible(animate=False)
        await pilot.pause()
        await wait_for(pilot, lambda: "demo --serve" in " ".join(screen_text(app).split()))
