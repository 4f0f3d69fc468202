"""`assistant-auth token`: print a valid access token on stdout and nothing else.

The hot path: parsed by hand (no argparse), and with valid credentials it loads only the
standard-library modules a bare `python -I` reading the JSON file would (no `re`, no `enum`).
A refresh runs without an event loop (`tui.core.credentials.refresh.get_access_token_sync`).
"""

from __future__ import annotations

import sys

from tui.core.agent import source
from tui.core.errors import EXIT_USAGE
from tui.core.slots.selector import DEFAULT, Selector


def usage_problem(problem: str) -> int:
    from tui.cli.output import err  # lazy: off token's path
    from tui.core.text.i18n import _  # lazy: catalogs, when said

    err(_("assistant-auth: {problem}").format(problem=problem))
    return EXIT_USAGE


def obtain(selector: Selector, min_ttl: int | None):
    """(where the token came from, the access token) for the slot `selector` names, from the one
    source (`tui.core.agent.source`: the agent, a live forwarded connection, or this
    machine's files); on failure its lines are said on stderr and the exit code returned instead
    of the token (1 sign in again, 2 usage, 3 transient). Shared by `token` and `exec`."""
    got = source.obtain(selector, min_ttl, on_asking=_waiting_for_approval)
    if got.notes or isinstance(got, source.Failed):
        from tui.cli.output import err  # lazy: off token's path

        for line in got.notes + (got.lines if isinstance(got, source.Failed) else []):
            err(line)
    if isinstance(got, source.Failed):
        return None, got.code
    return (got.answer if got.answer is not None else got.chosen), got.token


def _waiting_for_approval() -> None:
    """Said at once when the agent asks its person first (--confirm): where to look, and that we wait."""
    from tui.cli.output import err  # lazy: only when an agent asks its person
    from tui.core.text.phrase import N_, Phrase, said  # lazy: as above

    err(said(Phrase(N_("assistant-auth: waiting for approval on your own machine (the token agent asks there)…"))))


def run_fast(args: list[str]) -> int:
    """Exit codes: 0 a token printed, 1 sign in again, 2 usage, 3 transient (see TOKEN_HELP)."""
    if "-h" in args or "--help" in args:
        from tui.cli.output import help_out  # lazy: off token's path
        from tui.cli.usage import TOKEN_HELP  # lazy: off token's path
        from tui.core.text.i18n import _  # lazy: catalogs, when said

        help_out(_(TOKEN_HELP))
        return 0
    selector, as_json, min_ttl = DEFAULT, False, None
    if args:  # flags are rare on the hot path: their parser is loaded only when there are some
        from tui.cli.options import min_ttl_value, parse_flags  # lazy: off token's path

        selector, extra, rest, problem = parse_flags(args, ("--json",), ("--min-ttl",), "token")
        if rest and not problem:
            from tui.core.text.i18n import _  # lazy: catalogs, when said

            problem = _("unexpected argument {argument}").format(argument=repr(rest[0]))
        min_ttl, ttl_problem = min_ttl_value(extra.get("--min-ttl"))
        if problem or ttl_problem:
            return usage_problem(problem or ttl_problem or "")
        as_json = bool(extra.get("--json"))
    return give(selector, min_ttl, as_json)


def give(selector: Selector, min_ttl: int | None, as_json: bool) -> int:
    """The token for `selector` on stdout (or its record with `--json`); the exit code."""
    chosen, token = obtain(selector, min_ttl)
    if isinstance(token, int):
        return token
    if as_json:
        from tui.cli.output import out_json  # lazy: off token's path

        out_json(token_record(chosen, token))
        return 0
    sys.stdout.write(token + "\n")
    sys.stdout.flush()  # inside the boundary: a closed pipe is reported here, not at exit
    return 0


def token_record(chosen, token: str) -> dict:
    """`token --json`: the one record (`Granted.record`), of the agent's answer when the agent
    gave the token, else of the slot's file as it is after the lookup."""
    from tui.core.credentials.issued import from_answer, from_files  # lazy: off token's path

    if isinstance(chosen, dict):
        return from_answer(chosen, token).record()
    from tui.core.slots.choice import storage_name_of  # lazy: off token's path

    return from_files(token, storage_name_of(chosen)).record()


def run(ns) -> int:  # `assistant-auth -v token …` parsed by argparse lands here
    from tui.cli.options import min_ttl_value, selector_of, selector_problem  # lazy: off token's path

    selector = selector_of(ns)
    min_ttl, ttl_problem = min_ttl_value(getattr(ns, "min_ttl", None))
    problem = selector_problem(selector) or ttl_problem
    if problem:
        return usage_problem(problem)
    return give(selector, min_ttl, bool(getattr(ns, "json", False)))
