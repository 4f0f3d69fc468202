"""`python -m tui.cli`: the same as the `assistant-auth` console script."""

from tui.cli import run

run()
