"""What every command prints, in one place: messages on stderr, JSON on stdout, exit codes, the
live status line and the yes/no question. Every string that did not come from this program is
cleaned first (no control sequence reaches the terminal)."""

from __future__ import annotations

import json
import os
import sys

from tui.core.errors import EXIT_OK, EXIT_SIGN_IN as EXIT_FAIL, EXIT_TRANSIENT, EXIT_USAGE as EXIT_ERROR

__all__ = ["EXIT_ERROR", "EXIT_FAIL", "EXIT_OK", "EXIT_TRANSIENT"]


def clean(text: str) -> str:
    """`untrusted.clean`, loaded the first time something is shown (not on `token`'s valid path)."""
    from tui.core.text.untrusted import clean as cleaned  # lazy: unicodedata, when shown

    return cleaned(text)


def err(message: str) -> None:
    sys.stderr.write(clean(message) + "\n")


def quiet_err(message: str) -> None:
    """`err`, when stderr itself may be closed."""
    try:
        err(message)
    except (OSError, ValueError, AttributeError):
        pass


def fail(exc) -> None:
    """An AuthError on stderr: the spec's message, then its hint line when it has one."""
    err(exc.said())


def out(line: str) -> None:
    sys.stdout.write(clean(line) + "\n")


def out_json(data: object, indent: int | None = None) -> None:
    # ASCII-only JSON: every control or bidi character arrives escaped (\\u009b), never raw
    sys.stdout.write(json.dumps(data, ensure_ascii=True, indent=indent) + "\n")
    sys.stdout.flush()


def ask(question: str) -> bool:
    """A yes/no question on stderr, answered on stdin; only call it when stdin is a terminal."""
    sys.stderr.write(clean(question) + " [y/N] ")
    sys.stderr.flush()
    return sys.stdin.readline().strip().lower() in ("y", "yes")


class StatusLine:
    """One live line on stderr when it is a terminal; otherwise a line per change of text."""

    def __init__(self) -> None:
        # a live line needs a terminal that understands ESC[2K: not TERM=dumb (Emacs shells, CI)
        self.live = sys.stderr.isatty() and os.environ.get("TERM", "") not in ("dumb", "")
        self.last = ""

    def show(self, text: str) -> None:
        if self.live:
            sys.stderr.write("\r\x1b[2K" + clean(text))
            sys.stderr.flush()
        elif text != self.last:
            sys.stderr.write(clean(text) + "\n")
        self.last = text

    def done(self) -> None:
        if self.live and self.last:
            sys.stderr.write("\n")
            self.last = ""


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def help_out(text: str) -> None:
    """A `--help` laid out by hand, fitted to the terminal's width in cells (Chinese lines too)."""
    import shutil  # lazy: off token's path

    from tui.core.text.textwidth import fit  # lazy: off token's path

    sys.stdout.write(fit(text, shutil.get_terminal_size((80, 24)).columns - 1))
