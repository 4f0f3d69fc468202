"""The command palette (ctrl+p) in the reader's language: every command, Textual's own ones
included (keys, maximize, quit, screenshot, theme), named and described through the catalog, the
search field's placeholder too; and a command is found by its English name as well (typing `he`
finds 帮助), since people know commands by the words of the documentation."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tui.core.text.i18n import _
from tui.core.text.phrase import N_

PLACEHOLDER = N_("Search for commands…")


@dataclass(frozen=True)
class Command:
    template: str  # the catalog's id of its name: what the documentation calls it
    help: str  # its description, also a catalog id
    run: Callable[[], object]
    region: str = ""  # filled into both, where they name one

    @property
    def english(self) -> str:
        return self.template.format(region=self.region)

    @property
    def name(self) -> str:
        return _(self.template).format(region=self.region)

    @property
    def said_help(self) -> str:
        return _(self.help).format(region=self.region)


def textual_commands(app, screen) -> Iterable[Command]:
    """Textual's system commands, by the same actions, in our words."""
    yield Command(N_("Theme"), N_("Change the colour theme"), app.action_change_theme)
    yield Command(N_("Quit"), N_("Quit (asks first while a sign-in runs)"), app.action_request_quit)
    if screen.query("HelpPanel"):
        yield Command(N_("Keys"), N_("Hide the keys panel"), app.action_hide_help_panel)
    else:
        yield Command(
            N_("Keys"), N_("Show the focused widget's help and a summary of the keys"), app.action_show_help_panel
        )
    if screen.maximized is not None:
        yield Command(N_("Minimize"), N_("Restore the widget to its normal size"), screen.action_minimize)
    elif screen.focused is not None and screen.focused.allow_maximize:
        yield Command(N_("Maximize"), N_("Maximize the focused widget"), screen.action_maximize)
    yield Command(
        N_("Screenshot"),
        N_("Save an SVG picture of this screen"),
        lambda: app.set_timer(0.1, app.deliver_screenshot),
    )


class Commands(Provider):
    """The app's commands (`app.commands(screen)`), found by their shown or their English name."""

    def _commands(self) -> list[Command]:
        return sorted(self.app.commands(self.screen), key=lambda command: command.name)  # type: ignore[attr-defined]

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(command.name, command.run, help=command.said_help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            shown = matcher.match(command.name)
            english = matcher.match(command.english)
            if max(shown, english) > 0:
                title = matcher.highlight(command.name) if shown >= english else f"{command.name} ({command.english})"
                yield Hit(max(shown, english), title, command.run, help=command.said_help)
