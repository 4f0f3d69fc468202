"""Copy text for the user: a local clipboard where one works, else ask the terminal (OSC 52).

Over SSH a local clipboard would be the *server's* clipboard, so OSC 52 is used straight away;
the message says honestly that the terminal was only asked to copy.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

import pyperclip

from tui.core.text.i18n import _
from tui.core.text.phrase import N_
from tui.terminal.environment import has_display, in_ssh

COPIED = {  # what was copied -> the sentence, whole
    "code": N_("Copied the code to the clipboard."),
    "address": N_("Copied the address to the clipboard."),
}
ASKED = {
    "code": N_("Asked your terminal to copy the code (OSC 52); if it did not, select it on screen."),
    "address": N_("Asked your terminal to copy the address (OSC 52); if it did not, select it on screen."),
}


def _osc52_message(what: str, env: Mapping[str, str]) -> str:
    message = _(ASKED[what])
    if env.get("TMUX"):
        message += " " + _("In tmux this needs `set -g set-clipboard on`.")
    return message


def copy_text(
    text: str,
    what: str,
    osc52: Callable[[str], None],
    env: Mapping[str, str] | None = None,
    local_copy: Callable[[str], None] | None = None,
) -> str:
    """Copy `text` (`what`: "code" or "address"); returns the sentence to show. `osc52` is the
    app's copy_to_clipboard."""
    env = os.environ if env is None else env
    if not in_ssh(env) and (local_copy is not None or has_display(env)):
        # a local clipboard needs a display (xclip without one fails, sometimes silently)
        try:
            if local_copy is None:
                local_copy = pyperclip.copy
            local_copy(text)
            osc52(text)  # also tell the terminal: harmless, and helps inside tmux
            return _(COPIED[what])
        except Exception:  # noqa: S110 - pyperclip raises its own type when no clipboard exists; OSC 52 below
            pass
    osc52(text)
    return _osc52_message(what, env)
