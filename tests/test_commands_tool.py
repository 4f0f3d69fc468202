"""`tests.commands`: a command forked from the warm Python answers exactly as the console script
started afresh answers (exit code, stdout, stderr), in the test's environment, directory and
language, with its input; a command past its timeout is killed; an environment whose interpreter
start differs is left to a fresh start; a server that died is started again."""

import os
import subprocess
import time

import pytest

from tests import commands
from tests.commands import run_command, warm_fits
from tests.conftest import write_creds
from tui.demo.server import TOKEN_PATH


def both(args, **kwargs):
    warm = run_command(args, **kwargs)
    fresh = run_command(args, fresh=True, **kwargs)
    assert (warm.returncode, warm.stdout, warm.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    return warm


@pytest.mark.parametrize(
    "args",
    [["--help"], ["--version"], ["nonsense"], ["token"], ["status"], ["status", "--json"], ["doctor", "--offline"]],
)
def test_a_forked_command_answers_as_a_fresh_one(args, home, server):
    done = both(args)
    assert done.stdout or done.stderr


def test_signed_in_in_chinese_with_a_relative_home_in_the_tests_directory(home, server, tmp_path):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    env = {**os.environ, "ASSISTANT_LANG": "zh_CN", "ASSISTANT_CODE_HOME": os.path.relpath(home, tmp_path)}
    done = both(["status"], env=env, cwd=tmp_path)
    assert done.returncode == 0 and "assistant-home" in done.stdout
    token = both(["token"], env=env, cwd=tmp_path)
    assert token.returncode == 0 and token.stdout.strip() == server.issued[-1][0]


def test_input_reaches_the_command_and_the_program_it_runs(home, server):
    write_creds(home, {**server.issue_tokens(), "expires_at": int(time.time()) + 600})
    text = "line one\n中文 two\n" * 5000  # more than a pipe holds: written while read
    done = both(["exec", "--", "cat"], input=text)
    assert done.returncode == 0 and done.stdout == text


def test_a_command_past_its_timeout_is_killed(home, server):
    with pytest.raises(subprocess.TimeoutExpired):
        run_command(["login", "--no-tui", "--no-browser"], timeout=2)  # nobody approves: it polls on
    polled = server.count(TOKEN_PATH)
    time.sleep(2.5)  # more than two poll intervals (1 s) of a process that would still run
    assert server.count(TOKEN_PATH) == polled


def test_what_the_interpreter_decides_at_its_start_is_left_to_a_fresh_start():
    base = {"LANG": "C.UTF-8", **commands._SETTINGS}
    assert warm_fits(base)
    assert warm_fits({**base, "LANG": "zh_CN.UTF-8"})
    assert warm_fits({**base, "LC_ALL": "en_US.utf8"})
    assert not warm_fits({**base, "PYTHONIOENCODING": "latin-1"})
    assert not warm_fits({**base, "LC_ALL": "C"})  # coerced by the interpreter at its start
    assert not warm_fits({**base, "LANG": "", "LC_ALL": "", "LC_CTYPE": ""})
    assert not warm_fits({**base, "LC_ALL": "en_US.ISO-8859-1"})
    if commands._SETTINGS:
        assert not warm_fits({k: v for k, v in base.items() if not k.startswith("PYTHON")})


def test_a_server_that_died_is_started_again_and_cpu_is_counted(home):
    run_command(["--version"])
    assert commands._server is not None
    commands._server[0].kill()
    commands._server[0].wait()
    before = commands.cpu_seconds
    done = run_command(["--version"])
    assert done.returncode == 0 and done.stdout.startswith("assistant-auth")
    assert commands.cpu_seconds > before
