"""Pure helpers behind the screens: clipboard choice, browser choice, text cleaning, QR, time."""

import pytest

from tui.app.widgets.qr import qr_lines
from tui.core.text.humantime import clock, expiry, relative, stamp
from tui.core.text.untrusted import clean, one_line
from tui.terminal.browser import browser_commands, should_auto_open
from tui.terminal.clipboard import copy_text


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, text):
        self.calls.append(text)


def test_copy_locally_with_display():
    osc, local = Recorder(), Recorder()
    message = copy_text("CODE", "code", osc, env={"DISPLAY": ":0"}, local_copy=local)
    assert local.calls == ["CODE"] and osc.calls == ["CODE"] and message == "Copied the code to the clipboard."


def test_copy_over_ssh_never_uses_local_clipboard():
    osc, local = Recorder(), Recorder()
    message = copy_text("CODE", "code", osc, env={"SSH_TTY": "/dev/pts/1", "DISPLAY": ":0"}, local_copy=local)
    assert local.calls == [] and osc.calls == ["CODE"]
    assert message.startswith("Asked your terminal to copy the code (OSC 52)") and "tmux" not in message


def test_copy_when_local_clipboard_fails_falls_back_to_osc52_with_tmux_hint():
    osc = Recorder()

    def broken(text):
        raise RuntimeError("no clipboard mechanism")

    message = copy_text("CODE", "code", osc, env={"DISPLAY": ":0", "TMUX": "x"}, local_copy=broken)
    assert osc.calls == ["CODE"] and "set -g set-clipboard on" in message


def test_copy_without_display_uses_osc52(monkeypatch):
    osc = Recorder()
    monkeypatch.setattr("sys.platform", "linux")
    message = copy_text("CODE", "code", osc, env={})
    assert osc.calls == ["CODE"] and "OSC 52" in message


U = "https://auth.test/device?user_code=WDJB-MJHT"


@pytest.mark.parametrize(
    "env, platform, expected",
    [
        ({"SSH_CONNECTION": "1 2 3 4", "DISPLAY": ":0"}, "linux", None),
        ({}, "linux", None),
        ({"BROWSER": "firefox"}, "linux", ["firefox", U]),
        ({"BROWSER": "chromium --new-window %s"}, "linux", ["chromium", "--new-window", U]),
        ({"BROWSER": "w3m:lynx"}, "linux", ["w3m", U]),
        ({}, "darwin", ["open", U]),
    ],
)
def test_browser_command(env, platform, expected):
    assert browser_commands(U, env, platform)[:1] == ([expected] if expected else [])


def test_auto_open_only_local_with_display():
    assert not should_auto_open(True, {"DISPLAY": ":0", "BROWSER": "firefox"})
    assert not should_auto_open(False, {"SSH_TTY": "x", "DISPLAY": ":0", "BROWSER": "firefox"})
    assert not should_auto_open(False, {"BROWSER": "w3m"})  # a console browser in a bare terminal
    assert should_auto_open(False, {"DISPLAY": ":0", "BROWSER": "firefox"})


def test_clean_and_one_line():
    assert clean("a\x1b[31mb\x07c\u202ed") == "a\ufffd[31mb\ufffdc\ufffdd"
    assert clean("line1\nline2\tx") == "line1\nline2\tx"
    assert one_line("a\nb", 10) == "a b"
    assert one_line("x" * 20, 5) == "xxxx…"


def test_qr_lines_are_rectangular_and_have_a_quiet_zone():
    lines = qr_lines("https://example.test/device?user_code=ABCD-EFGH")
    assert len({len(line) for line in lines}) == 1
    assert set(lines[0]) == {"█"}  # the light quiet zone
    assert set(lines[0]) | set("".join(lines)) <= {"█", "▀", "▄", " "}


def test_time_formats():
    assert clock(65) == "1:05" and clock(3725) == "1:02:05" and clock(-5) == "0:00"
    assert relative(120) == "in 2 min" and relative(-7200) == "2 h ago" and relative(86400 * 3) == "in 3 days"
    assert stamp(10**30) == "far future"
    assert "in 14 min" in expiry(1000 + 14 * 60 + 30, now=1000)
    assert expiry(None) == "no expiry recorded"


def test_qr_placement_is_decided_by_the_terminal_size():
    from tui.app.widgets.qr import qr_placement, qr_size

    address = "https://auth.cn.assistant.example/device?user_code=WDJB-MJHT"
    assert qr_size(address) == (37, 19)
    assert qr_placement(address, 200, 50) == ("beside", "")
    assert qr_placement(address, 81, 23) == ("beside", "")  # 37 + 44 columns, 19 + 4 rows
    assert qr_placement(address, 80, 24) == ("alone", "")
    assert qr_placement(address, 60, 20) == ("alone", "")
    place, why = qr_placement(address, 60, 18)
    assert place == "none" and "at least 39×20 (this one is 60×18)" in why
    assert qr_placement("x" * 5000, 200, 50)[0] == "none"
