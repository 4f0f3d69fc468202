"""The command line's one output layer for encodings: whatever a stream's encoding (a legacy
terminal, `PYTHONIOENCODING=ascii`, a locale whose charset lacks the characters) cannot carry
degrades, and no command ends in "unexpected error" for it.

- Each character of ours that the stream cannot encode is written as its ASCII stand-in (`·` as
  `-`, `✔` as `+`, `✘` as `x`, `…` as `...`); any other one as `?`. One codec error handler does
  it, for everything written to the stream: our lines, argparse's, the error boundary's.
- Where stdout or stderr cannot carry Chinese, the whole process speaks English (a sentence of
  question marks helps nobody; the English one is the spec's).
- The wizard draws boxes and blocks on stderr: where that stream cannot carry them it does not
  start, and says so in one line (`wizard_problem`).

UTF-8, nearly every terminal's encoding, is recognised first (`tui.cli.utf8_streams`) and this
module is not even loaded.
"""

from __future__ import annotations

import codecs
import sys

HANDLER = "assistant-auth-stand-ins"
STAND_INS = {
    "·": "-",
    "…": "...",
    "—": "-",
    "–": "-",
    "─": "-",
    "│": "|",
    "•": "*",
    "✔": "+",
    "✘": "x",
    "×": "x",
    "→": "->",
    "↑": "^",
    "↓": "v",
    "▲": "^",
    "§": "S",
    "“": '"',
    "”": '"',
    "‘": "'",
    "’": "'",
    "\xa0": " ",
}
CHINESE = "中文，。：（）「」"
WIZARD = "─│█▊▔▁⏎"  # what the wizard's frames and Home's marks are drawn with


def _stand_in(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    return "".join(STAND_INS.get(ch, "?") for ch in exc.object[exc.start : exc.end]), exc.end


def _encoding(stream: object) -> str:
    return getattr(stream, "encoding", None) or "utf-8"


def carries(stream: object, text: str) -> bool:
    """The stream's encoding can write `text`."""
    encoding = _encoding(stream)
    if encoding.lower().replace("-", "").replace("_", "") == "utf8":
        return True
    try:
        text.encode(encoding)
    except (UnicodeError, LookupError):
        return False
    return True


def fit() -> bool:
    """Once, before anything is written (`main` calls it only when a stream is not UTF-8): each
    stream that cannot carry our characters gets the stand-ins; True when stdout or stderr cannot
    carry Chinese (then the process speaks English)."""
    streams = [stream for stream in (sys.stdout, sys.stderr) if stream is not None]
    codecs.register_error(HANDLER, _stand_in)
    for stream in streams:
        if not carries(stream, "".join(STAND_INS) + CHINESE):
            try:
                stream.reconfigure(errors=HANDLER)  # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):
                pass  # not a text stream we can change (a test's capture): it writes as it does
    return not all(carries(stream, CHINESE) for stream in streams)


def wizard_problem() -> str | None:
    """Why the wizard cannot be drawn on this terminal's stream, or None."""
    stream = sys.__stderr__
    if stream is None or carries(stream, WIZARD):
        return None
    return (
        f"assistant-auth: the terminal's encoding ({_encoding(stream)}) cannot draw the wizard; "
        "set a UTF-8 locale (LANG=C.UTF-8) to use it, or use the commands (assistant-auth --help)."
    )
