"""argparse's own words (`usage:`, `options`, its usage errors) in the reader's language.

argparse looks each of its words up through gettext (`argparse._`, `argparse.ngettext`, taken
from the gettext module); `speak()` points those two names at our catalog, so `--help` and a
usage error read in one language: the reader's where we have its catalog, else English, never a
system catalog of argparse's own in a language the rest of the command does not speak. (gettext's
lookup searched the locale directories again for each word: a third of building the parser, in
every command that builds it.) The words are argparse's exact message ids on Python 3.10 to
3.13, listed here so the catalog carries them; one a Python version words differently stays
English, as it was.
"""

from __future__ import annotations

import argparse

from tui.core.text.i18n import _, ngettext
from tui.core.text.phrase import N_
from tui.core.text.textwidth import wrap

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
    """argparse's words from our catalog: the reader's language, or English as it is."""
    argparse._ = _  # type: ignore[attr-defined]  # argparse's gettext names are module globals
    argparse.ngettext = ngettext  # type: ignore[attr-defined]  # (see the module docstring)


class CellFormatter(argparse.HelpFormatter):
    """argparse's help, wrapped by terminal cells: Chinese (two cells a character, no spaces)
    breaks between characters, never inside a number and its unit (`tui.core.text.textwidth.wrap`);
    section headings end with the reader's colon (`选项：`), through the catalog on every Python."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap(" ".join(text.split()), width))

    def start_section(self, heading: str | None) -> None:
        # the heading as the catalog says it, colon included; argparse then adds nothing of its own
        super().start_section(None if heading is None else _("%(heading)s:") % {"heading": heading})
        self._current_section.titled = True  # type: ignore[attr-defined]

    class _Section(argparse.HelpFormatter._Section):
        titled = False

        def format_help(self) -> str:
            if not self.titled or self.heading in (None, argparse.SUPPRESS):
                return super().format_help()
            heading, self.heading = self.heading, None  # argparse would add its own ':'
            try:
                body = super().format_help()
            finally:
                self.heading = heading
            if not body:
                return ""
            indent = " " * self.formatter._current_indent
            return "\n" + indent + heading + "\n" + body.lstrip("\n")
