"""`assistant-auth completion bash|zsh|fish`: print the shell's completion script (argcomplete).

Completion runs through the argparse path only: the `token` fast path never loads argcomplete.
"""

from __future__ import annotations

import sys

SHELLS = ("bash", "zsh", "fish")


def add_parser(sub) -> None:
    p = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description="Print the completion script for a shell. bash: add `eval \"$(assistant-auth completion "
        "bash)\"` to ~/.bashrc; zsh: the same with zsh in ~/.zshrc; fish: `assistant-auth completion fish > "
        "~/.config/fish/completions/assistant-auth.fish`.",
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")


def run(ns) -> int:
    import argcomplete

    sys.stdout.write(argcomplete.shellcode(["assistant-auth"], shell=ns.shell))
    return 0


def complete(parser) -> None:
    """Answer a completion request of the shell (when its environment says so), then exit."""
    import os

    if "_ARGCOMPLETE" in os.environ:
        import argcomplete

        argcomplete.autocomplete(parser)
