"""Where an agent's socket lives (0600 from the moment it exists):

- where the person says (`agent -a PATH`, as ssh-agent's `-a`);
- else at one stable path, `$XDG_RUNTIME_DIR/assistant-auth/agent.sock`, when that runtime
  directory is a private one of ours: every login shell, the user service and `~/.ssh/config`
  find the same agent, and a second `agent` finds it running (gpg-agent's way);
- else in a new private directory (0700) made for it, like ssh-agent's
  `$TMPDIR/ssh-XXXXXXXXXX/agent.<pid>`, removed with the socket when the agent stops.

A path others find by name is bound under a lock beside it (`<path>.lock`): a dead socket of ours
there is replaced, a live one is AlreadyRunning, anything else is refused. The agent removes only
the socket it bound itself (the same inode), never one bound there since."""

from __future__ import annotations

import contextlib
import os
import pathlib
import secrets
import stat
import tempfile
import time
from typing import TYPE_CHECKING

from tui.core.agent.wire.naming import (
    HOME_DIR,
    KEY_HEX,
    PID_ENV,
    SOCKET_ENV,
    STABLE_DIR,
    STABLE_NAME,
    SUN_PATH,
    ended_of,
    fits,
    key_of,
    lock_of,
)
from tui.core.files.atomic import ensure_private_dir
from tui.core.spec import paths
from tui.core.spec.digest import sha256_hex
from tui.core.system.endpoint import Stranger, connect_checked
from tui.core.system.facts import chosen
from tui.core.system.locks import lock as take_lock
from tui.core.system.unix import listen_private
from tui.core.text.phrase import N_, Phrase

if TYPE_CHECKING:
    import socket

__all__ = [
    "PID_ENV",
    "SOCKET_ENV",
    "AlreadyRunning",
    "NoPlace",
    "fits",
    "listen",
    "remove",
    "stable_path",
    "write_answer_key",
]


PREFIX = "assistant-auth-"


NO_PLACE = N_(
    "assistant-auth: no directory can hold the agent's socket: {tried}. A socket's path must be shorter than "
    "{limit} bytes: set TMPDIR to a short directory of yours (export TMPDIR=/tmp), then start it again"
)


class NoPlace(Exception):
    """No directory can hold the agent's socket; the message says why and what to do."""


def _bases() -> list[str]:
    """Where the agent's directory may go, in order: `$XDG_RUNTIME_DIR` when it is a private
    directory of ours (a login session's), the system's temporary directory (`$TMPDIR`), /tmp.
    The new directory is private in each."""
    runtime = _private_runtime()
    bases = [runtime] if runtime else []
    for base in (tempfile.gettempdir(), "/tmp"):  # noqa: S108 - the short base of last resort
        if base not in bases:
            bases.append(base)
    return bases


def _socket_name() -> str:
    return f"agent.{os.getpid()}"


def _directory(bases: list[str]) -> str:
    """A new private directory under the first base where the socket's path fits (NoPlace, said,
    when none can hold it)."""
    tried = []
    for base in bases:
        longest = os.path.join(base, PREFIX + "x" * 8, _socket_name())  # mkdtemp's name: 8 characters
        if not fits(longest):
            tried.append(f"{base} ({len(os.fsencode(longest))} bytes)")
            continue
        try:
            return tempfile.mkdtemp(prefix=PREFIX, dir=base)  # 0700, O_EXCL
        except OSError as exc:
            tried.append(f"{base} ({exc.strerror or exc})")
    raise NoPlace(Phrase(NO_PLACE, tried="; ".join(tried), limit=SUN_PATH))


def listen(directory: str | None = None, at: str | None = None, private: bool = False) -> tuple[socket.socket, str]:
    """A listening Unix socket: (the socket, its path). At `at` when given (`agent -a PATH`); else
    at the stable path (`stable_path`: a private `$XDG_RUNTIME_DIR`), so login shells, a user
    service and `~/.ssh/config` agree; else (or with `private`: an agent for one connection, which
    never takes the place every shell finds) in a new private directory under the first base that
    fits. Bound before the agent forks, so the path printed is one that answers. NoPlace when no
    place can hold it; AlreadyRunning when an agent answers at the stable or given path."""
    if at is not None:
        return _listen_at(os.path.abspath(at), make_parent=False), os.path.abspath(at)
    stable = stable_path() if directory is None and not private else None
    if stable is not None:
        return _listen_at(stable, make_parent=True), stable
    where = _directory([directory] if directory else _bases())
    path = os.path.join(where, _socket_name())
    return _bound(path), path


