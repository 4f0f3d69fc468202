"""Time as people read it, for every face (the CLI, the screens, doctor): pure functions."""

from __future__ import annotations

import time

from tui.core.text.i18n import _


def clock(seconds: float) -> str:
    """`14:05`, or `1:02:03` past an hour; never negative (a countdown)."""
    total = max(int(seconds), 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def relative(seconds: float) -> str:
    """`in 14 min`, `3 h ago`, `in 5 s` ... (each a whole phrase of the catalog)."""
    future = seconds >= 0
    value = abs(seconds)
    if value < 60:
        phrase, n = (_("in {n} s") if future else _("{n} s ago")), str(int(value))
    elif value < 3600:
        phrase, n = (_("in {n} min") if future else _("{n} min ago")), str(int(value // 60))
    elif value < 86400 * 2:
        phrase, n = (_("in {n} h") if future else _("{n} h ago")), f"{value / 3600:.1f}".removesuffix(".0")
    else:
        phrase, n = (_("in {n} days") if future else _("{n} days ago")), str(int(value // 86400))
    return phrase.format(n=n)


def stamp(epoch: float) -> str:
    """Local date and time; values no calendar can hold (a server's absurd expires_in) say so."""
    try:
        return time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(epoch))
    except (OverflowError, ValueError, OSError):
        return _("far future") if epoch > 0 else _("far past")


def expiry(expires_at: float | None, now: float | None = None) -> str:
    if expires_at is None:
        return _("no expiry recorded")
    if expires_at <= 0:  # the official client's sign-out mark, or a file that never had one
        return _("never (expires_at is 0)")
    now = time.time() if now is None else now
    return _("{date} ({relative})").format(date=stamp(expires_at), relative=relative(expires_at - now))
