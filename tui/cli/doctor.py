"""`assistant-auth doctor`: find what keeps a sign-in from working, and repair what is safe."""

from __future__ import annotations

import asyncio
import os
import sys

from tui.cli.output import EXIT_ERROR, ask, err, out, out_json
from tui.core.doctor import (
    apply_repair,
    bug_report,
    exit_code,
    recheck,
    run_doctor,
    summary,
    text_lines,
    to_json,
)
from tui.core.humantime import plural
from tui.core.untrusted import clean, one_line
from tui.terminal.environment import in_ssh


def _colour() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _print(checks) -> None:
    colours = {"ok": "32", "warn": "33", "fail": "31", "skip": "2"}
    paint = _colour()
    for status, line in text_lines(checks):
        if paint:
            head, _, rest = line.partition(" ")
            # our own colour codes around the symbol; the finding (file names, server text) cleaned
            sys.stdout.write(f"\x1b[{colours[status]}m{head}\x1b[0m {clean(rest)}\n")
        else:
            out(line)


def run(ns) -> int:
    if ns.yes and not ns.fix:
        err("assistant-auth doctor: --yes only goes with --fix")
        return EXIT_ERROR
    interactive = sys.stdin.isatty()
    if ns.fix and not ns.yes and not interactive:
        err("assistant-auth doctor: --fix asks before each change; without a terminal add --yes")
        return EXIT_ERROR
    quiet = ns.json or ns.report
    progress = None if quiet or not sys.stderr.isatty() else err
    checks = asyncio.run(run_doctor(offline=ns.offline, probe=ns.probe, progress=progress))
    if ns.fix:
        repaired = False
        for check in checks:
            if check.repair is None:
                continue
            if ns.yes or ask(f"{check.name}: {check.finding}\n  Repair: {check.repair.change}?"):
                apply_repair(check)
                repaired = repaired or check.repaired is not None
                err(one_line(f"  {check.repaired or 'not repaired: ' + str(check.repair_failed)}", 1000))
            else:
                check.repair_failed = "declined"
        if repaired:  # check again: what the repairs changed, and that nothing else did
            checks = recheck(checks, asyncio.run(run_doctor(offline=ns.offline, probe=False)))
    code = exit_code(checks)
    if ns.report:
        out_json(bug_report(checks, code, in_ssh()), indent=2)  # for reading and pasting
    elif ns.json:
        out_json(to_json(checks, code))
    else:
        _print(checks)
        out(summary(checks))
        fixable = sum(1 for c in checks if c.repair is not None and not c.repaired and c.status != "ok")
        if fixable and not ns.fix:
            out(f"{plural(fixable, 'problem')} can be repaired safely: assistant-auth doctor --fix")
    return code
