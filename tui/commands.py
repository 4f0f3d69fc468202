"""The CLI's commands other than `token` (which lives in cli.py, on the fast path)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from argparse import Namespace

from tui.core.errors import AuthError
from tui.text import clean, one_line

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def fail(exc: AuthError) -> None:
    """An AuthError on stderr: the spec's message, then its hint line when it has one."""
    err(exc.describe())


def err(message: str) -> None:
    sys.stderr.write(clean(message) + "\n")


def out_json(data: object) -> None:
    # ASCII-only JSON: every control or bidi character arrives escaped (\\u009b), never raw
    sys.stdout.write(json.dumps(data, ensure_ascii=True) + "\n")
    sys.stdout.flush()


# -- TUI entry points --------------------------------------------------------------------------

def _run_app(**kwargs) -> int:
    from tui.app import AssistantAuthApp

    AssistantAuthApp(**kwargs).run()
    return EXIT_OK


def cmd_tui(ns: Namespace) -> int:
    from tui.core.regions import parse_region

    region = parse_region(ns.region) if getattr(ns, "region", None) else None
    return _run_app(region=region, no_browser=getattr(ns, "no_browser", False))


def cmd_inspect(ns: Namespace) -> int:
    return _run_app(start="inspect")


def cmd_config(ns: Namespace) -> int:
    return _run_app(start="providers")


def cmd_token(ns: Namespace) -> int:  # `assistant-auth -v token` lands in cli.cmd_token; kept for argparse
    from tui.cli import cmd_token as fast

    return fast([])


# -- login --------------------------------------------------------------------------------------

def cmd_login(ns: Namespace) -> int:
    from tui.core.regions import parse_region

    region = parse_region(ns.region) if ns.region else None
    if not ns.no_tui:  # the wizard: --region preselects on the home screen, Enter starts
        return _run_app(region=region, no_browser=ns.no_browser)
    return asyncio.run(plain_login(region or parse_region(None), no_browser=ns.no_browser, as_json=ns.json))


class StatusLine:
    """One live line on stderr when it is a terminal; plain lines otherwise."""

    def __init__(self) -> None:
        import os

        # a live line needs a terminal that understands ESC[2K: not TERM=dumb (Emacs shells, CI)
        self.live = sys.stderr.isatty() and os.environ.get("TERM", "") not in ("dumb", "")
        self.last = ""

    def show(self, text: str) -> None:
        if self.live:
            sys.stderr.write("\r\x1b[2K" + clean(text))
            sys.stderr.flush()
        elif text != self.last:
            sys.stderr.write(clean(text) + "\n")
        self.last = text

    def done(self) -> None:
        if self.live and self.last:
            sys.stderr.write("\n")


