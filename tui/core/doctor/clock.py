"""The clock against an authorization server's: tokens carry times, and a machine whose clock is
off by minutes sees them as expired or not yet valid. Judged from the Date header of doctor's one
HTTP answer, at the middle of the request."""

from __future__ import annotations

import email.utils

from tui.core.doctor.model import FAIL, OK, SKIP, WARN, Check
from tui.core.text.phrase import N_, Phrase

CLOCK_WARN = 30  # seconds: the expiry leeway
CLOCK_FAIL = 300  # seconds


def clock_check(region: str, date: str | None, asked_at: float) -> Check:
    """`date` (the server's Date header, if any) against this machine's time when it asked."""
    parsed = email.utils.parsedate_to_datetime(date) if date else None
    if parsed is None:
        text = N_("{region}: the server sent no Date header; the clock is not checked.")
        return Check(f"clock.{region}", SKIP, Phrase(text, region=region))
    skew = asked_at - parsed.timestamp()
    details = {"skew_s": round(skew, 1)}
    seconds = f"{abs(skew):.0f}"
    fix = Phrase(N_("Turn on time synchronisation (NTP: `timedatectl set-ntp true`, or your OS's date settings)."))
    if abs(skew) > CLOCK_WARN:
        ahead = skew > 0
        if abs(skew) > CLOCK_FAIL:
            text = (
                N_(
                    "{region}: this machine's clock is {n} s ahead of the server's. Tokens will look expired or not yet valid."
                )
                if ahead
                else N_(
                    "{region}: this machine's clock is {n} s behind the server's. Tokens will look expired or not yet valid."
                )
            )
            return Check(f"clock.{region}", FAIL, Phrase(text, region=region, n=seconds), fix, details)
        text = (
            N_("{region}: this machine's clock is {n} s ahead of the server's. Over the {leeway} s expiry leeway.")
            if ahead
            else N_("{region}: this machine's clock is {n} s behind the server's. Over the {leeway} s expiry leeway.")
        )
        return Check(f"clock.{region}", WARN, Phrase(text, region=region, n=seconds, leeway=CLOCK_WARN), fix, details)
    finding = Phrase(N_("{region}: this machine's clock is {n} s off the server's."), region=region, n=seconds)
    return Check(f"clock.{region}", OK, finding, "", details)
