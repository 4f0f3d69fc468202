"""The `assistant-auth` command. Imports lazily: `token` on a valid token loads almost nothing.

Exit codes: 0 success; 1 not signed in / denied / expired / timeout / token unavailable;
2 usage or unexpected errors.
"""

from __future__ import annotations

import sys

USAGE = """\
usage: assistant-auth [-v] [COMMAND] [options]

Sign in to your coding-assistant account from a terminal (OAuth 2.0 device flow).

commands:
  (none)     open the sign-in wizard (TUI)
  login      sign in (wizard; --no-tui for plain text)
  status     show every credential slot and its state, never a token
  token      print a valid access token on stdout, refreshing when needed
  refresh    refresh now and print the new expiry
  logout     remove a slot's credential file
  inspect    open the credential inspector (TUI)
  config     open the provider config editor (TUI)
  demo       run the wizard against a local test server in a temporary home

options:
  -v, --verbose   log HTTP requests and responses to stderr, tokens and codes redacted
  --region R      preselect the region in the wizard (cn or global)
  --no-browser    never open a browser
  -h, --help      show help (also after a command)
"""

SELECTOR_HELP = "[--provider NAME | --base-url URL [--key KEY] [--oauth-host HOST]]"


def _err(message: str) -> None:
    from tui.text import clean

    sys.stderr.write(clean(message) + "\n")


def _setup_logging(verbose: bool) -> None:
    if not verbose:
        return
    import logging

    from tui.core.redact import redact

    class Redacting(logging.Filter):
        def filter(self, record: logging.LogRecord) -> bool:
            record.msg = redact(record.getMessage())
            record.args = None
            return True

    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(Redacting())
    handler.setFormatter(logging.Formatter("[%(name)s] %(message)s"))
    for name in ("tui", "httpx"):
        logger = logging.getLogger(name)
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)


# -- token: the hot path, parsed by hand -----------------------------------------------------

def _parse_selector(args: list[str], allowed_extra: tuple[str, ...] = ()) -> tuple[dict, list[str]] | None:
    """--provider/--base-url/--key/--oauth-host (also `--flag=value`); returns (values, rest)."""
    names = {"--provider": "provider", "--base-url": "base_url", "--key": "key", "--oauth-host": "oauth_host"}
    values: dict = {}
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        flag, eq, inline = arg.partition("=")
        if flag in names:
            if eq:
                values[names[flag]] = inline
            elif i + 1 < len(args):
                i += 1
                values[names[flag]] = args[i]
            else:
                _err(f"assistant-auth: {flag} needs a value")
                return None
        elif arg in allowed_extra:
            rest.append(arg)
        else:
            _err(f"assistant-auth: unknown option {arg!r}; usage: assistant-auth COMMAND {SELECTOR_HELP}")
            return None
        i += 1
    if values.get("provider") and any(k in values for k in ("base_url", "key", "oauth_host")):
        _err("assistant-auth: --provider cannot be combined with --base-url/--key/--oauth-host")
        return None
    if ("key" in values or "oauth_host" in values) and "base_url" not in values:
        _err("assistant-auth: --key and --oauth-host need --base-url")
        return None
    return values, rest


def cmd_token(args: list[str]) -> int:
    if "-h" in args or "--help" in args:
        print(f"usage: assistant-auth token {SELECTOR_HELP}\n\nPrint a valid access token on stdout and nothing else.")
        return 0
    parsed = _parse_selector(args)
    if parsed is None:
        return 2
    from tui.core.errors import AuthError
    from tui.core.selection import select
    from tui.core.tokens import read_valid_token

    selection = None
    try:
        selection = select(**parsed[0])
        token = read_valid_token(selection.ref, selection.base_url)
        if token is None:
            import asyncio

            from tui.core.tokens import get_access_token

            token = asyncio.run(get_access_token(selection.ref, selection.base_url))
    except AuthError as exc:
        from tui.core.selection import explain_for

        _err(explain_for(exc, selection).describe())
        return 1
    sys.stdout.write(token + "\n")
    sys.stdout.flush()  # inside the boundary: a closed pipe is reported here, not at exit
    return 0


