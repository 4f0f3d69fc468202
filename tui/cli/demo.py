"""`assistant-auth demo`: the wizard against the local authorization server, in a temporary home."""

from __future__ import annotations

import os
import sys
import tempfile
from types import SimpleNamespace

from tui.cli.home import run_app
from tui.cli.login import plain_login
from tui.cli.output import err
from tui.core.regions import Region
from tui.dev.env import server_env
from tui.dev.server import AuthServer


def run(ns) -> int:
    import asyncio

    home = tempfile.mkdtemp(prefix="assistant-auth-demo-")
    server = AuthServer(interval=2, auto_approve=ns.approve_after).start()
    os.environ.update(server_env(server.url, home))
    if ns.approve_after is None:
        err(f"Demo: local authorization server at {server.url}; it waits for you to approve")
    else:
        err(f"Demo: local authorization server at {server.url} (approves after {ns.approve_after:g} s)")
    err(f"Demo: approve by hand at {server.verification_uri()}")
    err(f"Demo: temporary ASSISTANT_CODE_HOME={home} (your real files are not touched)")
    try:
        if ns.no_tui or not (sys.stdin.isatty() and sys.stdout.isatty()):
            return asyncio.run(plain_login(Region.CN, no_browser=True))
        # shown inside the wizard, which covers the lines above: the page, and `a` to approve there
        demo = SimpleNamespace(page=server.verification_uri(), approve=server.approve_on_page)
        return run_app(no_browser=True, demo=demo)
    finally:
        server.stop()
        err(f"Demo files kept in {home}")
