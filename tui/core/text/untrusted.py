"""Text this program did not write (a server's answer, a token's claims, a certificate, a file
name, a config value) made safe to show: every face shows it through here.

`one_line` is the form for everything shown inside a line of ours: one printable line, so a
newline in a claim cannot print a forged line ("* other-slot: valid…"), a carriage return cannot
overwrite what is before it, an escape sequence cannot reach the terminal and a bidi override
cannot reorder what a person reads. `clean` is the same for a block of text that may keep its
own line breaks (a body shown in a pane of its own).

Replaced by U+FFFD: control characters (C0 and C1, DEL), format characters (bidi overrides and
isolates, zero-width characters, the byte-order mark, soft hyphens…), line and paragraph
separators and lone surrogates. Spaces, letters, marks, symbols and emoji stay as they are.
"""

from __future__ import annotations

import unicodedata

from tui.core.text.phrase import Phrase

MARK = "\ufffd"
LIMIT = 300  # characters: a longer value is cut with an ellipsis (narrower places pass a width)
_UNSAFE = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs"))


def _safe(ch: str) -> bool:
    return unicodedata.category(ch) not in _UNSAFE


def clean(text: object, *, keep_newlines: bool = True) -> str:
    """`text` with every unsafe character replaced; newlines (and tabs) kept when asked."""
    value = "" if text is None else str(text)
    if value.isascii() and value.isprintable():
        return value
    keep = "\n\t" if keep_newlines else ""
    return "".join(ch if (ch in keep or _safe(ch)) else (" " if ch in "\n\t" else MARK) for ch in value)


def one_line(text: object, width: int | None = None) -> str:
    """One printable line of at most `width` characters (default 300), cut with an ellipsis.
    Newlines and tabs become spaces; every other unsafe character becomes U+FFFD. A `Phrase`
    (a sentence of ours) stays one, its values made one line each, when it fits."""
    limit = LIMIT if width is None else width
    if isinstance(text, Phrase):
        phrase = text.each(lambda value: one_line(value, width))
        if len(phrase) <= limit:
            return phrase
    value = clean(text, keep_newlines=False)
    if len(value) > limit:
        value = value[: max(limit - 1, 0)] + "…"
    return value


def is_one_printable_line(text: str) -> bool:
    """What `one_line` guarantees (for tests and assertions)."""
    return all(_safe(ch) for ch in text)
