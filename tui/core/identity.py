"""Device identity file (spec 2.7) and the identity headers (spec 4.7)."""

from __future__ import annotations

import os
import platform
import re
import time

from . import paths
from .atomic import ensure_private_dir

APP_TAG = "assistant-auth"
PLATFORM_ID = "assistant_code_cli"  # placeholder for the official CLI's platform identifier
FALLBACK_HOST = "unknown-host"

_UNSAFE = re.compile(r"[^\x20-\x7e]")


def _header_value(value: str) -> str:
    """Header values must be printable ASCII: anything else becomes `?`."""
    return _UNSAFE.sub("?", value).strip()


def generate_device_id() -> str:
    return f"{APP_TAG}-{time.time_ns():x}-{os.getpid()}"


def device_id() -> str | None:
    """The stored device id, created on first use; None only when nothing usable can be had."""
    path = paths.device_id_path()
    try:
        existing = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        existing = ""
    if existing:
        return existing
    value = generate_device_id()
    try:
        ensure_private_dir(path.parent)
        path.write_text(value + "\n", encoding="utf-8")
    except OSError:
        pass  # spec 2.7: a failed write is ignored
    return value


def host_name() -> str:
    return os.environ.get("COMPUTERNAME") or os.environ.get("HOSTNAME") or FALLBACK_HOST


def os_name() -> str:
    return {"Darwin": "macos"}.get(platform.system(), platform.system().lower() or "unknown")


def identity_headers() -> dict[str, str]:
    from tui import __version__

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