def _bound(path: str) -> socket.socket:
    """A socket listening at `path`, 0600 from the moment it exists (`unix.listen_private`); on
    failure its new directory goes too."""
    try:
        listener, _ours[path] = listen_private(path)
    except BaseException:
        remove(path)
        raise
    return listener


def mark_ended(path: str) -> None:
    """Leave a word beside the socket that the agent stopped because its --lifetime ended: a client
    there then says so, not "Broken pipe". Removed when an agent listens there again."""
    with contextlib.suppress(OSError):
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(ended_of(path), flags, 0o600)  # O_NONBLOCK: a FIFO at the name fails at once, never waits
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.write(fd, str(int(time.time())).encode("ascii"))
        finally:
            os.close(fd)


def remove(path: str) -> None:
    """The socket this process bound at `path` (never one another agent bound there since), the
    answer key it wrote there (the same file, never whatever is at the name now), and its
    directory when this agent made it (a new private one: never another's)."""
    with contextlib.suppress(OSError):
        if _ours.pop(path, None) == os.lstat(path).st_ino:
            os.unlink(path)
    with contextlib.suppress(OSError):
        if _our_keys.pop(path, None) == os.lstat(key_of(path)).st_ino:
            os.unlink(key_of(path))
    where = os.path.dirname(path)
    name = os.path.basename(where)
    if name.startswith(PREFIX) and len(name) == len(PREFIX) + 8:  # made by mkdtemp for this agent
        with contextlib.suppress(OSError):
            os.rmdir(where)


# -- a stable place: one agent per user, found by every shell ----------------------------------------

_ours: dict[str, int] = {}  # path -> the inode of the socket this process bound there
_our_keys: dict[str, int] = {}  # socket path -> the inode of the answer key this process wrote beside it


def ownership(path: str) -> tuple[int | None, int | None]:
    """(the socket's inode, the answer key's inode) this process made at `path`: what a background
    agent it starts is handed (`adopt`), so that agent too removes only what was made for it."""
    return _ours.get(path), _our_keys.get(path)


def adopt(path: str, socket_inode: int | None, key_inode: int | None) -> None:
    """Take over what the process that started this one made at `path` (see `ownership`)."""
    if socket_inode is not None:
        _ours[path] = socket_inode
    if key_inode is not None:
        _our_keys[path] = key_inode


