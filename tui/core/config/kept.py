"""A copy of config.toml kept before an edit removes what the person wrote.

Spec 2.6 writes the managed provider's `api_key` as an empty string on every sign-in (and the
relay and `switch` write the same entry). An `api_key` someone put there is theirs: before it is
emptied, config.toml as it was is kept beside it, whole, as `config.toml.before-<time>` (yours
alone, never over an existing file), and the command says where and how to take it back."""

from __future__ import annotations

import os
import pathlib
import shlex
import time
from dataclasses import dataclass

from tui.core.config.read import parse_config_readonly
from tui.core.errors import AuthError
from tui.core.spec.keys import MANAGED_PROVIDER
from tui.core.text.phrase import N_, Phrase

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
KEPT_NOTE = N_(
    "The managed provider's api_key was emptied (the sign-in's tokens are used instead); config.toml as it was, "
    "with its api_key, is kept in {path}: `cp {path} {config}` takes it back."
)
KEPT_BEFORE_RELAY = N_("config.toml as it was is kept in {path}: `cp {path} {config}` undoes the change.")


@dataclass(frozen=True)
class Kept:
    """A copy kept: where it is, the config.toml it copies, and whether it holds an api_key the
    write emptied (else it is kept before the relay's change to a server's file)."""

    path: pathlib.Path
    config: pathlib.Path
    api_key: bool


def api_key_of_managed(text: str) -> bool:
    """config.toml's `text` gives the managed provider a non-empty `api_key` (one the spec's
    write would empty)."""
    try:
        providers = parse_config_readonly(text).get("providers")
    except AuthError:
        return False
    entry = providers.get(MANAGED_PROVIDER) if isinstance(providers, dict) else None
    key = entry.get("api_key") if isinstance(entry, dict) else None
    return isinstance(key, str) and key.strip() != ""


def keep(previous: str, config: pathlib.Path, now: float | None = None) -> Kept:
    """Write `previous` (config.toml's text) beside `config` as `config.toml.before-<time>`, mode
    0600, created new (never through a link, never over a file). OSError when it cannot be
    written: the edit that would lose the key is then not made."""
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(time.time() if now is None else now))
    data = previous.encode("utf-8")
    for counter in range(1, 100):
        suffix = f".before-{stamp}" if counter == 1 else f".before-{stamp}-{counter}"
        where = config.with_name(config.name + suffix)
        try:
            fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError:
            os.unlink(where)
            raise
        return Kept(where, config, api_key_of_managed(previous))
    raise FileExistsError(f"{config.name}.before-{stamp}")


def kept_note(kept: Kept) -> Phrase:
    """What a command says after keeping the copy: where it is, and the command that restores it."""
    return Phrase(
        KEPT_NOTE if kept.api_key else KEPT_BEFORE_RELAY,
        path=shlex.quote(str(kept.path)),
        config=shlex.quote(str(kept.config)),
    )
