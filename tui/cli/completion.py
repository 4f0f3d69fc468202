"""`assistant-auth completion bash|zsh|fish`: print the shell's completion script (argcomplete).

Completion runs through the argparse path only: the `token` fast path never loads argcomplete.
"""

from __future__ import annotations

import os
import sys


def run(ns) -> int:
    import argcomplete  # lazy: heavy: argcomplete

    sys.stdout.write(argcomplete.shellcode(["assistant-auth"], shell=ns.shell))
    return 0


def complete(parser) -> None:
    """Answer a completion request of the shell (when its environment says so), then exit."""
    if "_ARGCOMPLETE" in os.environ:
        import argcomplete  # lazy: heavy: argcomplete

        argcomplete.autocomplete(parser)
