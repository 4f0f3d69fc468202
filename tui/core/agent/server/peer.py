"""Who is at the other end of an agent connection, as the system says (`tui.core.system`): its pid
and uid, whether it is a program that relays for others (then the request came from elsewhere:
"forwarded") — an `ssh` client (a server, through the forward), `sshd` (the far end of an
`ssh -L …:AGENT`), or a relay such as `socat` or `nc` — which connection that is (the relaying
process: its pid and start time, so a reused pid is another connection) and, for `ssh`, the host
it reaches (read from its command line as ssh reads it). A request's own words never decide any
of this."""

from __future__ import annotations

import socket
from dataclasses import dataclass

from tui.core.agent.ssh.sshline import Usage, split
from tui.core.agent.wire.protocol import FORWARDED, LOCAL, UNKNOWN, Origin
from tui.core.system.peercred import peer_of as system_peer
from tui.core.system.process import process

__all__ = ["FORWARDED", "LOCAL", "RELAYS", "UNKNOWN", "Peer", "host_of", "peer_of"]

# programs that carry another machine's (or another person's) connection to the socket: their
# peer is never this machine's person. The names as the system gives them (at most 15 characters
# on Linux): OpenSSH's client and server (9.8 and later serve a connection as `sshd-session`),
# dropbear's, and the common relays.
RELAYS = frozenset(
    {
        "ssh",
        "sshd",
        "sshd-session",
        "dropbear",
        "dbclient",
        "socat",
        "nc",
        "ncat",
        "netcat",
        "nc.openbsd",
        "nc.traditional",
        "stunnel",
        "stunnel4",
        "websocat",
        "tailscaled",
    }
)


@dataclass(frozen=True)
class Peer:
    pid: int | None
    uid: int | None
    origin: Origin = LOCAL
    ssh: tuple[int, int] | None = None  # the SSH connection (ssh's pid, start time) it came through
    host: str = ""  # the host that ssh reaches, as its command line names it
    via: str = "ssh"  # the relaying program, as the system names it


def peer_of(sock: socket.socket | None) -> Peer:
    """The peer as the system describes it (`tui.core.system`): a relay (`RELAYS`) is forwarded,
    with its connection (pid and start time) and, for an `ssh` client, the host its command line
    reaches; a process the
    system cannot place (no peer credentials, no pid, no process table) is UNKNOWN: a stranger,
    treated as forwarded until it proves it runs on this machine (the answer key)."""
    cred = system_peer(sock)
    found = process(cred.pid)
    if cred.uid is None or found is None:
        return Peer(cred.pid, cred.uid, UNKNOWN)
    if found.name not in RELAYS:
        return Peer(cred.pid, cred.uid, LOCAL)
    host = host_of(found.argv) if found.name == "ssh" else ""
    return Peer(cred.pid, cred.uid, FORWARDED, found.connection, host, found.name)


def host_of(argv: list[str]) -> str:
    """The host an ssh command line reaches ("" when it names none, or cannot be read)."""
    try:
        _ours, _options, host, _command = split([word for word in argv[1:] if word != ""])
    except Usage:
        return ""
    return (host or "")[:255]
