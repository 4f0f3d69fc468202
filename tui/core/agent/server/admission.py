"""How many connections the agent holds at once, by kind of peer (pure).

The room (as many connections as the open-file limit allows) is shared out so that no kind of
peer can take it all: this machine's own programs may hold half of it, connections forwarded or
relayed from servers a quarter, peers the system cannot place a quarter. Within a kind, one peer
(a process; for a forward, its SSH connection) holds at most `PER_PEER` at once. A flood from a
server, a relay or one stuck program is answered "busy" while the person's own `token` is served.
Where the system names no peer at all, only the kind's share bounds it (said in docs/agent.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from tui.core.agent.wire.protocol import FORWARDED, LOCAL, UNKNOWN

PER_PEER = (
    256  # connections one peer holds at once: a program asking a hundred tokens at once is served; a flood is bounded
)
QUARTERS: dict[str, int] = {LOCAL: 2, FORWARDED: 1, UNKNOWN: 1}  # each kind's share of the room, in quarters


class Admission:
    """The connections held, by kind and by peer; `admit` and `release` keep the counts."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.kinds: Counter[str] = Counter()
        self.peers: Counter[Hashable] = Counter()

    def share(self, kind: str) -> int:
        return max(self.room * QUARTERS.get(kind, 1) // 4, 1)

    def admit(self, kind: str, peer: Hashable | None) -> bool:
        """Take a place for a connection of `kind` from `peer` (None: the system names none), or
        say there is none (False: answer "busy")."""
        if self.kinds[kind] >= self.share(kind):
            return False
        if peer is not None and self.peers[peer] >= PER_PEER:
            return False
        self.kinds[kind] += 1
        if peer is not None:
            self.peers[peer] += 1
        return True

    def release(self, kind: str, peer: Hashable | None) -> None:
        self.kinds[kind] -= 1
        if peer is not None:
            self.peers[peer] -= 1
            if self.peers[peer] <= 0:
                del self.peers[peer]
