"""`assistant-auth help [TOPIC]`: the reference pages in the terminal (`tui.core.text.helpdocs`), through
the pager on a terminal ($PAGER, else `less`), plain otherwise. Without a topic: the topics."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

from tui.cli.output import EXIT_ERROR, EXIT_OK, err, out
from tui.core.text.helpdocs import page_text, title, topics
from tui.core.text.i18n import _


def run(ns) -> int:
    pages = topics()
    if not pages:
        err(_("assistant-auth: the reference pages are not installed with this copy"))
        return EXIT_ERROR
    topic = ns.topic
    if topic is None:
        out(_("Reference pages: assistant-auth help TOPIC"))
        width = max(len(name) for name in pages)
        for name, page in pages.items():
            out(f"  {name.ljust(width)}  {title(page)}")
        return EXIT_OK
    chosen = pages.get(topic.removesuffix(".md"))
    if chosen is None:
        err(_("assistant-auth: no help topic {topic}: one of {topics}").format(topic=topic, topics=", ".join(pages)))
        return EXIT_ERROR
    show(page_text(chosen))
    return EXIT_OK


def show(text: str) -> None:
    """Through the pager when both ends are a terminal; else written as it is."""
    pager = os.environ.get("PAGER") or ("less" if shutil.which("less") else "")
    if sys.stdout.isatty() and sys.stdin.isatty() and pager:
        try:
            subprocess.run([*shlex.split(pager), *([] if os.environ.get("PAGER") else ["-R"])], input=text, text=True)  # noqa: S603 - the person's own pager
            return
        except (OSError, ValueError):
            pass
    sys.stdout.write(text)
