"""`assistant-auth` with no command, `inspect` and `config`: open the app on a screen."""

from __future__ import annotations

import gc

from tui.cli.output import EXIT_ERROR, EXIT_OK, err
from tui.cli.selection import say_failure
from tui.cli.streams import wizard_problem
from tui.core.errors import AuthError
from tui.core.slots.accounts import name_problem
from tui.core.slots.lookup import find
from tui.core.spec.keys import account_slot
from tui.core.text.i18n import _


def run_app(**kwargs) -> int:
    """The app. A sign-in whose terminal went away goes on in a thread of its own after the app
    (the code screen hands it over); that thread ends the process when the sign-in ends, and this
    one waits for it (`carry_on.carried_on`): a process whose main thread returned would begin to
    shut down under the sign-in.

    The garbage collector rests from here to the first frame: loading Textual and drawing Home
    make about 73,000 objects it tracks, nearly all of them still alive then, and the hundred or
    so collections among them are about a twentieth of the start (docs/performance.md).

    On a terminal whose encoding cannot draw it (`tui.cli.streams`), it says so in one line and
    does not start."""
    problem = wizard_problem()
    if problem is not None:
        err(problem)
        return EXIT_ERROR
    gc.disable()
    try:
        from tui.app import AssistantAuthApp  # lazy: Textual, for the app alone

        app = AssistantAuthApp(**kwargs, collector_paused=True)
        try:
            app.run()
        except Exception:  # noqa: BLE001 - a shutdown on a dead terminal must not cost a sign-in
            if app.detached_attempt is None:
                raise
    finally:
        gc.enable()  # also when the app ended before its first frame
    if app.detached_attempt is not None:
        from tui.app.carry_on import carried_on  # lazy: only after a lost terminal

        carried_on(app.detached_attempt)  # never returns: the sign-in's end decides the exit status
    for line in app.farewell:  # `login`: how the sign-in ended, in the shell it returned to
        err(line)
    return app.return_code or EXIT_OK  # SIGTERM during a sign-in: discarded


def run(ns) -> int:
    """No command: the home screen, with --region preselected."""
    region = getattr(ns, "region", None)  # a Region: parsed by the option itself
    return run_app(region=region, no_browser=getattr(ns, "no_browser", False))


def run_inspect(ns) -> int:
    """The inspector; `--account NAME` opens it on that account's slot (exit 2 for a name that
    cannot be one, 1 when there is no such account)."""
    account = getattr(ns, "account", None)
    if account is None:
        return run_app(start="inspect")
    problem = name_problem(account)
    if problem:
        err(_("assistant-auth: {problem}").format(problem=problem))
        return EXIT_ERROR
    try:
        region = find(account, ns.region.value if ns.region else None)
    except AuthError as exc:
        say_failure(exc, account)
        return exc.exit_code  # an unknown or ambiguous name: usage (2), as everywhere
    return run_app(start="inspect", slot=account_slot(region, account))


def run_config(ns) -> int:
    return run_app(start="providers")
