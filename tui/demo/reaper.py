"""The demo's temporary home goes however the demo ends.

The demo removes its home itself when it ends (q, Ctrl+C, SIGTERM, the end of `--serve`), with
the terminating signals held meanwhile (`tui.core.signals.deaths_held`: a handler a terminal
driver left installed cannot cut the removal short), and says "removed" only when the directory is
gone. An ending that runs none of that (a lost terminal whose SIGHUP another handler takes, a
SIGKILL, a crash) is covered by a reaper: a small process of its own session, started with the
demo, that waits for the demo's end (its end of a pipe closes with the demo, however it dies) and
then removes the home. It holds no terminal and reads nothing else."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from tui.core.signals import deaths_held

# the reaper's whole program: wait for the pipe to close (the demo has ended), then remove the
# home, only if it is still a directory of this user's (never through a link)
REAPER = (
    "import os, shutil, stat, sys\n"
    "sys.stdin.buffer.read()\n"
    "home = sys.argv[1]\n"
    "try:\n"
    "    info = os.lstat(home)\n"
    "except OSError:\n"
    "    sys.exit(0)\n"
    "if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():\n"
    "    shutil.rmtree(home, ignore_errors=True)\n"
)


class Reaper:
    """The reaper of one demo home: started with `start`, told nothing more (the demo's end is
    what it waits for)."""

    def __init__(self, home: str) -> None:
        self.home = home
        self._write: int | None = None

    def start(self) -> None:
        read, self._write = os.pipe()  # neither end is inherited by any other child
        try:
            subprocess.Popen(  # noqa: S603 - this interpreter, our own program text
                [sys.executable, "-I", "-c", REAPER, self.home],
                stdin=read,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a lost terminal's SIGHUP is not its
                close_fds=True,
                cwd="/",
            )
        except OSError:
            os.close(self._write)  # no reaper: the demo's own removal is all there is
            self._write = None
        finally:
            os.close(read)


def remove(home: str) -> str | None:
    """Remove the demo's home, the terminating signals held meanwhile; None when it is gone, else
    why not (the first error met)."""
    errors: list[str] = []

    def note(_function: object, path: str, exc: BaseException) -> None:
        errors.append(f"{path}: {getattr(exc, 'strerror', None) or exc}")

    with deaths_held():
        if sys.version_info >= (3, 12):
            shutil.rmtree(home, onexc=note)
        else:  # pragma: no cover - Python 3.10, 3.11
            shutil.rmtree(home, onerror=lambda function, path, info: note(function, path, info[1]))
    if not os.path.lexists(home):
        return None
    return errors[0] if errors else "it is still there"
