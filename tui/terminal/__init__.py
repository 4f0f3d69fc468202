"""Terminal facts shared by the command line and the app: environment, clipboard, browser policy,
safe text and time formatting. Never imports Textual."""
