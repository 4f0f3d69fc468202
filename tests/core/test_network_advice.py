"""#57 10: the advice after a network failure follows what happened, against real servers on
127.0.0.1: nothing listening (the host, the network, a proxy), TLS refused (a certificate
authority), a plain-http server that accepted the connection and never answered (the server's
trouble: neither HTTPS_PROXY nor SSL_CERT_FILE is named)."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from tests.core.test_doctor import ca, free_port, tls_server  # noqa: F401 - fixtures
from tui.core import http
from tui.core.errors import AuthError


def _post(url: str, sync: bool) -> AuthError:
    with pytest.raises(AuthError) as failed:
        if sync:
            http.post_form_sync(url, {"a": "b"}, None, "Token polling request failed")
        else:

            async def go() -> None:
                import httpx

                async with httpx.AsyncClient() as client:
                    await http.post_form(client, url, {"a": "b"}, None, "Token polling request failed")

            asyncio.run(go())
    return failed.value


@pytest.fixture
def silent_server():
    """Accepts connections, reads, and never answers (until the test ends)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            held.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/api/oauth/token"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


@pytest.mark.parametrize("sync", [False, True], ids=["async", "sync"])
def test_nothing_listening_names_the_network_and_a_proxy(sync):
    advice = _post(f"http://127.0.0.1:{free_port()}/api/oauth/token", sync).hint
    assert "Nothing answered at 127.0.0.1" in advice and "HTTPS_PROXY" in advice and "SSL_CERT_FILE" not in advice


@pytest.mark.parametrize("sync", [False, True], ids=["async", "sync"])
def test_a_server_that_never_answers_is_its_trouble_not_a_setting(silent_server, monkeypatch, sync):
    monkeypatch.setattr(http, "REQUEST_TIMEOUT", 1.0)
    failed = _post(silent_server, sync)
    assert "timed out" in failed.message
    assert "accepted the connection and did not answer" in failed.hint
    assert "HTTPS_PROXY" not in failed.hint and "SSL_CERT_FILE" not in failed.hint


@pytest.mark.parametrize("sync", [False, True], ids=["async", "sync"])
def test_a_connection_dropped_without_an_answer_is_the_servers_trouble(server, sync):
    from tui.demo.server import TOKEN_PATH

    server.inject(TOKEN_PATH, mode="reset")
    advice = _post(server.url + TOKEN_PATH, sync).hint
    assert "accepted the connection and did not answer" in advice and "HTTPS_PROXY" not in advice


@pytest.mark.parametrize("sync", [False, True], ids=["async", "sync"])
def test_tls_refused_names_the_certificate_authority(tls_server, sync):  # noqa: F811 - the fixture
    from tui.demo.server import TOKEN_PATH

    advice = _post(tls_server.url + TOKEN_PATH, sync).hint
    assert "secure connection" in advice and "SSL_CERT_FILE" in advice and "HTTPS_PROXY" not in advice


@pytest.mark.parametrize("region", ["cn", "global"])
def test_the_advice_names_the_variable_of_the_sign_ins_own_region(server, monkeypatch, region):
    """Walked: both regions pointed at one host, a global sign-in's poll got no answer and the
    advice said the host was "set by ASSISTANT_OAUTH_HOST_CN". The region polled names its own."""
    from tui.core.signin.protocol import poll_for_tokens
    from tui.core.spec.regions import Region
    from tui.demo.server import TOKEN_PATH

    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", server.url)
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_GLOBAL", server.url)
    server.inject(TOKEN_PATH, mode="reset")
    with pytest.raises(AuthError) as failed:
        asyncio.run(poll_for_tokens("dc", 5, Region(region)))
    other = "GLOBAL" if region == "cn" else "CN"
    assert f"set by ASSISTANT_OAUTH_HOST_{region.upper()})" in failed.value.hint
    assert f"ASSISTANT_OAUTH_HOST_{other}" not in failed.value.hint
    server.inject(TOKEN_PATH, status=503, body="busy", content_type="text/plain")  # the server's trouble: the same
    with pytest.raises(AuthError) as trouble:
        asyncio.run(poll_for_tokens("dc", 5, Region(region)))
    assert f"set by ASSISTANT_OAUTH_HOST_{region.upper()})" in trouble.value.hint
