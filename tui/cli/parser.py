"""The argparse parser, built from the command modules: each one defines its own flags."""

from __future__ import annotations

import argparse
import importlib

# command -> (module, function): one module per command, in the order `--help` lists them
COMMANDS = {
    "login": ("login", "run"),
    "status": ("status", "run"),
    "token": ("token", "run"),
    "refresh": ("refresh", "run"),
    "logout": ("logout", "run"),
    "switch": ("switch", "run"),
    "doctor": ("doctor", "run"),
    "inspect": ("home", "run_inspect"),
    "config": ("home", "run_config"),
    "demo": ("demo", "run"),
    "completion": ("completion", "run"),
}
MODULES = ("login", "status", "token", "refresh", "logout", "switch", "doctor", "home", "demo", "completion")


def build() -> argparse.ArgumentParser:
    from tui import __version__
    from tui.cli.options import add_region

    parser = argparse.ArgumentParser(
        prog="assistant-auth",
        description="Sign in to your coding-assistant account from a terminal (OAuth 2.0 device flow). "
        "Without a command: the sign-in wizard.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log HTTP traffic to stderr, secrets redacted")
    parser.add_argument("--version", action="version", version=f"assistant-auth {__version__}")
    add_region(parser, "preselect cn (default) or global in the wizard")
    parser.add_argument("--no-browser", action="store_true", help="never open a browser")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in MODULES:
        importlib.import_module(f"tui.cli.{name}").add_parser(sub)
    return parser


def handler(command: str | None):
    if command is None:
        from tui.cli.home import run

        return run
    module, function = COMMANDS[command]
    return getattr(importlib.import_module(f"tui.cli.{module}"), function)
