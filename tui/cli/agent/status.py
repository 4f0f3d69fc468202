"""`status` where `ASSISTANT_AUTH_SOCK` is set: the slots as the agent on the person's own
machine sees them, and that no refresh token is stored on this one."""

from __future__ import annotations

from tui.cli.options import selector_of
from tui.cli.output import err, out, out_json
from tui.core.agent.client.forwarded import relays_running
from tui.core.agent.client.listing import accounts, listed, managed_account, selected as chosen
from tui.core.agent.client.proof import read_answer_key
from tui.core.agent.client.through import selector_request
from tui.core.agent.client.trouble import unfit
from tui.core.agent.served import UNREACHABLE, Served
from tui.core.agent.source import Failed, ask_agent, served, socket_path
from tui.core.agent.wire.protocol import Request
from tui.core.credentials.slot import expires_at_of
from tui.core.slots.state import LABELS
from tui.core.spec.keys import named_account_label
from tui.core.text.humantime import expiry
from tui.core.text.i18n import _
from tui.core.text.untrusted import one_line


def where_served(ns) -> Served:
    """Where `status` looks when `ASSISTANT_AUTH_SOCK` is set (the one source decides): the
    agent's slots (FORWARDED, OTHER_HOME: a server), this machine's files with the agent that serves them
    (AGENT_HERE), this machine's own sign-in when no agent answers (FILES, said), or nothing
    (UNREACHABLE: said, exit 3)."""
    found = served(selector_of(ns))
    for line in found.notes:
        err(line)
    if found.where == UNREACHABLE:
        err(found.problem)
    return found


def status_from_agent(ns, at: str | None = None) -> int:
    """`status` on a machine whose tokens come from the agent: each slot as the person's own
    machine sees it, and that no refresh token is stored here. Exit 0 when the slot `token`
    would use is usable, 1 when not, 3 when the agent does not answer."""
    selector = selector_of(ns)
    checked = selector_request("status", selector)
    if isinstance(checked, Failed):
        return said_failure(checked)
    where = at or socket_path() or ""  # the connection `served` fell over to, else the variable's
    answer, notes, via = ask_agent(
        Request("status", key=read_answer_key(where)), at=where
    )  # the key: the agent's machine
    for line in notes:
        err(line)
    if isinstance(answer, Failed):
        return said_failure(answer)
    where = via or where  # a live connection fallen over to, for the rest of this command
    slots, default = listed(answer)
    selected, problem = chosen(slots, selector, default)
    if problem is not None:  # an account not there, or in both regions: usage, as everywhere
        return said_failure(unfit(problem, selector))
    usable = bool(selected and selected.get("usable") is True)
    if getattr(ns, "json", False):
        out_json(
            {
                "schema_version": 1,
                "agent": {"socket": where, "pid": answer.get("pid")},
                "refresh_token_stored_here": False,
                "selected": selected.get("name") if selected else None,
                "usable": usable,
                "slots": slots,
                "accounts": accounts(slots, default),
                "managed_account": managed_account(slots, default),
            }
        )
        return 0 if usable else 1
    out(
        _(
            "Served by the token agent on your own machine ({socket}): no refresh token is stored on this machine."
        ).format(socket=one_line(where, 500))
    )
    for s in slots:
        marker = "*" if s is selected else " "
        out(f"{marker} {_slot_text(s)}")
        if s.get("usable") is True and isinstance(s.get("identity"), str):
            out("    " + _("Signed in as {who}").format(who=one_line(s["identity"], 200)))
    out(_("* the slot `assistant-auth token` uses"))
    for slot, pid in relays_running():
        out(
            _("A relay (pid {pid}) keeps slot {slot}'s file filled for the official client here.").format(
                pid=pid, slot=one_line(slot, 100)
            )
        )
    return 0 if usable else 1


def said_failure(failed: Failed) -> int:
    for line in failed.notes + failed.lines:
        err(line)
    return failed.code


def _slot_text(s: dict) -> str:
    name = named_account_label(s["name"]) or (
        one_line(s["region"], 60) if isinstance(s.get("region"), str) else one_line(s["name"], 60)
    )
    state = str(s.get("state"))
    label = _(LABELS[state]) if state in LABELS else one_line(state, 40)
    expires_at = expires_at_of(s)
    if expires_at is not None and state in ("valid", "expired"):
        return _("{name}: {state}, expires {when}").format(name=name, state=label, when=expiry(expires_at))
    return f"{name}: {label}"
