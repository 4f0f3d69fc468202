"""`status` where `ASSISTANT_AUTH_SOCK` is set: the slots as the agent on the person's own
machine sees them, and that no refresh token is stored on this one."""

from __future__ import annotations

from tui.cli.options import selector_values
from tui.cli.output import EXIT_ERROR, out, out_json
from tui.cli.through_agent import asked, selector_request
from tui.core.agent.client import socket_path
from tui.core.agent.place import read_answer_key
from tui.core.agent.protocol import Request
from tui.core.humantime import expiry
from tui.core.i18n import _
from tui.core.slots.state import LABELS
from tui.core.untrusted import one_line


def status_from_agent(ns) -> int:
    """`status` on a machine whose tokens come from the agent: each slot as the person's own
    machine sees it, and that no refresh token is stored here. Exit 0 when the slot `token`
    would use is usable, 1 when not, 3 when the agent does not answer."""
    values = {name: value for name, value in selector_values(ns).items() if value is not None}
    if selector_request("status", values) is None:
        return EXIT_ERROR
    where = socket_path() or ""
    answer = asked(Request("status", key=read_answer_key(where)))  # the key: this is the agent's machine
    if isinstance(answer, int):
        return answer
    slots = [s for s in answer.get("slots") or [] if isinstance(s, dict) and isinstance(s.get("name"), str)]
    selected = _selected(slots, values, str(answer.get("default") or ""))
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
    return 0 if usable else 1


def _selected(slots: list[dict], values: dict, default: str) -> dict | None:
    if "slot" in values:
        return next((s for s in slots if s["name"] == values["slot"]), None)
    if "region" in values:
        return next((s for s in slots if s.get("region") == values["region"]), None)
    return next((s for s in slots if s["name"] == default), None)


def _slot_text(s: dict) -> str:
    name = one_line(s["region"], 60) if isinstance(s.get("region"), str) else one_line(s["name"], 60)
    state = str(s.get("state"))
    label = _(LABELS[state]) if state in LABELS else one_line(state, 40)
    expires_at = s.get("expires_at")
    if isinstance(expires_at, (int, float)) and not isinstance(expires_at, bool) and state in ("valid", "expired"):
        return _("{name}: {state}, expires {when}").format(name=name, state=label, when=expiry(expires_at))
    return f"{name}: {label}"