# -- the other commands use argparse ---------------------------------------------------------

def _parser():
    import argparse

    parser = argparse.ArgumentParser(prog="assistant-auth", description="Sign in to your coding-assistant account.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log HTTP traffic to stderr, secrets redacted")
    parser.add_argument("--region", type=region_arg, help="preselect cn (default) or global in the wizard")
    parser.add_argument("--no-browser", action="store_true", help="never open a browser")
    sub = parser.add_subparsers(dest="command")

    def selector(p):
        group = p.add_argument_group("slot selection")
        group.add_argument("--provider", metavar="NAME", help="a provider of config.toml")
        group.add_argument("--base-url", metavar="URL", help="an API base (with --key/--oauth-host)")
        group.add_argument("--key", metavar="KEY", help="an OAuth storage key")
        group.add_argument("--oauth-host", metavar="HOST", help="the authorization host for refresh")

    login = sub.add_parser("login", help="sign in (opens the wizard)")
    login.add_argument("--region", type=region_arg, help="cn (default) or global")
    login.add_argument("--no-tui", action="store_true", help="plain text on stderr instead of the wizard")
    login.add_argument("--no-browser", action="store_true", help="never open a browser")
    login.add_argument("--json", action="store_true", help="with --no-tui: JSON lines on stdout")

    status = sub.add_parser("status", help="state of every credential slot")
    status.add_argument("--json", action="store_true")
    status.add_argument("--provider", metavar="NAME")

    refresh = sub.add_parser("refresh", help="refresh now; prints the new expiry")
    selector(refresh)
    refresh.add_argument("--json", action="store_true")

    logout = sub.add_parser("logout", help="remove a slot's credential file")
    logout.add_argument("--provider", metavar="NAME")
    logout.add_argument("--yes", "-y", action="store_true", help="do not ask for confirmation")

    sub.add_parser("token", help="print a valid access token")
    sub.add_parser("inspect", help="credential inspector (TUI)")
    sub.add_parser("config", help="provider config editor (TUI)")
    demo = sub.add_parser("demo", help="the wizard against a local test server")
    demo.add_argument("--no-tui", action="store_true")
    demo.add_argument("--approve-after", type=float, default=4.0, metavar="SECONDS")
    return parser


def main(argv: list[str] | None = None) -> int:
    """The one error boundary: whatever happens, a one-line message and an exit code, never a
    traceback (a closed or full stdout, a broken pipe, an odd setting)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        _quiet_err("interrupted")
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except OSError as exc:
        if exc.errno in (28, 9):  # ENOSPC (/dev/full), EBADF (stdout closed)
            _silence_stdout()
            _quiet_err(f"assistant-auth: cannot write output: {exc.strerror or exc}")
            return 1
        return _unexpected(exc)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the boundary of last resort
        return _unexpected(exc)


def _unexpected(exc: BaseException) -> int:
    from tui.core.redact import redact

    _quiet_err(f"assistant-auth: unexpected error: {type(exc).__name__}: {redact(str(exc))[:300]}")
    return 2


def _quiet_err(message: str) -> None:
    try:
        _err(message)
    except (OSError, ValueError, AttributeError):  # stderr closed too
        pass


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def region_arg(value: str) -> str:
    """--region on the command line: cn or global only (stored values keep the spec's lenient parse)."""
    import argparse

    cleaned = value.strip().lower()
    if cleaned not in ("cn", "global"):
        raise argparse.ArgumentTypeError(f"unknown region {value!r}: use cn or global")
    return cleaned


def _main(argv: list[str] | None = None) -> int:
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        _quiet_err("assistant-auth: cannot write output: standard output is closed")
        return 1
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = False
    while args and args[0] in ("-v", "--verbose"):
        verbose = True
        args.pop(0)
    if args[:1] == ["token"]:
        _setup_logging(verbose)
        return cmd_token(args[1:])
    if args[:1] in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return 0
    ns = _parser().parse_args(args)
    _setup_logging(verbose or ns.verbose)
    from tui import commands

    handler = getattr(commands, f"cmd_{(ns.command or 'tui')}")
    return handler(ns)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
