"""The result for people, for scripts and for a bug report (`--report`: nothing personal)."""

from __future__ import annotations

import os
import platform
import socket
from importlib import metadata
from typing import Any

from tui.core.credentials.jwt import decode_claims
from tui.core.doctor.model import Check
from tui.core.slots.state import list_slots
from tui.core.spec import paths
from tui.core.text.i18n import _, ngettext
from tui.core.text.phrase import N_, said
from tui.core.text.redact import redact
from tui.core.text.textwidth import cells
from tui.core.text.untrusted import one_line

SCHEMA_VERSION = 1  # of `doctor --json` and `--report`


def to_json(checks: list[Check], exit_code: int) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "exit_code": exit_code, "checks": [c.to_dict() for c in checks]}


def _personal(checks: list[Check]) -> list[tuple[str, str]]:
    """(text, replacement) pairs, longest first: identities, device id, host name, home paths."""
    pairs: dict[str, str] = {}
    for check in checks:
        for key, label in (("identity", "<identity>"), ("device_id", "<device-id>")):
            value = check.details.get(key)
            if isinstance(value, str) and value:
                pairs[value] = label

    for status in list_slots():  # every claim that names the person, not only the one shown
        claims = decode_claims(status.fields.get("access_token")) or {}
        for claim in ("name", "preferred_username", "email", "sub", "given_name", "family_name"):
            value = claims.get(claim)
            if isinstance(value, str) and len(value) >= 2:
                pairs[value] = "<identity>"
    host = socket.gethostname()
    if host:
        pairs[host] = "<local-host>"
    pairs[str(paths.config_dir())] = "<config_dir>"
    home = os.path.expanduser("~")
    if home and home != "/":
        pairs[home] = "~"
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


def _scrub(value: Any, pairs: list[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for text, replacement in pairs:
            value = value.replace(text, replacement)
        return redact(value)
    if isinstance(value, dict):
        return {k: _scrub(v, pairs) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v, pairs) for v in value]
    return value


def environment(over_ssh: bool) -> dict[str, Any]:
    """What a bug report needs about where it ran: versions, the OS, the terminal type and
    whether it runs over SSH (yes/no: never an address)."""

    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    return {
        "tool": version("assistant-auth"),
        "python": platform.python_version(),
        "textual": version("textual"),
        "httpx": version("httpx"),
        "os": f"{platform.system()} {platform.release()}",
        "terminal": os.environ.get("TERM") or None,
        "over_ssh": "yes" if over_ssh else "no",
    }


def bug_report(checks: list[Check], exit_code: int, over_ssh: bool = False) -> dict[str, Any]:
    """The whole result with no token, refresh token, device code or api_key (there are none in
    it, and `redact` runs over every string anyway) and nothing personal: identities, the device
    id, the local host name and home path are replaced. Authorization host names are kept."""
    data = {"schema_version": SCHEMA_VERSION, "environment": environment(over_ssh), **to_json(checks, exit_code)}
    data["redacted"] = "identities, device id, local host name and home path replaced"
    scrubbed: dict[str, Any] = _scrub(data, _personal(checks))
    return scrubbed


SYMBOLS = {"ok": "✔", "warn": "!", "fail": "✘", "skip": "-"}
WORDS = {"ok": N_("ok"), "warn": N_("warn"), "fail": N_("fail"), "skip": N_("skip")}
INDENT = " " * 11  # a check's further lines, under its name


def status_label(status: str, width: int = 0) -> str:
    """ "✔ ok", "✘ fail": a symbol and the word (in the reader's language), so a status reads
    without colour too; padded to `width` terminal cells when given."""
    word = _(WORDS[status])
    return f"{SYMBOLS[status]} {word}" + " " * max(width - cells(word), 0)


def text_lines(checks: list[Check]) -> list[tuple[str, str]]:
    """(status, line) per check, for a person: a symbol and the status word, so it reads without
    colour; findings said in the reader's language (they are English as data)."""
    lines = []
    for check in checks:
        line = f"{status_label(check.status, 4)} {check.label}: {said(check.finding)}"
        if check.fix and check.status in ("warn", "fail"):
            line += "\n" + INDENT + _("fix: {fix}").format(fix=said(check.fix))
        if check.repaired:
            line += "\n" + INDENT + _("repaired: {what}").format(what=said(one_line(check.repaired, 1000)))
        if check.repair_failed:
            line += "\n" + INDENT + _("not repaired: {why}").format(why=said(one_line(check.repair_failed, 1000)))
        lines.append((check.status, line))
    return lines


def summary(checks: list[Check]) -> str:
    """ "0 failed · 2 warnings · 21 ok": the same last line for the text output and the screen."""
    counts = {status: sum(1 for c in checks if c.status == status) for status in ("fail", "warn", "ok")}
    warnings = ngettext("{n} warning", "{n} warnings", counts["warn"]).format(n=counts["warn"])
    return _("{failed} failed · {warnings} · {ok} ok").format(failed=counts["fail"], warnings=warnings, ok=counts["ok"])


def first_to_look_at(checks: list[Check]) -> int:
    """The index of the first failure, else the first warning, else 0."""
    for status in ("fail", "warn"):
        for index, check in enumerate(checks):
            if check.status == status:
                return index
    return 0
