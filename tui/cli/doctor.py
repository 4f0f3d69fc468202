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
from tui.core.text.i18n import _, ngettext
from tui.core.text.phrase import N_, Phrase, said
from tui.core.text.untrusted import clean, one_line
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
        err(_("assistant-auth doctor: --yes only goes with --fix"))
        return EXIT_ERROR
    interactive = sys.stdin.isatty()
    if ns.fix and not ns.yes and not interactive:
        err(_("assistant-auth doctor: --fix asks before each change; without a terminal add --yes"))
        return EXIT_ERROR
    quiet = ns.json or ns.report
    progress = None if quiet or not sys.stderr.isatty() else err
    checks = asyncio.run(run_doctor(offline=ns.offline, probe=ns.probe, progress=progress))
    if ns.fix:
        repaired = False
        for check in checks:
            if check.repair is None:
                continue
            if check.repair.preview:  # what changes, line by line, before the question
                err(check.repair.preview.rstrip("\n"))
            question = _("{check}: {finding}\n  Repair: {change}?").format(
                check=check.label, finding=said(check.finding), change=said(check.repair.change)
            )
            if ns.yes or ask(question):
                apply_repair(check)
                repaired = repaired or check.repaired is not None
                if check.repaired:
                    err("  " + said(one_line(check.repaired, 1000)))
                else:
                    err("  " + _("not repaired: {why}").format(why=said(one_line(check.repair_failed or "", 1000))))
            else:
                check.repair_failed = Phrase(N_("declined"))
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
            out(
                ngettext(
                    "{n} problem can be repaired safely: assistant-auth doctor --fix",
                    "{n} problems can be repaired safely: assistant-auth doctor --fix",
                    fixable,
                ).format(n=fixable)
            )
    return code
