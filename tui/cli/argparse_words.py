"""argparse's own words (`usage:`, `options`, its usage errors) in the reader's language.

argparse looks each of its words up through gettext (`argparse._`, `argparse.ngettext`, taken
from the gettext module); `speak()` points those two names at our catalog when the reader reads
a language other than English, so `--help` and a usage error read in one language. The words
are argparse's exact message ids on Python 3.10 to 3.13, listed here so the catalog carries
them; one a Python version words differently stays English, as it was.
"""

from __future__ import annotations

import argparse

from tui.core.i18n import _, ngettext, translated
from tui.core.phrase import N_

WORDS = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("subcommands"),
    N_("%(heading)s:"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("expected at most one argument"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("ignored explicit argument %r"),
)


def speak() -> None:
    """argparse's words from our catalog, for a reader of another language than English."""
    if translated():
        argparse._ = _  # type: ignore[attr-defined]  # argparse's gettext names are module globals
        argparse.ngettext = ngettext  # type: ignore[attr-defined]  # (see the module docstring)
