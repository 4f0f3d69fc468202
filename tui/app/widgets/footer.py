"""The footer every screen uses: compact when narrow, so Cancel/Back (listed first) stay visible."""

from __future__ import annotations

from textual import events
from textual.widgets import Footer

COMPACT_BELOW = 100  # columns: under this the keys lose their padding
PALETTE_BELOW = 90  # columns: under this the `^p palette` key is left out (ctrl+p still opens it)


class AppFooter(Footer):
    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        self.compact = width < COMPACT_BELOW
        palette = width >= PALETTE_BELOW
        if palette != self.show_command_palette:
            self.show_command_palette = palette
            self.call_after_refresh(self.recompose)
