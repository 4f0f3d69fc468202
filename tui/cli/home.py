"""`assistant-auth` with no command, `inspect` and `config`: open the app on a screen."""

from __future__ import annotations

from tui.cli.output import EXIT_OK


def run_app(**kwargs) -> int:
    from tui.app import AssistantAuthApp

    AssistantAuthApp(**kwargs).run()
    return EXIT_OK


def add_parser(sub) -> None:
    sub.add_parser("inspect", help="credential inspector (TUI)", description="Inspect and repair credential files.")
    sub.add_parser("config", help="provider config editor (TUI)", description="View and edit config.toml providers.")


def run(ns) -> int:
    """No command: the home screen, with --region preselected."""
    from tui.core.regions import parse_region

    region = parse_region(ns.region) if getattr(ns, "region", None) else None
    return run_app(region=region, no_browser=getattr(ns, "no_browser", False))


def run_inspect(ns) -> int:
    return run_app(start="inspect")


def run_config(ns) -> int:
    return run_app(start="providers")
