"""`doctor`: named checks of the network path, the files, config.toml and the credentials."""

from tui.core.credentials.repairs import Repair
from tui.core.doctor.model import FAIL, OK, SKIP, WARN, Check, exit_code
from tui.core.doctor.report import (
    SCHEMA_VERSION,
    bug_report,
    first_to_look_at,
    status_label,
    summary,
    text_lines,
    to_json,
)
from tui.core.doctor.runner import apply_repair, local_checks, recheck, run_doctor

__all__ = [
    "FAIL",
    "OK",
    "SKIP",
    "WARN",
    "Check",
    "Repair",
    "exit_code",
    "SCHEMA_VERSION",
    "bug_report",
    "status_label",
    "text_lines",
    "to_json",
    "summary",
    "first_to_look_at",
    "apply_repair",
    "local_checks",
    "recheck",
    "run_doctor",
]
