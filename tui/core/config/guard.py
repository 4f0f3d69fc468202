"""One writer of config.toml at a time among ours: `flock` on the config directory itself (no
file of ours is added beside the user's), held from the read to the atomic rename, so two
`switch` commands (or a sign-in and a switch) never interleave their read-modify-write.

The official client takes no such lock; against it, the write re-reads the file right before
renaming (`provider.provision_managed_provider`) and starts over when it changed meanwhile.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

from tui.core.credentials.locks import lock_timeout, pause, report_wait
from tui.core.errors import AuthError, Problem
from tui.core.files.atomic import ensure_private_dir
from tui.core.spec import paths
from tui.core.system.locks import try_lock
from tui.core.text.phrase import N_, Phrase, said

WAIT = 15.0  # seconds: an edit of ours takes milliseconds; longer means a stopped process holds it
STEP = 0.02
SAY_AFTER = 1.0  # seconds of waiting before the wait is said
WAITING = N_("Waiting for the lock of {path}: another assistant-auth command is editing it (up to {seconds} s)…")


@contextlib.contextmanager
def config_edit() -> Iterator[None]:
    directory = paths.config_dir()
    try:
        ensure_private_dir(directory)
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        raise AuthError(f"Failed to write assistant config: {exc.strerror or exc}") from None
    try:
        wait = min(WAIT, lock_timeout())  # ASSISTANT_LOCK_TIMEOUT bounds this wait too, never lengthens it
        started = time.monotonic()
        deadline, said_it = started + wait, False
        while not try_lock(fd):  # held by another: wait (said once), or give up at the deadline
            if time.monotonic() > deadline:
                raise AuthError(
                    f"Gave up after {wait:g} s: another assistant-auth process is editing {paths.config_file()}",
                    Phrase(N_("If no other assistant-auth command is running, try again.")),
                    kind=Problem.LOCKED,
                )
            if not said_it and time.monotonic() - started >= SAY_AFTER:  # said once, where the person looks
                said_it = True
                report_wait(said(Phrase(WAITING, path=paths.config_file(), seconds=f"{wait:g}")))
            pause(STEP)  # a screen's Esc ends the wait at once
        yield
    finally:
        os.close(fd)  # closing releases the lock