class AlreadyRunning(Exception):
    """An agent already answers at the path (`.path`): a second one is not started."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def stable_path() -> str | None:
    """`$XDG_RUNTIME_DIR/assistant-auth/agent.sock` when that directory is a private one of ours
    (a login session's, a user service's); on a system whose sessions have no such directory
    (macOS, the BSDs), `<config dir>/agent/agent.sock`, a private directory in the home that
    survives reboots and temporary-file cleaners (gpg-agent's place there); else None (Linux
    without one: a new directory each time). None too when the path does not fit a socket address.
    Each home its own: an agent serving another `ASSISTANT_CODE_HOME` has `agent-<hash>.sock`
    in the runtime directory (gpg-agent's way for a non-default GNUPGHOME), so no shell is
    pointed at an agent that serves another home's sign-in."""
    home = paths.config_dir_str()
    runtime = _private_runtime()
    if runtime is not None:
        path = os.path.join(runtime, STABLE_DIR, stable_name(home))
    elif not chosen().has_runtime_dir:
        path = os.path.join(home, HOME_DIR, STABLE_NAME)
    else:
        return None
    return path if fits(path) else None


def stable_name(home: str) -> str:
    """The stable socket's name for the config dir `home`: `agent.sock` for the default one,
    `agent-<8 hex of its real path's SHA-256>.sock` for any other."""
    default = os.path.join(os.path.expanduser("~"), paths.DEFAULT_DIR_NAME)
    real = os.path.realpath(home)
    if real == os.path.realpath(default):
        return STABLE_NAME
    return f"agent-{sha256_hex(os.fsencode(real))[:8]}.sock"


def _private_runtime() -> str | None:
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if not runtime or not os.path.isabs(runtime):
        return None
    try:
        info = os.stat(runtime)
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077
    return runtime if private else None


def _listen_at(path: str, make_parent: bool) -> socket.socket:
    """Bind at a path that others find by name: its directory private (made when `make_parent`),
    a dead socket of ours there replaced, a live one AlreadyRunning, anything else refused. Under
    a lock beside it, so two agents starting at once never remove each other's socket."""
    if not fits(path):
        raise NoPlace(Phrase(TOO_LONG, path=path, length=len(os.fsencode(path)), limit=SUN_PATH))
    parent = os.path.dirname(path)
    if make_parent:
        with contextlib.suppress(OSError):  # already there, or cannot be made: the look below says which
            ensure_private_dir(pathlib.Path(parent))  # the config dir too, on a fresh Mac
    try:
        info = os.lstat(parent)
    except OSError as exc:
        raise NoPlace(Phrase(CANNOT_BIND, path=path, reason=exc.strerror or str(exc))) from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise NoPlace(Phrase(CANNOT_BIND, path=path, reason=Phrase(N_("its directory is not a private one of yours"))))
    try:
        lock = os.open(lock_of(path), os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:
        raise NoPlace(Phrase(CANNOT_BIND, path=path, reason=exc.strerror or str(exc))) from None
    try:
        take_lock(lock)
        _clear(path)
        _clear_leftovers(path)
        return _bound(path)
    finally:
        os.close(lock)


def _clear_leftovers(path: str) -> None:
    """What a dead agent left beside its socket (its answer key, the word that its lifetime ended)
    goes with it, under the same rules and the same lock: a regular file of ours only. Anything
    else at those names (a link, a directory, another user's file) is left alone, and a start that
    needs the name then says so (`write_answer_key` never writes through it)."""
    for name in (key_of(path), ended_of(path)):
        try:
            info = os.lstat(name)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
            with contextlib.suppress(OSError):
                os.unlink(name)


def _clear(path: str) -> None:
    """Nothing at `path`, a dead socket of ours there removed; AlreadyRunning when one answers."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode) or info.st_uid != os.geteuid():
        raise NoPlace(
            Phrase(CANNOT_BIND, path=path, reason=Phrase(N_("something else is there, not an agent's socket")))
        )
    try:
        connect_checked(path, 2).close()  # the one checked connect: a live agent of this person's
    except (ConnectionRefusedError, FileNotFoundError):
        os.unlink(path)  # a socket nobody listens on: an agent that was killed
        return
    except (Stranger, OSError):
        pass  # it exists and did not refuse (or another user serves it): taken as live, never removed
    raise AlreadyRunning(path)


TOO_LONG = N_("assistant-auth: the socket path {path} is {length} bytes: a socket's path must be shorter than {limit}")
CANNOT_BIND = N_("assistant-auth: the agent cannot listen at {path}: {reason}")


# -- who may answer `--confirm`'s questions ---------------------------------------------------------
#
# A wizard answers for the agent only when it runs on the agent's own machine, as the agent's
# user: it proves it by reading a random key from the agent's private directory. A process on a
# server, reaching the agent through the forwarded socket, cannot read that file; whatever
# forwards the socket (ssh, socat, …) is never the peer that matters.


def write_answer_key(path: str) -> str:
    """A new random key beside the agent's socket `path` (0600, created, never through a link)."""
    key = secrets.token_hex(KEY_HEX // 2)
    where = key_of(path)
    # whole or not at all: written to a private temporary file, then linked to its name (which
    # fails when the name exists, as O_EXCL did); a reader never finds it empty or half written
    tmp = f"{where}.{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            os.write(fd, key.encode("ascii"))
            os.fsync(fd)
            inode = os.fstat(fd).st_ino
        finally:
            os.close(fd)
        os.link(tmp, where)
    finally:
        os.unlink(tmp)
    _our_keys[path] = inode
    return key
