"""`agent`'s command line as an ssh-agent user expects it: `--lifetime` in ssh-agent's time format,
shell lines for sh, csh and fish (chosen with -s, -c, --fish or by $SHELL), a subcommand's own
usage for an option it does not take; the top-level help lists `relay` and flows its paragraphs."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess

import pytest
from hypothesis import given, strategies as st

from tests.cli.test_cli import SCRIPT
from tests.commands import run_command
from tests.waiting import PATIENCE, until
from tui.cli.agent.shell_lines import CSH, FISH, SH, fish_quote, set_lines, shell_of, unset_lines
from tui.core.text.timespec import format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90), ("30m", 1800), ("1h30m", 5400), ("2d", 172800), ("1w", 604800), ("1H", 3600), ("10s", 10)],
)
def test_lifetime_reads_ssh_agents_time_format(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "m", "-5", "1.5", "1h 30m", "1x", "h1", "١٢", "9" * 70])
def test_what_is_no_duration_is_refused(text):
    with pytest.raises(ValueError):
        parse_duration(text)


@given(st.integers(min_value=0, max_value=10**9))
def test_a_duration_reads_back_as_it_was_written(seconds):
    assert parse_duration(format_duration(seconds)) == seconds


@given(st.text(max_size=20))
def test_any_text_is_a_duration_or_a_value_error(text):
    try:
        assert parse_duration(text) >= 0
    except ValueError:
        pass


def test_the_shell_comes_from_the_flag_or_shell():
    assert shell_of(None, "/bin/bash") == SH and shell_of(None, "/usr/bin/tcsh") == CSH
    assert shell_of(None, "/usr/bin/fish") == FISH and shell_of(None, "") == SH
    assert shell_of(CSH, "/usr/bin/fish") == CSH


@pytest.mark.parametrize("shell", [SH, CSH, FISH])
def test_a_hostile_path_is_one_quoted_word_in_each_shell(shell):
    path = "/tmp/a b'c\"d$e`f\\g;h"
    lines = set_lines(shell, {"ASSISTANT_AUTH_SOCK": path})
    assert len(lines) == 1 and "\n" not in lines[0]
    if shell == FISH:
        assert fish_quote(path) in lines[0]
    assert unset_lines(shell, ["X"]) == {SH: ["unset X;"], CSH: ["unsetenv X;"], FISH: ["set -e X;"]}[shell]


def test_sh_lines_evaluated_by_a_real_shell_point_it_at_the_agent(home, tmp_path):
    """`eval "$(assistant-auth agent -s --lifetime 10m)"` in sh; --stop's lines undo it."""
    script = (
        f'eval "$({SCRIPT} agent -s --lifetime 10m)"; '
        'printf "%s %s\\n" "$ASSISTANT_AUTH_SOCK" "$ASSISTANT_AUTH_AGENT_PID"; '
        f'eval "$({SCRIPT} agent --stop -s)"; printf "[%s]\\n" "$ASSISTANT_AUTH_SOCK"'
    )
    done = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=PATIENCE)
    assert done.returncode == 0, done.stderr
    first, second = [line for line in done.stdout.splitlines() if not line.startswith("Agent pid")]
    path, pid = first.split()
    assert path.endswith(f"agent.{pid}") or os.path.basename(path).startswith("agent")
    assert second == "[]"
    until(lambda: not os.path.exists(path))


@pytest.mark.parametrize("shell", ["tcsh", "fish"])
def test_csh_and_fish_lines_evaluated_by_the_real_shell(home, shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed here")
    flag = "-c" if shell == "tcsh" else "--fish"
    lines = run_command(["agent", flag], timeout=PATIENCE).stdout
    pid = int(lines.rsplit("Agent pid ", 1)[1].split(";")[0])
    try:
        shown = subprocess.run(
            [shell, "-c", lines + " ; echo $ASSISTANT_AUTH_SOCK"], capture_output=True, text=True, timeout=PATIENCE
        )
        path = shown.stdout.splitlines()[-1]
        assert shown.returncode == 0 and path in lines and stat.S_ISSOCK(os.stat(path).st_mode), shown.stderr
    finally:
        os.kill(pid, signal.SIGTERM)


def test_lifetime_in_json_mode_and_a_bad_one_refused(home):
    done = run_command(["agent", "--json", "--lifetime", "1h30m"])
    started = json.loads(done.stdout)
    os.kill(started["pid"], signal.SIGTERM)
    bad = run_command(["agent", "--lifetime", "soon"])
    assert bad.returncode == 2 and "90, 30m, 1h30m or 2d" in bad.stderr and bad.stdout == ""


def test_an_unknown_option_prints_the_subcommands_usage():
    done = run_command(["agent", "--bogus"])
    assert done.returncode == 2 and "usage: assistant-auth agent" in done.stderr and "--lifetime" in done.stderr
    plain = run_command(["--bogus"])
    assert plain.returncode == 2 and "usage: assistant-auth [" in plain.stderr


def test_top_level_help_lists_relay_and_flows_the_exit_codes():
    env = {**os.environ, "COLUMNS": "80", "ASSISTANT_LANG": "en"}
    text = run_command(["--help"], env=env).stdout
    assert "\n  relay " in text
    codes = text[text.index("exit codes:") :]
    assert all(len(line) <= 79 for line in codes.splitlines())
    assert "usage or\nerror;" in codes and "error;\n3" not in codes  # flowed, not cut where the source broke it
