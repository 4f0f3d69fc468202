"""`TextField`: Textual's `Input` whose keys apply in the order they arrive.

In Textual 8.2 an `Input` inserts a printable character as soon as it handles the key, while a
bound key (End, Backspace, the arrows, a screen's Ctrl+S) only bubbles up, and its action runs
when the event reaches the app, after every key already queued behind it. Keys that arrive
together (fast typing, a paste, a laggy SSH link) are then applied out of order: End, two
Backspaces and `v2` sent at once replaced the whole selected value with `v` and deleted it.
Upstream: Textual issue 6605 (a fix is proposed there, not yet released).

Here a bound key runs its binding at once, as the app would run it after the bubble (the same
lookup: the focused widget first, then its screen and the app; priority bindings were already
checked before the key reached the field), so each key applies in turn.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input


class TextField(Input):
    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable and await self.app._check_bindings(event.key):
            event.stop()  # handled here: the app must not run it a second time
            event.prevent_default()
            self._restart_blink()
            return
        await super()._on_key(event)