async def plain_login(region, *, no_browser: bool = False, as_json: bool = False) -> int:
    from tui.browser import open_url, should_auto_open
    from tui.core.device_flow import poll_device_token, start_device_authorization
    from tui.core.regions import endpoints
    from tui.timefmt import clock

    host = endpoints(region).oauth_host
    try:
        auth = await start_device_authorization(region)
    except AuthError as exc:
        fail(exc)
        if as_json:
            out_json({"event": "error", "message": clean(str(exc))})
        return EXIT_ERROR
    uri = auth.verification_uri or auth.verification_uri_complete or "(no address sent by the server)"
    err(f"Region {region.value}: authorization host {host}")
    err(f"Open:  {one_line(uri)}")
    err(f"Code:  {one_line(auth.user_code)}")
    if auth.verification_uri_complete and auth.verification_uri_complete != uri:
        err(f"(or open {one_line(auth.verification_uri_complete)} with the code filled in)")
    if as_json:
        data = auth.to_dict()
        data.pop("device_code")  # a secret between this client and the server: never printed
        out_json({"event": "device_authorization", "region": region.value, "oauth_host": host, **data})
    target = auth.verification_uri_complete or auth.verification_uri
    if target and should_auto_open(no_browser):
        err(open_url(target))
    line = StatusLine()
    started = time.monotonic()
    budget = auth.time_budget
    counters = {"polls": 0, "interval": max(auth.poll_interval, 1), "slow_downs": 0}

    def render() -> str:
        left = budget - (time.monotonic() - started)
        return (
            f"Waiting for approval… expires in {clock(left)} · every {counters['interval']} s · "
            f"{counters['polls']} polls · {counters['slow_downs']} slow-downs"
        )

    def on_status(status) -> None:
        counters["polls"] += 1
        counters["interval"] = status.interval or counters["interval"]
        if status.status == "slow_down":
            counters["slow_downs"] += 1
        if not line.live:
            line.show(render())

    async def ticker() -> None:
        while True:
            line.show(render())
            await asyncio.sleep(1)

    ticking = asyncio.create_task(ticker()) if line.live else None
    if not line.live:
        line.show(render())
    from tui.core.locks import reporting_to

    def waiting_for_lock(text: str) -> None:
        # the tokens are approved and wait for the slot's locks: a first Ctrl+C only asks
        _confirm_interrupt()  # before saying so: a Ctrl+C right after the line is already asked about
        line.done()
        err(text)
        err("The sign-in is approved and will be saved as soon as the lock is free; "
            "press Ctrl+C twice to discard it.")

    try:
        with reporting_to(waiting_for_lock):
            status = await poll_device_token(auth.device_code, auth.poll_interval, region, on_status=on_status)
    except asyncio.CancelledError:
        line.done()
        err("Sign-in discarded: nothing was saved. Run `assistant-auth login` again.")
        return 130
    except AuthError as exc:
        line.done()
        fail(exc)
        if as_json:
            out_json({"event": "error", "message": clean(str(exc))})
        return EXIT_ERROR
    finally:
        if ticking:
            ticking.cancel()
    line.done()
    messages = {
        "success": "Signed in.",
        "expired": "The code expired before it was approved. Run `assistant-auth login` again.",
        "access_denied": "Access was denied in the browser.",
        "timeout": "Gave up after 15 minutes without approval. Run `assistant-auth login` again.",
    }
    err(messages[status.status])
    if status.status == "success":
        from tui.core.paths import credentials_path
        from tui.core.slot_rules import region_storage_name

        err(f"Credentials written to {credentials_path(region_storage_name(region))}")
    if as_json:
        out_json({"event": "status", **status.to_dict()})
    return EXIT_OK if status.status == "success" else EXIT_FAIL


def _confirm_interrupt() -> None:
    """From now on, the first Ctrl+C only warns; a second one within 5 s discards (cancels)."""
    import signal

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    pressed: list[float] = []

    def on_sigint() -> None:
        now = time.monotonic()
        if pressed and now - pressed[-1] <= 5:
            err("Discarding the approved sign-in.")
            task.cancel()
            return
        pressed.append(now)
        err("Press Ctrl+C again within 5 s to discard the approved sign-in, or wait.")

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread / not POSIX
        pass


# -- status / refresh / logout -------------------------------------------------------------------

def _selection(ns: Namespace):
    from tui.core.selection import select

    return select(
        provider=getattr(ns, "provider", None),
        base_url=getattr(ns, "base_url", None),
        key=getattr(ns, "key", None),
        oauth_host=getattr(ns, "oauth_host", None),
    )


def _slot_name(selection) -> str:
    from tui.core.keys import resolve_context

    return resolve_context(selection.ref, selection.base_url).storage_name


