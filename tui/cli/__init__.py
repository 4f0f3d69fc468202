"""The `assistant-auth` command: one module per command, all on top of `tui.core`.

`main` is the one error boundary. Imports are lazy: `token` with a valid token loads almost
nothing (see `tui.cli.token`).

Exit codes: 0 success; 1 sign in again (not signed in, denied, expired, refresh rejected);
2 usage or unexpected errors; 3 transient network or server trouble (`token`, `refresh`).
"""

from __future__ import annotations

import os
import sys


def run() -> None:
    """The console script's entry (`assistant-auth`, `python -m tui.cli`): `main()`, then the exit.

    `token`, once it has said everything, ends at once (`os._exit`) when nothing is left for the
    interpreter's exit to do: no atexit function registered (a lock held, a temporary
    directory, logging), no other thread, both standard streams flushed. Freeing every module
    and object, which the system does anyway, is a tenth of `token`'s time (`make bench`, figure
    1), and programs call it in loops. Every other command, and `token` when anything is left,
    ends through the interpreter's own exit."""
    code = main()
    if sys.argv[1:2] == ["token"] and _nothing_left():
        os._exit(code)
    sys.exit(code)


def _nothing_left() -> bool:
    """Nothing for the interpreter's exit to run, join or flush (a flush that fails is left to
    it: its message and exit status)."""
    import atexit  # lazy: a builtin module, on the exit of `token` only

    if atexit._ncallbacks():
        return False
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """The one error boundary: whatever happens, a one-line message and an exit code, never a
    traceback (a closed or full stdout, a broken pipe, an odd setting, an output encoding that
    cannot carry the text: `tui.cli.streams`)."""
    english = None
    try:
        if not utf8_streams() and _fit():  # stdout or stderr cannot carry Chinese: English throughout
            from tui.core.text.i18n import in_english  # lazy: catalogs, when said

            english = in_english()
            english.__enter__()
        return _guarded(argv)
    finally:
        if english is not None:
            english.__exit__(None, None, None)


def utf8_streams() -> bool:
    """stdout and stderr (where open) are UTF-8, as nearly every terminal's: they carry every
    character of ours (`tui.cli.streams` is loaded only where one is not)."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and (getattr(stream, "encoding", None) or "utf-8").lower().replace("-", "") != "utf8":
            return False
    return True


def _fit() -> bool:
    from tui.cli.streams import fit  # lazy: off token's path (a stream that is not UTF-8)

    return fit()


def _guarded(argv: list[str] | None) -> int:
    try:
        code = _main(argv)
    except SystemExit as done:  # argparse's --help, --version and usage errors end this way
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
    except BaseException as exc:  # noqa: BLE001 - the boundary of last resort
        return _failed(exc)
    try:  # every write is done by now: one that cannot land is an error, whichever command made it
        if sys.stdout is not None:
            sys.stdout.flush()
    except BaseException as exc:  # noqa: BLE001 - the last boundary: no traceback reaches a user
        return _failed(exc)
    return code


def _failed(exc: BaseException) -> int:
    """The exit code and one line on stderr for what ended a command abnormally."""
    from tui.cli.output import quiet_err, silence_stdout  # lazy: off token's path
    from tui.core.text.i18n import _  # lazy: catalogs, when said

    if isinstance(exc, KeyboardInterrupt):
        quiet_err(_("interrupted"))
        return 130
    if isinstance(exc, BrokenPipeError):  # the reader went away: say nothing more
        silence_stdout()
        return 1
    if isinstance(exc, OSError) and exc.errno in (28, 9):  # ENOSPC (/dev/full), EBADF (stdout closed)
        silence_stdout()
        quiet_err(_("assistant-auth: cannot write output: {reason}").format(reason=exc.strerror or exc))
        return 1
    if isinstance(exc, Exception):
        return _unexpected(exc)
    raise exc


def _unexpected(exc: BaseException) -> int:
    from tui.cli.output import quiet_err  # lazy: off token's path
    from tui.core.text.i18n import _  # lazy: catalogs, when said
    from tui.core.text.redact import redact  # lazy: off token's path

    quiet_err(
        _("assistant-auth: unexpected error: {error}").format(error=f"{type(exc).__name__}: {redact(str(exc))[:300]}")
    )
    return 2


def _main(argv: list[str] | None = None) -> int:
    if sys.stdout is None:  # started with stdout closed (`>&-`)
        from tui.cli.output import quiet_err  # lazy: off token's path
        from tui.core.text.i18n import _  # lazy: catalogs, when said

        quiet_err(_("assistant-auth: cannot write output: standard output is closed"))
        return 1
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = False
    while args and args[0] in ("-v", "--verbose"):
        verbose = True
        args.pop(0)
    if args[:1] == ["token"]:
        from tui.cli.token import run_fast  # lazy: off token's path

        _setup_logging(verbose)
        return run_fast(args[1:])
    if args[:1] == ["exec"]:  # parsed by hand too: what follows `--` is PROGRAM's, not ours
        from tui.cli.exec import run_fast as run_exec  # lazy: off token's path

        _setup_logging(verbose)
        return run_exec(args[1:])
    if args[:1] == ["ssh"]:  # parsed by hand: every option but the host and command is ssh's
        from tui.cli.agent.ssh import run_fast as run_ssh  # lazy: off token's path

        _setup_logging(verbose)
        return run_ssh(args[1:])
    if args[:1] in (["-h"], ["--help"]):
        from tui.cli.output import help_out  # lazy: off token's path
        from tui.cli.usage import USAGE  # lazy: off token's path
        from tui.core.text.i18n import _  # lazy: catalogs, when said

        help_out(_(USAGE))
        return 0
    if not args and "_ARGCOMPLETE" not in os.environ:  # the wizard, at once: no parser to build
        from tui.cli.home import run_app  # lazy: off token's path

        _setup_logging(verbose)
        return run_app()
    from tui.cli.completion import complete  # lazy: off token's path
    from tui.cli.parser import build, handler, parse  # lazy: off token's path

    parser = build()
    complete(parser)  # only when a shell asks for completions
    ns = parse(parser, args)
    _setup_logging(verbose or ns.verbose)
    return handler(ns.command)(ns)


def _setup_logging(verbose: bool) -> None:
    if not verbose:
        return
    import logging  # lazy: with -v only

    from tui.core.text.redact import redact  # lazy: off token's path

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
