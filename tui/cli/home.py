"""`assistant-auth` with no command, `inspect` and `config`: open the app on a screen."""

from __future__ import annotations

from tui.cli.output import EXIT_OK
from tui.core.regions import parse_region


def run_app(**kwargs) -> int:
    from tui.app import AssistantAuthApp

    AssistantAuthApp(**kwargs).run()
    return EXIT_OK


def run(ns) -> int:
    """No command: the home screen, with --region preselected."""
    region = parse_region(ns.region) if getattr(ns, "region", None) else None
    return run_app(region=region, no_browser=getattr(ns, "no_browser", False))


def run_inspect(ns) -> int:
    return run_app(start="inspect")


def run_config(ns) -> int:
    return run_app(start="providers")
