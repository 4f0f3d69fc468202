"""`assistant-auth exec [--env NAME] [--min-ttl S] [selectors] -- PROGRAM [ARGS…]`: run PROGRAM
with a valid access token in its environment, never on its command line.

Parsed by hand, like `token` (scripts and agents call it often). The token is fetched first,
refreshed when needed inside the refresh's critical section; if it cannot be had, nothing runs
and the exit code is that of `token`. On POSIX the process then becomes PROGRAM (`os.execvpe`),
every lock released and our output flushed, with SIGPIPE and SIGXFSZ back to their defaults
(Python ignores them; PROGRAM must not inherit that): PROGRAM's streams, exit code and signals are
its own. Elsewhere PROGRAM runs as a child: Ctrl+C is left to it (the console delivers it to both),
SIGTERM is forwarded, and death by signal N exits 128+N.
"""

from __future__ import annotations

import os
import subprocess
import sys

from tui.cli.options import min_ttl_value, parse_flags, selector_of, selector_problem
from tui.cli.output import err, help_out
from tui.cli.token import obtain, usage_problem
from tui.cli.usage import EXEC_HELP
from tui.core.signals import forwarding_to, shell_dispositions
from tui.core.slots.selector import Selector
from tui.core.text.i18n import _
from tui.core.text.untrusted import one_line

DEFAULT_VARIABLE = "ASSISTANT_ACCESS_TOKEN"
NOT_FOUND, NOT_EXECUTABLE = 127, 126


def valid_variable(name: str) -> bool:
    """A POSIX environment variable name: letters, digits and `_`, not starting with a digit."""
    first = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
    return bool(name) and name.isascii() and name[0] in first and all(ch in first or ch.isdigit() for ch in name)


def run_fast(args: list[str]) -> int:
    if args[:1] in (["-h"], ["--help"]):
        help_out(_(EXEC_HELP))
        return 0
    selector, extra, program, problem = parse_flags(args, (), ("--env", "--min-ttl"), "exec")
    if "--" not in args:
        problem = problem or _("give the program after `--`: assistant-auth exec [OPTIONS] -- PROGRAM [ARGS...]")
    return execute(selector, problem, extra.get("--env"), extra.get("--min-ttl"), program)


def execute(selector: Selector, problem: str | None, variable: str | None, min_ttl_text: str | None, program) -> int:
    """PROGRAM run with the token for `selector` in `variable` (exit codes as `token`'s when there
    is none: nothing runs); `problem` and the other values are checked first (exit 2)."""
    if not problem and not program:
        problem = _("no program after `--`")
    variable = DEFAULT_VARIABLE if variable is None else variable
    if not problem and not valid_variable(variable):
        problem = _("--env {name} is not a valid environment variable name").format(name=repr(variable))
    min_ttl, ttl_problem = min_ttl_value(min_ttl_text)
    if problem or ttl_problem:
        return usage_problem(problem or ttl_problem or "")
    _chosen, token = obtain(selector, min_ttl)
    if isinstance(token, int):
        return token  # nothing runs without a token
    env = {**os.environ, variable: token}
    if os.name == "posix":
        return replace_process(list(program), env)
    return run_child(list(program), env)


def _say(message: str) -> None:
    err(one_line(_("assistant-auth exec: {message}").format(message=message), 1000))


def replace_process(program: list[str], env: dict[str, str]) -> int:
    """Become PROGRAM: every lock is released by now (the token was handed over); our output is
    flushed and the signals Python ignores are reset, so PROGRAM starts as from a shell."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        with shell_dispositions():  # if the exec fails we are still us: back to what Python expects
            os.execvpe(program[0], program, env)  # noqa: S606 - running the person's PROGRAM is this command's job
    except FileNotFoundError:
        code, why = NOT_FOUND, _("command not found")
    except PermissionError:
        code, why = NOT_EXECUTABLE, _("permission denied (not executable)")
    except OSError as exc:
        code, why = NOT_EXECUTABLE, exc.strerror or str(exc)
    _say(f"{program[0]}: {why}")
    return code


def run_child(program: list[str], env: dict[str, str]) -> int:
    """PROGRAM as a child process (where a process cannot be replaced): Ctrl+C goes to it (the
    console delivers it to both; we ignore ours), SIGTERM is forwarded, and its exit code is ours
    (128+N when it died of signal N)."""
    try:
        child = subprocess.Popen(program, env=env)  # noqa: S603 - the person's PROGRAM, as they typed it, no shell
    except FileNotFoundError:
        _say(f"{program[0]}: " + _("command not found"))
        return NOT_FOUND
    except PermissionError:
        _say(f"{program[0]}: " + _("permission denied (not executable)"))
        return NOT_EXECUTABLE
    except OSError as exc:
        _say(f"{program[0]}: {exc.strerror or exc}")
        return NOT_EXECUTABLE
    with forwarding_to(child.send_signal):
        code = child.wait()
    return 128 - code if code < 0 else code


def run(ns) -> int:  # reached through argparse only when `exec` is not the first word (`--no-browser exec …`)
    selector = selector_of(ns)
    program = list(ns.program)
    return execute(
        selector, selector_problem(selector), ns.env, ns.min_ttl, program[1:] if program[:1] == ["--"] else program
    )
