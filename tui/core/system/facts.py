"""Which system's facts this process reads, chosen once: the system it runs on, none at all, or a
simulated macOS or FreeBSD.

`ASSISTANT_AUTH_SYSTEM` says which, read at the first question:

- unset: this system (`sys.platform`), its kernel asked;
- `none`: every fact about other processes taken away (no peer credentials, no process table),
  as on a system that says nothing: what a decision resting on those facts does there can be
  tried on any machine;
- `darwin` or `freebsd`, on Linux only: that system's readers (`LOCAL_PEERCRED`'s `xucred`,
  `LOCAL_PEERPID`, `KERN_PROCARGS2`, `proc_bsdinfo`, `KERN_PROC_ARGS`, `ps`) fed answers built
  from Linux's own (`tui.core.system.simulated`), and its other ways (no `/proc`, the agent's
  place in the home): the whole macOS or FreeBSD path runs here.

The project's tests run the agent's own tests under each; a person can too. Plain `os` and `sys`:
on `token`'s path through the agent."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `from typing import`: on `token`'s path through the agent
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Mapping

VARIABLE = "ASSISTANT_AUTH_SYSTEM"
NONE = "none"
SIMULATED = ("darwin", "freebsd")


class System:
    """The system whose facts are read: `platform` (a `sys.platform` value, or "none"), the socket
    option reader (None: the kernel's `getsockopt`) and the process table's kernel (None: the real
    one), and whether it is simulated."""

    __slots__ = ("kernel", "option", "platform", "simulated")

    def __init__(
        self,
        platform: str,
        option: Callable[..., bytes | None] | None = None,
        kernel: object | None = None,
        simulated: bool = False,
    ) -> None:
        self.platform = platform
        self.option = option
        self.kernel = kernel
        self.simulated = simulated

    @property
    def says_nothing(self) -> bool:
        return self.platform == NONE

    @property
    def has_proc(self) -> bool:
        """Linux's `/proc` is there to read (not on a simulated system, not with none)."""
        return self.platform.startswith("linux")

    @property
    def has_runtime_dir(self) -> bool:
        """The system's sessions have a private runtime directory (`XDG_RUNTIME_DIR`: Linux's
        logind) where the agent's stable socket lives; elsewhere it lives in the home."""
        return self.platform.startswith("linux") or self.platform == NONE


_chosen: list[System] = []


def platform_named(word: str) -> str:
    """The platform `word` names (a value of ASSISTANT_AUTH_SYSTEM): "none", a simulated one (on
    Linux), else this system's `sys.platform`."""
    word = word.strip().lower()
    if word == NONE:
        return NONE
    if word in SIMULATED and sys.platform.startswith("linux"):
        return SIMULATED_PLATFORM[word]
    return sys.platform


SIMULATED_PLATFORM = {"darwin": "darwin", "freebsd": "freebsd14"}


def platform() -> str:
    """The platform whose facts this process reads (cheap: the system itself is built at the first
    question that needs it)."""
    return _chosen[0].platform if _chosen else platform_named(os.environ.get(VARIABLE, ""))


def choose(word: str) -> System:
    """The system `word` names (a value of ASSISTANT_AUTH_SYSTEM); this one for anything else."""
    named = platform_named(word)
    if named == NONE:
        return System(NONE)
    if named != sys.platform:
        from tui.core.system.simulated import simulated  # lazy: only when a simulated system is asked for

        option, kernel = simulated(named)
        return System(named, option, kernel, simulated=True)
    return System(sys.platform)


def chosen() -> System:
    """The system this process reads, chosen at the first question and kept."""
    if not _chosen:
        _chosen.append(choose(os.environ.get(VARIABLE, "")))
    return _chosen[0]


def use(word: str) -> System:
    """Read the system `word` names from now on (a test's fixture, for agents in its own process);
    the one read until now is returned, to be put back with `use_system`."""
    before = chosen()
    _chosen[0] = choose(word)
    return before


def use_system(system: System) -> None:
    chosen()
    _chosen[0] = system


def in_ssh_session(env: Mapping[str, str] | None = None) -> bool:
    """This process runs in a session an SSH server started (sshd sets these for every session):
    the machine is one reached over SSH, whatever a socket's name says."""
    env = os.environ if env is None else env
    return bool(env.get("SSH_CONNECTION") or env.get("SSH_TTY") or env.get("SSH_CLIENT"))
