"""`assistant-auth token`: print a valid access token on stdout and nothing else.

The hot path: parsed by hand (no argparse), and with valid credentials it loads only the
standard-library modules a bare `python -I` reading the JSON file would (no `re`, no `enum`).
"""

from __future__ import annotations

import sys

HELP = """usage: assistant-auth token [--slot NAME | --region cn|global | --provider NAME |
                             --base-url URL [--key KEY] [--oauth-host HOST]]

Print a valid access token on stdout and nothing else, refreshing it first when it has expired.
Exit codes: 0 a token was printed; 1 sign in again (no credentials, refresh rejected); 2 usage;
3 transient (network or server trouble): retry later, the stored sign-in is kept.

slot selection (default: the slot of the provider managed:assistant-code, else the default slot):
  --slot NAME        a credential slot by the name `status` lists
  --region REGION    the slot a sign-in in that region (cn or global) writes
  --provider NAME    the slot a provider of config.toml uses
  --base-url URL     an API base (alone, or with --key/--oauth-host)
  --key KEY          an OAuth storage key such as oauth/assistant-code
  --oauth-host HOST  the authorization host that refreshes it
"""


def run_fast(args: list[str]) -> int:
    """Exit codes: 0 a token printed, 1 sign in again, 2 usage, 3 transient (see HELP)."""
    if "-h" in args or "--help" in args:
        sys.stdout.write(HELP)
        return 0
    values: dict = {}
    if args:  # flags are rare on the hot path: their parser is loaded only when there are some
        from tui.cli.options import parse_selector
        from tui.cli.output import err

        values, problem = parse_selector(args)
        if problem:
            err(f"assistant-auth: {problem}")
            return 2
    from tui.core.errors import AuthError
    from tui.core.slots.choice import select
    from tui.core.tokens import get_access_token_sync

    chosen = None
    try:
        chosen = select(**values)
        token = get_access_token_sync(chosen.ref, chosen.base_url, refuse=chosen.refusal)  # no event loop
    except AuthError as exc:
        from tui.cli.output import err
        from tui.core.slots.choice import explain_for

        err(explain_for(exc, chosen).describe())
        return 3 if exc.transient else 1
    sys.stdout.write(token + "\n")
    sys.stdout.flush()  # inside the boundary: a closed pipe is reported here, not at exit
    return 0


def run(ns) -> int:  # `assistant-auth -v token …` parsed by argparse lands here
    from tui.cli.options import selector_values

    args: list[str] = []
    for name, value in selector_values(ns).items():
        if value is not None:
            args += ["--" + name.replace("_", "-"), value]
    return run_fast(args)
