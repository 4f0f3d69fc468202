"""`assistant-auth status`: every credential slot and its state, never a token."""

from __future__ import annotations

from tui.cli.output import EXIT_ERROR, EXIT_FAIL, EXIT_OK, out, out_json


SCHEMA_VERSION = 1  # of `status --json`: raised when a field changes meaning or goes away


def add_parser(sub) -> None:
    from tui.cli.options import add_selector

    p = sub.add_parser(
        "status",
        help="state of every credential slot",
        description="Show every credential slot, its state and who is signed in, never a token. The slot "
        "marked * is the one `assistant-auth token` would use (with a selector: the selected one). "
        "Exit 0 when that slot is usable, 1 when it is not, 2 on a usage error.",
    )
    p.add_argument("--json", action="store_true", help=f"one JSON object on stdout for scripts (schema_version {SCHEMA_VERSION})")
    add_selector(p)


def run(ns) -> int:
    from tui.cli.options import selected_slot, selector_values
    from tui.core.slots.choice import inferred_hosts, providers_by_slot
    from tui.core.config.read import config_and_problem
    from tui.core.slots.state import file_warnings, list_slots, signed_in_as, slot_status
    from tui.core.slots.switch import managed_slot
    from tui.terminal.text import one_line
    from tui.terminal.timefmt import expiry

    selected = selected_slot(ns)
    if selected is None:
        return EXIT_ERROR
    narrowed = any(v is not None for v in selector_values(ns).values())
    slots = [slot_status(selected)] if narrowed else list_slots()
    if selected not in [s.name for s in slots]:
        slots.insert(0, slot_status(selected))
    config, problem = config_and_problem()  # read and parsed once for both listings
    users = providers_by_slot(config)
    missing_hosts = inferred_hosts(config)
    warnings = file_warnings()
    usable = next(s.usable for s in slots if s.name == selected)
    managed = managed_slot(config)
    if ns.json:
        out_json(
            {
                "schema_version": SCHEMA_VERSION,
                "selected": selected,
                "managed_slot": managed,
                "usable": usable,
                "slots": [{**s.to_dict(), "providers": users.get(s.name, [])} for s in slots],
                "providers_missing_oauth_host": missing_hosts,
                "warnings": warnings,
                "config_problem": problem.describe() if problem else None,
            }
        )
        return EXIT_OK if usable else EXIT_FAIL
    for s in slots:
        marker = "*" if s.name == selected else " "
        line = f"{marker} {s.name}: {s.label}"
        if s.has_expiry:
            line += f", expires {expiry(s.expires_at)}"
            line += ", refresh token stored" if s.has_refresh_token else ""
        elif s.detail:
            line += f" ({one_line(s.detail, 80)})"
        if users.get(s.name):
            line += f"; used by {', '.join(users[s.name])}"
        out(line)
        if s.usable:
            out(f"    {signed_in_as(s)}" + (" (used by the managed provider)" if s.name == managed else ""))
        out(f"    {s.path}")
    out("* the slot `assistant-auth token` uses" + (" (the one selected)" if narrowed else ""))
    for warning in warnings:
        out(warning)
    if problem is not None:
        out("warning: " + problem.describe())
    for name, host in missing_hosts.items():
        out(
            f"note: provider {name} names no oauth host in config.toml; its key was made for {host}, "
            "which is used. Write it back as oauthHost (assistant-auth config)."
        )
    return EXIT_OK if usable else EXIT_FAIL
