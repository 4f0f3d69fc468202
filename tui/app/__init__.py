"""The Textual face: the app, its screens and widgets, on top of `tui.core` and `tui.terminal`."""

from tui.app.application import AssistantAuthApp

__all__ = ["AssistantAuthApp"]
