"""Untrusted text is one printable line wherever it is shown.

Arbitrary Unicode (newlines, U+2028, C1 controls, bidi overrides, escape sequences…) is fed
through every place an identity, a host, a server message, an address or a file name is printed:
`status`, `doctor`, `login`, `refresh`, Home, Done, the inspector and the Doctor screen. The
property: the output has exactly the lines it has for a harmless value, and no line holds a
character `tui.core.text.untrusted` would replace. JSON stays faithful.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json

from hypothesis import HealthCheck, example, given, settings, strategies as st

from tests.app.helpers import screen_name, screen_text, wait_for
from tests.conftest import write_creds
from tui.app import AssistantAuthApp
from tui.cli import main
from tui.core.text.untrusted import LIMIT, MARK, clean, is_one_printable_line, one_line

FORGED = "ada\n* other-slot: valid, expires in 999 days"
NASTY = [
    FORGED,
    "a\u2028b\u2029c",
    "\x1b[2J\x1b]52;c;ZXZpbA==\x07",
    "\u202eevil",
    "x\ry",
    "\x85next",
    "\x9b31m",
    "\t",
    "",
]
text = st.text(max_size=60)
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SLOW = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def jwt(**claims) -> str:
    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'exp': 4102444800, **claims})}.sig"


def lines_ok(output: str) -> bool:
    return all(is_one_printable_line(line) for line in output.splitlines())


def run_cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


# -- the function itself ------------------------------------------------------------------------


@given(st.text(), st.integers(min_value=1, max_value=400))
@example(FORGED, 80)
def test_one_line_is_one_printable_line_within_its_width(value, width):
    shown = one_line(value, width)
    assert is_one_printable_line(shown) and "\n" not in shown and len(shown) <= width
    assert len(one_line(value)) <= LIMIT


@given(st.text())
def test_clean_keeps_only_newlines_and_tabs_of_the_controls(value):
    shown = clean(value)
    assert all(is_one_printable_line(line.replace("\t", " ")) for line in shown.split("\n"))
    assert shown.count("\n") == value.count("\n")


@given(st.text(alphabet=st.characters(categories=["L", "N", "P", "S", "Zs"]), max_size=40))
def test_harmless_text_is_left_as_it_is(value):
    assert one_line(value) == value and MARK not in one_line(value)


# -- the command line ------------------------------------------------------------------------------


def signed_in(home, identity: str, name: str = "assistant-code") -> None:
    write_creds(home, {"access_token": jwt(name=identity), "refresh_token": "RT", "expires_at": 4102444800}, name=name)


@FAST
@given(identity=text)
@example(identity=FORGED)
@example(identity="\u2028\u2029\x85")
def test_status_shows_an_identity_as_one_line(home, identity):
    signed_in(home, "ada")
    _code, benign, _ = run_cli("status")
    signed_in(home, identity)
    _code, hostile, _ = run_cli("status")
    assert len(hostile.splitlines()) == len(benign.splitlines()) and lines_ok(hostile)
    _code, data, _ = run_cli("status", "--json")
    claim = json.loads(data)["slots"][0]["identity"]
    assert claim == (identity.strip()[:80] or None)  # faithful in JSON


@FAST
@given(
    name=st.text(
        alphabet=st.characters(blacklist_characters="/\x00", blacklist_categories=["Cs"]), min_size=1, max_size=30
    )
)
@example(name="x\n* forged: valid")
def test_status_and_doctor_show_a_file_name_as_one_line(home, name):
    if name.startswith(".") or name in (".", ".."):
        return
    signed_in(home, "ada")
    (home / "credentials" / "zz.json").write_text("{not json")
    _c, benign, _ = run_cli("status")
    _c, benign_doctor, _ = run_cli("doctor", "--offline")
    (home / "credentials" / "zz.json").unlink()
    (home / "credentials" / f"{name}.json").write_text("{not json")
    try:
        _c, hostile, _ = run_cli("status")
        _c, hostile_doctor, _ = run_cli("doctor", "--offline")
    finally:
        (home / "credentials" / f"{name}.json").unlink()
    assert len(hostile.splitlines()) == len(benign.splitlines()) and lines_ok(hostile)
    assert len(hostile_doctor.splitlines()) == len(benign_doctor.splitlines()) and lines_ok(hostile_doctor)


@FAST
@given(identity=text)
@example(identity=FORGED)
def test_doctor_shows_an_identity_as_one_line(home, identity):
    signed_in(home, "ada")
    _c, benign, _ = run_cli("doctor", "--offline")
    signed_in(home, identity)
    _c, hostile, _ = run_cli("doctor", "--offline")
    assert len(hostile.splitlines()) == len(benign.splitlines()) and lines_ok(hostile)


@SLOW
@given(identity=text)
@example(identity=FORGED)
def test_refresh_shows_an_identity_as_one_line(home, server, identity):
    write_creds(home, {**server.issue_tokens(subject="ada"), "expires_at": 1})
    _c, benign, _ = run_cli("refresh")
    write_creds(home, {**server.issue_tokens(subject=identity), "expires_at": 1})
    code, hostile, err = run_cli("refresh")
    assert code == 0, err
    assert len(hostile.splitlines()) == len(benign.splitlines()) and lines_ok(hostile)


@SLOW
@given(identity=text, code=st.text(min_size=1, max_size=20), address=text)
@example(identity=FORGED, code="AB\nCD", address="https://x.example/\n2. Enter this code there:\nFAKE")
def test_login_shows_identity_code_and_address_as_one_line_each(home, server, identity, code, address):
    def sign_in(subject, user_code, uri) -> str:
        server.subject, server.user_code_factory = subject, (lambda: user_code)
        server.verification_uri_override = uri
        server.auto_approve = 0
        done, _out, err = run_cli("login", "--no-tui", "--force", "--no-browser")
        assert done == 0, err
        return err

    benign = sign_in("ada", "ABCD-EFGH", "https://auth.example/device")
    hostile = sign_in(identity, code, address or "https://auth.example/device")
    assert len(hostile.splitlines()) == len(benign.splitlines()) and lines_ok(hostile)


@SLOW
@given(error=text)
@example(error="boom\n* other-slot: valid")
def test_login_shows_a_server_message_as_one_line(home, server, error):
    from tui.demo.server import TOKEN_PATH

    def fail_with(code: str) -> str:
        server.inject(TOKEN_PATH, status=400, body=json.dumps({"error": code, "error_description": code}))
        _done, _out, err = run_cli("login", "--no-tui", "--force", "--no-browser")
        return err

    benign = fail_with("weird_error")
    hostile = fail_with(
        error
        if error not in ("authorization_pending", "slow_down", "expired_token", "access_denied")
        else "weird_error"
    )
    assert len(hostile.splitlines()) == len(benign.splitlines()) and lines_ok(hostile)


# -- the screens ---------------------------------------------------------------------------------


def row_of(screen: str, marker: str) -> int:
    return next(i for i, line in enumerate(screen.splitlines()) if marker in line)


async def _home_rows(home, identity: str) -> tuple[int, str]:
    signed_in(home, identity)
    app = AssistantAuthApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "Choose the region" in screen_text(app))
        screen = screen_text(app)
    return row_of(screen, "Choose the region"), screen


@SLOW
@given(identity=text)
@example(identity=FORGED)
async def test_home_shows_an_identity_as_one_line(home, identity):
    benign_row, _ = await _home_rows(home, "ada")
    row, screen = await _home_rows(home, identity)
    assert row == benign_row


async def _done_rows(home, identity: str) -> int:
    from tui.app.screens.done import DoneScreen
    from tui.core import Region

    signed_in(home, identity)
    app = AssistantAuthApp()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "HomeScreen")
        await app.push_screen(DoneScreen(Region.CN))
        await wait_for(pilot, lambda: "Files in" in screen_text(app))
        return row_of(screen_text(app), "Files in")


@SLOW
@given(identity=text)
@example(identity=FORGED)
async def test_done_shows_an_identity_as_one_line(home, identity):
    assert await _done_rows(home, identity) == await _done_rows(home, "ada")


@FAST
@given(identity=text, provider=text, detail=text)
@example(identity=FORGED, provider="p\n* forged", detail="x\ny")
def test_inspector_details_are_one_line_each(home, identity, provider, detail):
    from tui.app.widgets.slot_details import detail_lines
    from tui.core.slots.state import slot_status

    signed_in(home, identity)
    lines = detail_lines(slot_status("assistant-code"), [provider], missing_hosts={provider: detail}, warnings=[detail])
    assert all(is_one_printable_line(line) for line in lines)


@SLOW
@given(identity=text)
@example(identity=FORGED)
async def test_inspector_and_doctor_screens_show_an_identity_as_one_line(home, identity):
    signed_in(home, identity)
    app = AssistantAuthApp(start="inspect")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "CredentialsScreen")
        await wait_for(pilot, lambda: "Used by" in screen_text(app))
        inspector = screen_text(app)
        await pilot.press("d")
        await wait_for(pilot, lambda: screen_name(app) == "DoctorScreen" and bool(app.screen.checks), timeout=30)
        doctor = app.screen
        finding = next(c for c in doctor.checks if c.name == "credentials.assistant-code").finding
    assert is_one_printable_line(finding)
    assert "other-slot" not in "\n".join(line for line in inspector.splitlines() if line.lstrip().startswith("*"))


def test_the_forged_line_never_starts_a_line(home):
    """The reported attack, spelled out: a claim that looks like a status line of another slot."""
    signed_in(home, FORGED)
    code, out, _ = run_cli("status")
    assert code == 0
    assert not any(line.startswith("* other-slot") for line in out.splitlines())
    shown = [line for line in out.splitlines() if "ada" in line]
    assert len(shown) == 1 and "other-slot: valid" in shown[0]  # the claim is shown, flattened to one line
    code, out, _ = run_cli("doctor", "--offline")
    assert code == 0
    assert not any(line.lstrip().startswith("* other-slot") for line in out.splitlines())
    shown = [line for line in out.splitlines() if "ada" in line]
    assert len(shown) == 1 and "other-slot: valid" in shown[0]


async def test_an_address_with_newlines_draws_no_fake_step(home, server):
    """The reported attack on the code screen: an address that draws "2. Enter this code there"
    with a fake code and pushes the real code below the footer."""
    server.verification_uri_override = "https://auth.example/device\n2. Enter this code there:\nFAKE-CODE\n\n\n\n"
    app = AssistantAuthApp(no_browser=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await wait_for(pilot, lambda: getattr(app.screen, "auth", None) is not None)
        await wait_for(pilot, lambda: "Waiting for you to approve" in screen_text(app))
        screen = screen_text(app)
        code = app.screen.auth.user_code
        await pilot.press("escape")
    rows = [line.strip() for line in screen.splitlines()]
    assert sum(row.startswith("2. Enter this code there") for row in rows) == 1  # the real step only
    assert " ".join(code) in screen and "esc" in screen.splitlines()[-1]
    assert not any(line.strip() == "FAKE-CODE" for line in screen.splitlines())
