"""Who is answered what: the agent's access policy as one table (pure), and the rule that keeps
the agent's machine out of what a forwarded connection reads.

| operation | from this machine | forwarded (through ssh, or relayed: sshd, socat, nc) |
|---|---|---|
| `ping` (alive: no identity, no path) | served | served |
| `token`, `status`, `events` | served; under `--confirm`, once the person allowed it | the same |
| `stop` (changes the agent) | served | **never**: `--stop` belongs to the person's own machine |
| `answerer` | only with the agent's key (read on its machine) | the same: the key cannot be read there |

A connection that shows the agent's answer key (a wizard on the agent's machine read it from the
agent's private directory) is the person's own: under `--confirm` it is never asked about.

Answers to forwarded connections name no path of the agent's machine (`without_local_paths`): the
person's home becomes `~`, the agent's own directories `…`. A home path names the person."""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterable

from tui.core.agent.wire.protocol import ASKED_UNDER_CONFIRM, LOCAL, OWN_MACHINE_ONLY, encode
from tui.core.spec import paths


class Access(enum.Enum):
    SERVE = "serve"
    ASK = "ask"  # under --confirm: the person's answer first
    REFUSE = "refuse"


NOT_FROM_A_SERVER = (
    "stop is not accepted through a forwarded connection: the agent is stopped on its own machine "
    "(assistant-auth agent --stop there)"
)


def access(op: str, origin: str, *, confirm: bool, allowed: bool) -> Access:
    """What the agent does with `op` from a connection of `origin`: `confirm` is `--confirm`,
    `allowed` that the person allowed this connection (or it proved it is on the agent's machine)."""
    if op in OWN_MACHINE_ONLY and origin != LOCAL:  # forwarded, or a stranger the system cannot place
        return Access.REFUSE
    if op in ASKED_UNDER_CONFIRM and confirm and not allowed:
        return Access.ASK
    return Access.SERVE


def local_roots(socket_path: str) -> list[tuple[str, str]]:
    """(a path of this machine, what a forwarded answer says instead), longest first."""
    home = os.path.expanduser("~").rstrip(os.sep)
    config = paths.config_dir_str()
    wanted = [(os.path.dirname(socket_path), "…"), (os.environ.get("XDG_RUNTIME_DIR", ""), "…"), (home, "~")]
    if not config.startswith(home + os.sep):  # under the home it is said as ~/…
        wanted.append((config, "…"))
    found = set()
    for root, shown in wanted:
        for spelling in {root, os.path.realpath(root)} if root else set():
            spelling = spelling.rstrip(os.sep)
            if len(spelling) > 1:
                found.add((spelling, shown))
    return sorted(found, key=lambda pair: (-len(pair[0]), pair[0]))


def scrub(text: str, roots: Iterable[tuple[str, str]]) -> str:
    for root, shown in roots:
        if root in text:
            text = text.replace(root, shown)
    return text


def without_local_paths(line: bytes, roots: list[tuple[str, str]]) -> bytes:
    """An answer line with every string in it (but the access token) free of `roots`."""
    try:
        data = json.loads(line)
    except ValueError:
        return line
    return encode(_walk(data, roots))


def _walk(value: object, roots: list[tuple[str, str]], key: str = "") -> object:
    if isinstance(value, str):
        return value if key == "access_token" else scrub(value, roots)
    if isinstance(value, list):
        return [_walk(item, roots) for item in value]
    if isinstance(value, dict):
        return {scrub(str(name), roots): _walk(item, roots, str(name)) for name, item in value.items()}
    return value


def without_cause(line: bytes) -> bytes:
    """A refusal for this machine: its own message as it is (the cause is for a server's words)."""
    if b'"cause"' not in line:
        return line
    data = json.loads(line)
    data.pop("cause", None)
    return encode(data)
