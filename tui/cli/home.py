"""`assistant-auth` with no command, `inspect` and `config`: open the app on a screen."""

from __future__ import annotations

from tui.cli.output import EXIT_FAIL, EXIT_OK
from tui.core.regions import parse_region


def run_app(**kwargs) -> int:
    """The app; a sign-in whose terminal went away while it waited for approval carries on here,
    after the app object is gone, in this process, to its end."""
    import asyncio

    from tui.app import AssistantAuthApp

    app = AssistantAuthApp(**kwargs)
    app.run()
    attempt = app.detached_attempt
    if attempt is not None:
        outcome = asyncio.run(attempt.carry_on())
        return EXIT_OK if outcome.success else EXIT_FAIL
    return EXIT_OK


def run(ns) -> int:
    """No command: the home screen, with --region preselected."""
    region = parse_region(ns.region) if getattr(ns, "region", None) else None
    return run_app(region=region, no_browser=getattr(ns, "no_browser", False))


def run_inspect(ns) -> int:
    return run_app(start="inspect")


def run_config(ns) -> int:
    return run_app(start="providers")
