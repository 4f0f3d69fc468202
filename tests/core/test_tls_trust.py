"""One TLS trust per process (`http.tls_trust`): the bundle is loaded once while its settings and
its file stay as they are, and read again the moment either changes, against a real https://
server on 127.0.0.1 with a throw-away CA. A stale trust is never used: a bundle rewritten in
place, another file, no file at all, each is what the next request verifies with."""

from __future__ import annotations

import httpx
import pytest
import trustme

from tests.core.test_doctor import ca, tls_server  # noqa: F401 - fixtures
from tui.core import http
from tui.core.errors import AuthError
from tui.demo.server import TOKEN_PATH


def _post(server) -> http.Response:
    return http.post_form_sync(server.url + TOKEN_PATH, {"grant_type": "x"}, None, "Token polling request failed")


@pytest.fixture
def loads(monkeypatch) -> list[object]:
    """Each time httpx builds a trust (loads a bundle)."""
    seen: list[object] = []
    build = httpx.create_ssl_context

    def counted(*args, **kwargs):
        seen.append(kwargs)
        return build(*args, **kwargs)

    monkeypatch.setattr(httpx, "create_ssl_context", counted)
    monkeypatch.setattr(http, "_TRUST", {})
    return seen


def test_requests_share_one_trust_while_nothing_changes(tls_server, ca, tmp_path, monkeypatch, loads):  # noqa: F811
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    first = _post(tls_server)
    second = _post(tls_server)
    assert first.status == second.status == 401  # the server answers (no client id sent), over TLS both times
    assert len(loads) == 1
    assert http.tls_trust() is http.tls_trust()
    assert len(loads) == 1


def test_a_changed_trust_is_read_again_never_a_stale_one(tls_server, ca, tmp_path, monkeypatch, loads):  # noqa: F811
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    assert _post(tls_server).status == 401

    trustme.CA().cert_pem.write_to_path(str(bundle))  # rewritten in place: another authority
    with pytest.raises(AuthError) as refused:
        _post(tls_server)
    assert "secure connection" in refused.value.hint

    other = tmp_path / "other.pem"
    ca.cert_pem.write_to_path(str(other))
    monkeypatch.setenv("SSL_CERT_FILE", str(other))  # another file that trusts the server
    assert _post(tls_server).status == 401

    monkeypatch.delenv("SSL_CERT_FILE")  # httpx's own bundle: the throw-away CA is not in it
    with pytest.raises(AuthError):
        _post(tls_server)
    assert len(loads) == 4


def test_a_bundle_that_cannot_be_loaded_is_said_and_not_kept(tls_server, ca, tmp_path, monkeypatch, loads):  # noqa: F811
    bundle = tmp_path / "ca.pem"
    bundle.write_text("-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n")
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    with pytest.raises(AuthError) as broken:
        _post(tls_server)
    assert str(broken.value).startswith("Failed to build HTTP client: ")
    assert http._TRUST == {}

    ca.cert_pem.write_to_path(str(bundle))  # mended: the next request reads it
    assert _post(tls_server).status == 401
