"""Device identity file (spec 2.7) and the identity headers (spec 4.7)."""

from __future__ import annotations

import os
import platform
import re
import time

from tui import __version__
from tui.core.files.atomic import atomic_write, ensure_private_dir
from tui.core.files.regular import NotRegularFile, TooLarge, read_regular
from tui.core.spec import paths
from tui.core.text.phrase import N_, Phrase

APP_TAG = "assistant-auth"
PLATFORM_ID = "assistant_code_cli"  # placeholder for the official CLI's platform identifier
FALLBACK_HOST = "unknown-host"

_UNSAFE = re.compile(r"[^\x20-\x7e]")


def _header_value(value: str) -> str:
    """Header values must be printable ASCII: anything else becomes `?`."""
    return _UNSAFE.sub("?", value).strip()


def generate_device_id() -> str:
    return f"{APP_TAG}-{time.time_ns():x}-{os.getpid()}"


MAX_DEVICE_ID = 128  # characters of the one line the file may hold


def read_device_id() -> tuple[str | None, str | None]:
    """(value, problem) of the device identity file, without creating or following anything.

    Only a regular file (never through a symlink, never a FIFO) of one printable ASCII line of at
    most 128 characters is used; anything else gives (None, why) and is never sent or rewritten.
    A missing or empty file gives (None, None): it may be created.
    """
    path = paths.device_id_path()
    try:
        raw = read_regular(path, 2 * MAX_DEVICE_ID, follow_symlinks=False)
    except FileNotFoundError:
        return None, None
    except NotRegularFile:
        return None, Phrase(N_("{path} is not a regular file: ignored"), path=path)
    except TooLarge:
        return None, Phrase(N_("{path} is longer than {most} characters: ignored"), path=path, most=MAX_DEVICE_ID)
    except OSError as exc:
        if os.path.islink(path):
            return None, Phrase(N_("{path} is a symbolic link: ignored"), path=path)
        return None, Phrase(N_("{path} cannot be read ({reason}): ignored"), path=path, reason=exc.strerror or exc)
    text = raw.decode("ascii", errors="replace").strip()
    if not text:
        return None, None
    if len(text) > MAX_DEVICE_ID:
        return None, Phrase(N_("{path} is longer than {most} characters: ignored"), path=path, most=MAX_DEVICE_ID)
    if any(not (0x20 <= ord(ch) <= 0x7E) for ch in text):
        return None, Phrase(N_("{path} holds more than one line of printable ASCII: ignored"), path=path)
    return text, None


def device_id() -> str | None:
    """The stored device id, created on first use; None when the file is unusable (then the
    header is left out, as spec 2.7 allows, and the file is left alone)."""
    value, problem = read_device_id()
    if value is not None or problem is not None:
        return value
    value = generate_device_id()
    path = paths.device_id_path()
    try:
        ensure_private_dir(path.parent)
        if not os.path.islink(path):
            atomic_write(path, (value + "\n").encode("ascii"), mode=0o600)
    except OSError:
        pass  # spec 2.7: a failed write is ignored
    return value


def host_name() -> str:
    return os.environ.get("COMPUTERNAME") or os.environ.get("HOSTNAME") or FALLBACK_HOST


def os_name() -> str:
    return {"Darwin": "macos"}.get(platform.system(), platform.system().lower() or "unknown")


def identity_headers() -> dict[str, str]:
    host = host_name()
    headers = {
        "X-Vendor-Platform": PLATFORM_ID,
        "X-Vendor-Version": __version__,
        "X-Vendor-Device-Name": host,
        "X-Vendor-Device-Model": f"{os_name()} {host}",
        "X-Vendor-Os-Version": os.environ.get("OS") or os_name(),
    }
    ident = device_id()
    if ident:
        headers["X-Vendor-Device-Id"] = ident
    cleaned = {name: _header_value(value) for name, value in headers.items()}
    return {name: value for name, value in cleaned.items() if value}
