"""`assistant-auth doctor`: find what keeps a sign-in from working, and repair what is safe."""

from __future__ import annotations

import sys

from tui.cli.output import EXIT_ERROR, ask, err, out, out_json


def add_parser(sub) -> None:
    p = sub.add_parser(
        "doctor",
        help="diagnose the network path, files, config and credentials",
        description="Check the network path to each region's authorization host (proxy, CA bundle, DNS, "
        "TCP, TLS, an HTTP round trip that sends no credential, the clock), the private files, "
        "config.toml and every credential slot. Exit 0 when every check is ok or a warning, 1 when one "
        "fails (or a repair failed or was declined), 2 on a usage error.",
    )
    p.add_argument("--fix", action="store_true", help="offer each safe repair (asks before each one on a terminal)")
    p.add_argument("--yes", action="store_true", help="with --fix: apply every repair without asking (required without a terminal)")
    p.add_argument("--offline", action="store_true", help="skip every network check")
    p.add_argument("--probe", action="store_true",
                   help="also refresh the managed provider's slot (the only check that spends a refresh token)")
    output = p.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="one JSON object on stdout (schema_version 1)")
    output.add_argument("--report", action="store_true",
                        help="the whole result as JSON for a bug report: no secret, no personal data")


def _colour() -> bool:
    import os

    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def _print(checks) -> None:
    from tui.core.doctor import text_lines

    colours = {"ok": "32", "warn": "33", "fail": "31", "skip": "2"}
    paint = _colour()
    for status, line in text_lines(checks):
        if paint:
            from tui.terminal.text import clean

            head, _, rest = line.partition(" ")
            # our own colour codes around the symbol; the finding (file names, server text) cleaned
            sys.stdout.write(f"\x1b[{colours[status]}m{head}\x1b[0m {clean(rest)}\n")
        else:
            out(line)


def run(ns) -> int:
    import asyncio

    from tui.core.doctor import apply_repair, bug_report, exit_code, recheck, run_doctor, to_json

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
                err(f"  {check.repaired or 'not repaired: ' + str(check.repair_failed)}")
            else:
                check.repair_failed = "declined"
        if repaired:  # check again: what the repairs changed, and that nothing else did
            checks = recheck(checks, asyncio.run(run_doctor(offline=ns.offline, probe=False)))
    code = exit_code(checks)
    if ns.report:
        out_json(bug_report(checks, code))
    elif ns.json:
        out_json(to_json(checks, code))
    else:
        _print(checks)
        fixable = sum(1 for c in checks if c.repair is not None and not c.repaired and c.status != "ok")
        if fixable and not ns.fix:
            out(f"{fixable} problem(s) can be repaired safely: assistant-auth doctor --fix")
    return code
