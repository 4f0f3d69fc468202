"""What a doctor check finds: a named status, one sentence, the fix, and maybe a safe repair."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tui.core.credentials.repairs import (
    Repair,  # every repair of a check goes through tui.core.credentials.repairs
)
from tui.core.slots.state import slot_title
from tui.core.text.untrusted import one_line

SLOT_CHECKS = ("credentials.", "files.slot.")  # checks named after a slot's file
FINDING_WIDTH = 1000  # characters of a finding's one line (paths can be long)

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"
STATUSES = (OK, WARN, FAIL, SKIP)


@dataclass
class Check:
    name: str  # stable, dotted: "network.cn.tls", "files.slot.assistant-code"
    status: str  # ok | warn | fail | skip
    finding: str  # one sentence: what is true
    fix: str = ""  # one sentence: what to do, when something is wrong
    details: dict[str, Any] = field(default_factory=dict)  # plain JSON values (timings in ms, hosts, modes)
    repair: Repair | None = None
    repaired: str | None = None  # what a repair did, once applied
    repair_failed: str | None = None  # why a repair failed or was declined

    def __post_init__(self) -> None:
        # one printable line each, by construction: file names, issuers and server text go in here
        self.name = one_line(self.name, FINDING_WIDTH)
        self.finding = one_line(self.finding, FINDING_WIDTH)
        self.fix = one_line(self.fix, FINDING_WIDTH)

    @property
    def label(self) -> str:
        """The check as a person reads it: a slot named as Home names it (`credentials.global`,
        `files.slot.work (cn)`); `name` stays the stable id (`--json`)."""
        for prefix in SLOT_CHECKS:
            if self.name.startswith(prefix):
                return prefix + slot_title(self.name.removeprefix(prefix), 40)
        return self.name

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "label": self.label,  # the name as the text output prints it (a slot named as Home names it)
            "status": self.status,
            "finding": self.finding,
            "fix": self.fix or None,
        }
        data["details"] = self.details
        data["repair"] = self.repair.change if self.repair else None
        if self.repaired is not None:
            data["repaired"] = self.repaired
        if self.repair_failed is not None:
            data["repair_failed"] = self.repair_failed
        return data


def exit_code(checks: list[Check]) -> int:
    """0 when every check is ok, warn or skipped; 1 when one failed (a repair that failed or was
    declined leaves it at 1)."""
    failed = any(c.status == FAIL and c.repaired is None for c in checks)
    return 1 if failed or any(c.repair_failed for c in checks) else 0
