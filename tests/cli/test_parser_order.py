"""The command line's parser does not depend on what was imported before it: the agent package's
flag builders are not shadowed by its submodules (`tui.cli.agent.relay`, `.ssh`), which once made
`assistant-auth agent` fail with "'module' object is not callable" after a relay had run in the
same process."""

import importlib

from tui.cli import main


def test_the_parser_builds_after_every_agent_submodule_was_imported(home, capsys):
    for name in ("relay", "ssh", "serve", "status", "completion", "shell_lines", "ssh_words"):
        importlib.import_module(f"tui.cli.agent.{name}")
    assert main(["agent", "--help"]) == 0
    assert "unexpected error" not in capsys.readouterr().err