def cmd_status(ns: Namespace) -> int:
    from tui.core.selection import config_or_empty, inferred_hosts, providers_by_slot
    from tui.core.status import file_warnings, list_slots, slot_status
    from tui.timefmt import expiry

    try:
        selection = _selection(ns)
    except AuthError as exc:
        fail(exc)
        return EXIT_ERROR
    selected = _slot_name(selection)
    slots = [slot_status(selected)] if ns.provider else list_slots()
    if selected not in [s.name for s in slots]:
        slots.insert(0, slot_status(selected))
    config = config_or_empty()  # read and parsed once for both listings
    users = providers_by_slot(config)
    missing_hosts = inferred_hosts(config)
    usable = next(s.usable for s in slots if s.name == selected)
    if ns.json:
        out_json(
            {
                "selected": selected,
                "usable": usable,
                "slots": [{**s.to_dict(), "providers": users.get(s.name, [])} for s in slots],
                "providers_missing_oauth_host": missing_hosts,
                "warnings": file_warnings(),
            }
        )
    else:
        for s in slots:
            marker = "*" if s.name == selected else " "
            line = f"{marker} {s.name}: {s.label}"
            if s.state in ("valid", "expired"):
                line += f", expires {expiry(s.expires_at)}"
                line += ", refresh token stored" if s.has_refresh_token else ""
            elif s.detail:
                line += f" ({one_line(s.detail, 80)})"
            if users.get(s.name):
                line += f"; used by {', '.join(users[s.name])}"
            sys.stdout.write(clean(line) + "\n")
            sys.stdout.write(f"    {clean(str(s.path))}\n")
        for warning in file_warnings():
            sys.stdout.write(clean(warning) + "\n")
        for name, host in missing_hosts.items():
            sys.stdout.write(clean(
                f"note: provider {name} names no oauth host in config.toml; its key was made for {host}, "
                "which is used. Write it back as oauthHost (assistant-auth config)."
            ) + "\n")
    return EXIT_OK if usable else EXIT_FAIL


def cmd_refresh(ns: Namespace) -> int:
    from tui.core.status import slot_status
    from tui.core.tokens import refresh_access_token
    from tui.timefmt import expiry

    from tui.core.selection import explain_for

    selection = None
    try:
        selection = _selection(ns)
        asyncio.run(refresh_access_token(selection.ref, selection.base_url))
    except AuthError as exc:
        fail(explain_for(exc, selection))
        return EXIT_FAIL
    status = slot_status(_slot_name(selection))
    if ns.json:
        out_json({"slot": status.name, "state": status.state, "expires_at": status.expires_at})
    else:
        sys.stdout.write(f"Refreshed {status.name}: access token expires {expiry(status.expires_at)}\n")
    return EXIT_OK


def cmd_logout(ns: Namespace) -> int:
    from tui.core.paths import credentials_path
    from tui.core.repair import remove_slot

    try:
        name = _slot_name(_selection(ns))
    except AuthError as exc:
        fail(exc)
        return EXIT_ERROR
    path = credentials_path(name)
    if not path.exists():
        err(f"Not signed in: no credentials at {path}")
        return EXIT_FAIL
    if not ns.yes:
        if not sys.stdin.isatty():
            err(f"Refusing to remove {path} without confirmation: pass --yes")
            return EXIT_ERROR
        sys.stderr.write(clean(f"Remove {path}? This signs you out. [y/N] "))
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            err("Kept.")
            return EXIT_FAIL
    try:
        remove_slot(name)
    except OSError as exc:
        err(f"Could not remove {path}: {exc.strerror or exc}")
        return EXIT_ERROR
    err(f"Signed out: removed {path}")
    return EXIT_OK


# -- demo -----------------------------------------------------------------------------------------

def cmd_demo(ns: Namespace) -> int:
    import tempfile

    from tui.devserver import AuthServer

    home = tempfile.mkdtemp(prefix="assistant-auth-demo-")
    server = AuthServer(interval=2, auto_approve=ns.approve_after).start()
    port = server.url.rsplit(":", 1)[1]
    os.environ.update(
        {
            "ASSISTANT_CODE_HOME": home,
            "ASSISTANT_OAUTH_HOST_CN": f"http://127.0.0.1:{port}",
            "ASSISTANT_OAUTH_HOST_GLOBAL": f"http://localhost:{port}",
            "ASSISTANT_BASE_URL_CN": f"http://127.0.0.1:{port}/cn/coding/v1",
            "ASSISTANT_BASE_URL_GLOBAL": f"http://localhost:{port}/global/coding/v1",
        }
    )
    err(f"Demo: local authorization server at {server.url} (auto-approves after {ns.approve_after:g} s)")
    err(f"Demo: approve by hand at {server.verification_uri()}")
    err(f"Demo: temporary ASSISTANT_CODE_HOME={home} (your real files are not touched)")
    try:
        if ns.no_tui or not (sys.stdin.isatty() and sys.stdout.isatty()):
            from tui.core.regions import Region

            return asyncio.run(plain_login(Region.CN, no_browser=True))
        return _run_app(no_browser=True)
    finally:
        server.stop()
        err(f"Demo files kept in {home}")
