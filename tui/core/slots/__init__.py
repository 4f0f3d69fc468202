"""The slot concept above the key rules (`tui.core.spec.keys`) and config.toml (`tui.core.config`): the
choice of slot for a command (choice), the classification of a slot's state (state), switching
the managed provider (switch) and the repairs (repair).

Nothing is imported here: `assistant-auth token` loads only the modules it needs.
"""
