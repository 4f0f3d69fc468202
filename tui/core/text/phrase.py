"""Sentences of ours made before it is known who reads them, and gettext's marker.

An error's next-step hint is written where the error is raised, deep in the core, and read by a
person, by a script (`--json`) or by a log. A `Phrase` is English as a `str` (JSON, logs, files,
comparisons) and knows its catalog entry: `said()` gives it in the reader's language. Nothing
here loads the catalogs: the token path makes phrases and never says them.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "marked, translated where shown"
    """Marks `message` for the catalog without translating it (it is translated where shown)."""
    return message


class Phrase(str):
    """English text that is a catalog entry filled with values; `said()` is the reader's language
    (values that are phrases themselves are said too)."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, **values: object) -> Phrase:
        phrase = super().__new__(cls, template.format(**values))
        phrase.template, phrase.values = template, values
        return phrase

    def each(self, change: Callable[[object], object]) -> Phrase:
        """The same sentence with `change` applied to each of its values."""
        return Phrase(self.template, **{name: change(value) for name, value in self.values.items()})

    def said(self) -> str:
        from tui.core.text.i18n import _  # lazy: the catalogs: only when a person reads the phrase

        return _(self.template).format(**{name: _said(value) for name, value in self.values.items()})


def said(text: str) -> str:
    """`text` in the reader's language when it is a `Phrase`; any other text as it is."""
    return text.said() if isinstance(text, Phrase) else text


def _said(value: object) -> object:
    return value.said() if isinstance(value, Phrase) else value
