"""`assistant-auth demo`: the wizard against the local authorization server, in a temporary home
that is removed when the demo ends. With `--serve` the server keeps running after the wizard,
until Ctrl+C, and the `export` lines printed for a second shell let every command of the README
be tried against it."""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from types import SimpleNamespace

from tui.cli.home import run_app
from tui.cli.login_plain import plain_login
from tui.cli.output import err, out
from tui.core.signals import until_stopped
from tui.core.spec.regions import Region
from tui.core.text.i18n import _
from tui.core.text.untrusted import one_line
from tui.demo.env import server_env
from tui.demo.reaper import Reaper, remove
from tui.demo.server import AuthServer

TRY = "assistant-auth status, assistant-auth token, assistant-auth refresh, assistant-auth doctor, assistant-auth inspect"  # each as it is typed


def export_lines(env: dict[str, str]) -> list[str]:
    """Shell lines that point a second shell at the demo (POSIX shells; values quoted)."""
    return [f"export {name}={shlex.quote(value)}" for name, value in sorted(env.items())]


def run(ns) -> int:
    import asyncio  # lazy: heavy: asyncio

    home = tempfile.mkdtemp(prefix="assistant-auth-demo-")
    Reaper(home).start()  # the home goes however the demo ends, even where its own removal never runs
    server = AuthServer(interval=2, auto_approve=ns.approve_after).start()
    env = server_env(server.url, home)
    os.environ.update(env)
    if ns.approve_after is None:
        err(_("Demo: local authorization server at {url}; it waits for you to approve").format(url=server.url))
    else:
        err(
            _("Demo: local authorization server at {url} (approves after {seconds} s)").format(
                url=server.url, seconds=f"{ns.approve_after:g}"
            )
        )
    err(_("Demo: approve by hand at {page}").format(page=server.verification_uri()))
    err(_("Demo: temporary ASSISTANT_CODE_HOME={home}").format(home=home))
    err(_("Demo: it is removed when the demo ends; your real files are not touched"))
    code = 0
    try:
        if ns.no_tui or not (sys.stdin.isatty() and sys.stdout.isatty()):
            code = asyncio.run(plain_login(Region.CN, no_browser=True))
        else:
            # shown inside the wizard, which covers the lines above: the page, and `a` to approve there
            demo = SimpleNamespace(page=server.verification_uri(), approve=server.approve_on_page, serve=ns.serve)
            code = run_app(no_browser=True, demo=demo)
        if ns.serve:

            def instructions() -> None:
                out("")
                out(_("Demo: the local server keeps running until Ctrl+C. In a second shell, paste:"))
                for line in export_lines(env):
                    out(f"  {line}")
                out(_("then try: {commands}").format(commands=TRY))
                sys.stdout.flush()

            # the server runs in its own threads; the caller stops it and removes the home after
            until_stopped(instructions)
        return code
    finally:
        server.stop()
        problem = remove(home)
        if problem is None:  # said only when it is gone
            err(_("Demo ended: removed {home}").format(home=home))
        else:
            err(_("Demo ended: could not remove {home} ({problem})").format(home=home, problem=one_line(problem, 300)))
