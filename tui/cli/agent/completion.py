"""Completing `assistant-auth ssh <TAB>` as bash-completion completes `ssh`."""

from __future__ import annotations

from tui.cli.agent.ssh_words import OURS, OURS_WITH_VALUE
from tui.core.agent.ssh.hosts import hosts as ssh_hosts
from tui.core.agent.ssh.sshline import Usage, split


def complete(prefix: str, parsed_args=None) -> list[str]:
    """`assistant-auth ssh <TAB>`: our `--relay` for an option, else the hosts of ~/.ssh/config and
    known_hosts (as bash-completion offers them for ssh); nothing once the host is given."""
    given = list(getattr(parsed_args, "arguments", None) or [])
    try:
        if split(given, OURS, OURS_WITH_VALUE)[2] is not None:
            return []  # the host is there: what follows is ssh's options or the remote command
    except Usage:
        return []
    if prefix.startswith("-"):
        return [flag for flag in OURS if flag.startswith(prefix)]
    return [host for host in ssh_hosts() if host.startswith(prefix)]
