"""`assistant-auth demo`: the wizard against the local authorization server, in a temporary home."""

from __future__ import annotations

import sys

from tui.cli.output import err


def add_parser(sub) -> None:
    p = sub.add_parser(
        "demo",
        help="the wizard against a local test server",
        description="Try the sign-in against a local authorization server in a temporary home; "
        "your real files are not touched.",
    )
    p.add_argument("--no-tui", action="store_true", help="plain text instead of the wizard")
    p.add_argument(
        "--approve-after",
        type=float,
        default=None,
        metavar="SECONDS",
        help="approve the code by itself after SECONDS (default: wait for you: approve on the local "
        "page, or press a in the wizard)",
    )


def run(ns) -> int:
    import asyncio
    import os
    import tempfile

    from tui.dev.env import server_env
    from tui.dev.server import AuthServer

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
            from tui.cli.login import plain_login
            from tui.core.regions import Region

            return asyncio.run(plain_login(Region.CN, no_browser=True))
        from tui.cli.home import run_app

        from types import SimpleNamespace

        # shown inside the wizard, which covers the lines above: the page, and `a` to approve there
        demo = SimpleNamespace(page=server.verification_uri(), approve=server.approve_on_page)
        return run_app(no_browser=True, demo=demo)
    finally:
        server.stop()
        err(f"Demo files kept in {home}")
