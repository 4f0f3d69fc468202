"""A duration as ssh-agent and sshd read one (sshd_config(5), TIME FORMATS): a number of seconds
(`90`), or numbers each followed by a unit, added up (`30m`, `1h30m`, `2d`, `1w`): s seconds,
m minutes, h hours, d days, w weeks, either case. Pure."""

from __future__ import annotations

import re

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"(\d+)([smhdwSMHDW]?)")


def parse_duration(text: str) -> int:
    """Seconds in `text`; ValueError when it is not a duration (empty, a sign, a fraction, an
    unknown unit, spaces)."""
    if not text or len(text) > 64 or not text.isascii():
        raise ValueError(text)
    total, position = 0, 0
    for match in _PART.finditer(text):
        if match.start() != position:
            raise ValueError(text)
        number, unit = match.groups()
        total += int(number) * UNITS[unit.lower() or "s"]
        position = match.end()
        if not unit and position != len(text):  # a bare number only at the end (`1h30`: 30 s)
            raise ValueError(text)
    if position != len(text):
        raise ValueError(text)
    return total


def format_duration(seconds: int) -> str:
    """The shortest spelling `parse_duration` reads back as `seconds` (`1h30m`)."""
    if seconds <= 0:
        return "0"
    parts = []
    for unit in "wdhms":
        count, seconds = divmod(seconds, UNITS[unit])
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
