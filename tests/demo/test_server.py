"""The local authorization server itself: the page, rotation and fault injection."""

import httpx

from tui.core.credentials.jwt import decode_claims
from tui.demo.server import DEVICE_PATH, PAGE_PATH, TOKEN_PATH, AuthServer


def device(server):
    return httpx.post(server.url + DEVICE_PATH, data={"client_id": "test-client"}).json()


def poll(server, device_code):
    return httpx.post(
        server.url + TOKEN_PATH,
        data={
            "client_id": "test-client",
            "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
            "device_code": device_code,
        },
    )


def test_page_approves_with_typed_code(server):
    auth = device(server)
    page = httpx.get(auth["verification_uri_complete"])
    assert page.status_code == 200 and auth["user_code"] in page.text
    typed = auth["user_code"].lower()  # people type lower case
    result = httpx.post(server.url + PAGE_PATH, data={"user_code": typed, "action": "approve"})
    assert "approved" in result.text
    response = poll(server, auth["device_code"])
    assert response.status_code == 200 and response.json()["access_token"].count(".") == 2
    assert poll(server, auth["device_code"]).json()["error"] == "invalid_grant"  # consumed


def test_page_escapes_the_code(server):
    page = httpx.get(server.url + PAGE_PATH + '?user_code="><script>x</script>')
    assert "<script>x" not in page.text


def test_page_deny_and_unknown_code(server):
    auth = device(server)
    assert "denied" in httpx.post(server.url + PAGE_PATH, data={"user_code": auth["user_code"], "action": "deny"}).text
    assert poll(server, auth["device_code"]).json()["error"] == "access_denied"
    assert httpx.post(server.url + PAGE_PATH, data={"user_code": "NOPE", "action": "approve"}).status_code == 400


def test_unknown_client_rejected(server):
    assert httpx.post(server.url + DEVICE_PATH, data={"client_id": "other"}).status_code == 401


def test_auto_approve():
    with AuthServer(auto_approve=0, interval=1) as srv:
        auth = httpx.post(srv.url + DEVICE_PATH, data={"client_id": "x"}).json()
        assert poll(srv, auth["device_code"]).status_code == 200


def test_injected_fault_then_normal(server):
    server.inject(DEVICE_PATH, status=503, body="maintenance", content_type="text/plain")
    first = httpx.post(server.url + DEVICE_PATH, data={"client_id": "test-client"})
    assert (first.status_code, first.text) == (503, "maintenance")
    assert httpx.post(server.url + DEVICE_PATH, data={"client_id": "test-client"}).status_code == 200


def test_a_client_gone_before_its_answer_prints_nothing(server, capsys):
    """`assistant-auth demo` runs in a person's terminal: a client that hung up (a stopped
    `token`, a closed tab) leaves no traceback there; another error is still reported."""
    httpd = server._httpd
    for gone in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "Connection reset by peer")):
        try:
            raise gone
        except OSError:
            httpd.handle_error(None, ("127.0.0.1", 1))
    assert capsys.readouterr().err == ""
    try:
        raise ValueError("a bug in the server")
    except ValueError:
        httpd.handle_error(None, ("127.0.0.1", 1))
    assert "a bug in the server" in capsys.readouterr().err


def test_the_page_chooses_who_approves(server):
    page = httpx.get(server.url + PAGE_PATH)
    assert 'name=subject value="user-1"' in page.text  # who approves, as the page offers it
    subjects = []
    for who in ("alice", "  bob  ", "", "x" * 65, "ev\nil"):
        auth = device(server)
        httpx.post(server.url + PAGE_PATH, data={"user_code": auth["user_code"], "action": "approve", "subject": who})
        token = poll(server, auth["device_code"]).json()["access_token"]
        subjects.append(decode_claims(token)["sub"])
    assert subjects == ["alice", "bob", "user-1", "user-1", "user-1"]  # a subject that cannot be one: the default
    auth = device(server)
    assert "Approved" in server.approve_on_page(auth["user_code"], "carol")
    assert decode_claims(poll(server, auth["device_code"]).json()["access_token"])["sub"] == "carol"
