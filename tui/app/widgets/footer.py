"""The footer every screen uses: compact when narrow, and when the keys do not fit, the last ones
give way first while Back/Cancel, Help and Quit always stay (the help screen lists every key)."""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from tui.core.text.i18n import _

COMPACT_BELOW = 100  # columns: under this the keys lose their padding
PALETTE_BELOW = 90  # columns: under this the `^p palette` key is left out (ctrl+p still opens it)
PALETTE_WIDTH = 13  # "^p palette" with its border and padding
ALWAYS = {"request_quit", "help"}  # besides every escape key (Back, Cancel, Close)


def action_name(binding: Binding) -> str:
    """`app.request_quit` and `request_quit` are one action."""
    return binding.action.rpartition(".")[2]


def essential(binding: Binding) -> bool:
    return binding.key == "escape" or action_name(binding) in ALWAYS


def key_width(key: str, description: str, compact: bool) -> int:
    """Cells, not characters: a CJK character takes two."""
    return cell_len(key) + 1 + cell_len(_(description)) + (1 if compact else 2)


def fitted(keys: list[tuple[Binding, bool, str, str]], width: int, compact: bool) -> list:
    """Drop keys from the end, never an essential one, until the rest fits `width` columns."""
    chosen = list(keys)
    while sum(key_width(shown, b.description, compact) for b, _e, _t, shown in chosen) > width:
        for index in range(len(chosen) - 1, -1, -1):
            if not essential(chosen[index][0]):
                del chosen[index]
                break
        else:
            break  # only essentials left: they stay, even if cut
    return chosen


class AppFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self.fitted_to = 0
        self.drawn: tuple[object, ...] | None = None  # what the keys drawn say (`_drawn`), as last composed
        self.looking = False  # a look at whether to compose again is waiting for the next refresh

    def bindings_changed(self, screen) -> None:
        """Textual composes the footer again on every change of the screen's bindings (a row
        highlighted, a worker done): only when what it would draw differs (measured: the
        recompose was a sixth of an app test's CPU, and the running wizard's)."""
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._look_again()

    def on_resize(self, event: events.Resize) -> None:
        width = event.size.width
        self._fit(width)
        if width != self.fitted_to and self._bindings_ready:  # else the bindings' own look fits them
            self._look_again()

    def _look_again(self) -> None:
        """One look after the next refresh, however many changes come before it: a screen's start
        changes its bindings three times in a row, and each compared with what was drawn before
        any of them composed the footer again (four composes where one draws it)."""
        if not self.looking:
            self.looking = True
            self.call_after_refresh(self._compose_if_changed)

    async def _compose_if_changed(self) -> None:
        self.looking = False
        if not self.is_attached or not self.screen.is_current:
            return  # a screen on its way out (its rows may be gone already): nothing of it is shown
        if self._drawn() != self.drawn:
            await self.recompose()

    def _fit(self, width: int) -> None:
        self.compact = width < COMPACT_BELOW
        self.show_command_palette = width >= PALETTE_BELOW

    def shown_keys(self) -> list[tuple[Binding, bool, str, str]]:
        """(binding, enabled, tooltip, key as shown) of each action once, in the screen's order."""
        seen: set[str] = set()
        keys = []
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if not binding.show or action_name(binding) in seen:
                continue
            seen.add(action_name(binding))
            keys.append((binding, enabled, tooltip, self.app.get_key_display(binding)))
        return keys

    def _keys(self) -> tuple[int, list[tuple[Binding, bool, str, str]]]:
        """(the width, the keys that fit it): what `compose` draws."""
        width = self.size.width or self.app.size.width
        self._fit(width)  # composed before its first resize: fitted to the width it will have
        room = width - (PALETTE_WIDTH if self.show_command_palette else 0)
        return width, fitted(self.shown_keys(), room, self.compact)

    def _drawn(self) -> tuple[object, ...]:
        width, keys = self._keys()
        palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return (
            width,
            self.show_command_palette,
            palette.enabled if palette is not None else None,
            tuple((b.key, b.description, enabled, tooltip, shown) for b, enabled, tooltip, shown in keys),
        )

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self.drawn = self._drawn()
        width, keys = self._keys()
        self.fitted_to = width
        self.styles.grid_size_columns = len(keys)
        for binding, enabled, tooltip, shown in keys:
            yield self._key(binding.key, shown, _(binding.description), binding.action, enabled, tooltip)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            active = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
            if active is not None:
                yield FooterKey(
                    active.binding.key,
                    self.app.get_key_display(active.binding),
                    _(active.binding.description),
                    active.binding.action,
                    classes="-command-palette -compact",  # as its compact (True, unbound) makes it at mount
                    disabled=not active.enabled,
                    tooltip=_(active.binding.description),
                )

    def _key(self, key: str, shown: str, description: str, action: str, enabled: bool, tooltip: str) -> FooterKey:
        """A key born as the footer's compactness says: its class and its `compact` already agree
        with the footer's, so neither its first watch nor the binding restyles it (a key is born
        compact and was restyled twice in a wide footer: out, then back)."""
        footer_key = FooterKey(
            key,
            shown,
            description,
            action,
            disabled=not enabled,
            tooltip=tooltip,
            classes="-compact" if self.compact else "",
        )
        footer_key.set_reactive(FooterKey.compact, self.compact)
        return footer_key.data_bind(compact=Footer.compact)
