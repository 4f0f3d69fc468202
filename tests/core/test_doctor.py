"""`assistant-auth doctor` against real parts: a TLS server with a throw-away CA (trustme), a real
HTTP proxy process (proxy.py), a server with a skewed clock, and files with every defect."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import pytest
import trustme

from tests.cli.test_cli import run
from tests.conftest import terminate, write_creds
from tests.waiting import PATIENCE
from tui.core.config.provider import provision_managed_provider
from tui.core.spec.keys import region_key, region_storage_name
from tui.demo.server import DEVICE_PATH, TOKEN_PATH, AuthServer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def doctor(*args: str) -> tuple[int, dict]:
    result = run("doctor", "--json", *args, timeout=90)
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, json.loads(result.stdout)


def by_name(report: dict) -> dict[str, dict]:
    return {check["name"]: check for check in report["checks"]}


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> trustme.CA:
    return trustme.CA(organization_name="Example Inspecting Proxy")


@pytest.fixture
def ca_file(ca, tmp_path) -> pathlib.Path:
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return path


@pytest.fixture
def tls_server(ca, monkeypatch):
    """The local authorization server over https:// on 127.0.0.1 (cn) and localhost (global),
    with a certificate from the throw-away CA; no trust store knows that CA."""
    context = __import__("ssl").create_default_context(__import__("ssl").Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    server = AuthServer(interval=1, client_id="test-client", ssl_context=context).start()
    port = server.url.rsplit(":", 1)[1]
    for name, value in {
        "ASSISTANT_OAUTH_HOST_CN": f"https://127.0.0.1:{port}",
        "ASSISTANT_OAUTH_HOST_GLOBAL": f"https://localhost:{port}",
        "ASSISTANT_BASE_URL_CN": f"https://127.0.0.1:{port}/cn/coding/v1",
        "ASSISTANT_BASE_URL_GLOBAL": f"https://localhost:{port}/global/coding/v1",
    }.items():
        monkeypatch.setenv(name, value)
    for name in (
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def proxy_process(tmp_path):
    """A real HTTP proxy (proxy.py from PyPI) on 127.0.0.1, its access log in a file."""
    port = free_port()
    log = tmp_path / "proxy.log"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proxy",
            "--hostname",
            "127.0.0.1",
            "--port",
            str(port),
            "--num-workers",
            "1",
            "--num-acceptors",
            "1",
            "--log-file",
            str(log),
            "--log-level",
            "INFO",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        process.kill()
        pytest.fail("proxy.py did not start")
    try:
        yield f"http://127.0.0.1:{port}", log
    finally:
        terminate(process)


# -- TLS with a custom CA -------------------------------------------------------------------------


def test_untrusted_certificate_is_reported_as_possible_tls_inspection(tls_server, home):
    code, report = doctor()
    checks = by_name(report)
    assert code == 1
    tls = checks["network.cn.tls"]
    assert tls["status"] == "fail"
    assert "TLS inspection by" in tls["finding"] and "Example Inspecting Proxy" in tls["finding"]
    assert "SSL_CERT_FILE" in tls["fix"]
    assert checks["network.cn.dns"]["status"] == "ok" and checks["network.cn.tcp"]["status"] == "ok"
    assert "network.cn.http" not in checks  # nothing is sent over an untrusted connection


def test_ssl_cert_file_with_the_ca_passes_and_sign_in_and_refresh_work_through_it(
    tls_server, home, ca_file, monkeypatch
):
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    code, report = doctor()
    checks = by_name(report)
    assert checks["network.ca"]["details"]["source"] == "SSL_CERT_FILE"
    for region in ("cn", "global"):
        assert checks[f"network.{region}.tls"]["status"] == "ok", checks[f"network.{region}.tls"]
        assert "Example Inspecting Proxy" in checks[f"network.{region}.tls"]["details"]["issuer"]
        assert checks[f"network.{region}.http"]["status"] == "ok"
    # the whole tool honours the custom CA: sign in, then refresh, over https
    tls_server.auto_approve = 0.5
    login = run("login", "--no-tui", "--no-browser", timeout=60)
    assert login.returncode == 0, login.stderr
    refresh = run("refresh")
    assert refresh.returncode == 0, refresh.stderr
    assert tls_server.count(TOKEN_PATH, "refresh_token") == 1
    # and fails closed without it
    monkeypatch.delenv("SSL_CERT_FILE")
    assert run("refresh").returncode == 3


# -- a real proxy process -----------------------------------------------------------------------


def test_sign_in_and_refresh_through_https_proxy_and_doctor_names_it(
    tls_server, home, ca_file, proxy_process, monkeypatch
):
    proxy, log = proxy_process
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    code, report = doctor()
    checks = by_name(report)
    assert checks["network.cn.proxy"]["details"] == {"proxy": proxy, "source": "HTTPS_PROXY"}
    assert checks["network.cn.dns"]["details"]["name"] == "127.0.0.1"  # the proxy's address is what resolves
    assert checks["network.cn.tunnel"]["status"] == "ok"
    assert checks["network.cn.tls"]["status"] == "ok" and checks["network.cn.http"]["status"] == "ok"
    tls_server.auto_approve = 0.5
    assert run("login", "--no-tui", "--no-browser", timeout=60).returncode == 0
    assert run("refresh").returncode == 0
    port = tls_server.url.rsplit(":", 1)[1]
    deadline = time.monotonic() + PATIENCE  # the proxy writes its log line as it tunnels: wait for the line itself
    while f"CONNECT 127.0.0.1:{port}" not in log.read_text():  # the requests went through the proxy
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)


def test_a_dead_proxy_is_named_as_the_cause(tls_server, home, ca_file, monkeypatch):
    dead = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    monkeypatch.setenv("HTTPS_PROXY", dead)
    code, report = doctor()
    tcp = by_name(report)["network.cn.tcp"]
    assert code == 1 and tcp["status"] == "fail"
    assert "the proxy" in tcp["finding"] and "The proxy is the cause" in tcp["fix"]


def test_no_proxy_is_honoured_as_httpx_does(tls_server, home, monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("NO_PROXY", "localhost")
    from tui.core.doctor.network import proxy_for

    assert proxy_for("https://localhost:8443/")[0] is None
    assert proxy_for("https://127.0.0.1:8443/")[0] == "http://127.0.0.1:9"


# -- the clock ------------------------------------------------------------------------------------


@pytest.mark.parametrize("offset, status", [(0, "ok"), (90, "warn"), (-400, "fail")])
def test_clock_skew_from_the_date_header(home, monkeypatch, offset, status):
    from tui.demo.env import server_env

    with AuthServer(interval=1, date_offset=offset) as server:
        for name, value in server_env(server.url).items():
            monkeypatch.setenv(name, value)
        code, report = doctor()
    clock = by_name(report)["clock.cn"]
    assert clock["status"] == status, clock
    assert abs(clock["details"]["skew_s"] + offset) < 5
    assert code == (1 if status == "fail" else code)


def test_placeholder_hosts_are_reported_as_such_not_as_dns_failures(home, monkeypatch):
    for name in ("ASSISTANT_OAUTH_HOST_CN", "ASSISTANT_OAUTH_HOST_GLOBAL"):
        monkeypatch.delenv(name)
    code, report = doctor()
    host = by_name(report)["network.cn.host"]
    assert host["status"] == "warn" and "placeholder" in host["finding"]
    assert "ASSISTANT_OAUTH_HOST_CN" in host["fix"]
    assert "network.cn.dns" not in by_name(report)


# -- no credential leaves without --probe ---------------------------------------------------------


def test_no_credential_or_identity_header_is_sent_unless_probe(server, home):
    tokens = {**server.issue_tokens(subject="user-1"), "expires_at": int(time.time()) + 600}
    write_creds(home, tokens)
    provision_managed_provider(region_key("cn"), "cn")
    (home / "device_id").write_text("assistant-auth-device-1234\n")
    code, report = doctor()
    sent = server.requests()
    assert sent, "doctor made its round trip"
    secrets = [tokens["access_token"], tokens["refresh_token"], "assistant-auth-device-1234", "test-client"]
    for request in sent:
        assert request.method == "GET" and request.path == "/" and request.form == {}
        assert not any(name.lower().startswith(("authorization", "x-vendor", "cookie")) for name in request.headers)
        blob = json.dumps([request.path, request.headers])
        assert not any(secret in blob for secret in secrets)
    assert server.count(DEVICE_PATH) == 0 and server.count(TOKEN_PATH) == 0
    code, report = doctor("--probe")
    assert by_name(report)["probe.refresh"]["status"] == "ok"
    assert server.count(TOKEN_PATH, "refresh_token") == 1  # only --probe spends a refresh token


# -- files, config and credentials: every defect, repaired and checked again ----------------------


def test_file_defects_are_found_repaired_and_rechecked(home, monkeypatch):
    from tui.core import Region

    good = write_creds(home, {"access_token": "AT-good", "refresh_token": "RT", "expires_at": int(time.time()) + 600})
    os.chmod(good, 0o644)  # world-readable: a failure
    os.chmod(home, 0o755)
    broken = write_creds(home, "{not json", name="old-session")
    credentials = home / "credentials"
    temp = credentials / ".assistant-code.json.abc123.tmp"
    temp.write_text("{}")
    os.utime(temp, (time.time() - 3600, time.time() - 3600))
    legacy = credentials / "assistant-code.json.lock"
    legacy.write_text("")
    flock_file = credentials / "assistant-code.lock"
    flock_file.write_text("")
    oauth = home / "oauth"
    stale = oauth / "assistant-code.lock"
    stale.mkdir(parents=True)
    os.utime(stale, (time.time() - 60, time.time() - 60))
    # an official-client rewrite dropped oauthHost from the global provider entry
    global_key = region_key(Region.GLOBAL)
    write_creds(
        home,
        {"access_token": "AT-g", "refresh_token": "RT-g", "expires_at": int(time.time()) + 600},
        name=region_storage_name(Region.GLOBAL),
    )
    (home / "config.toml").write_text(
        '# mine\n[providers."managed:assistant-code"]\ntype = "assistant"\n'
        f'base_url = "{os.environ["ASSISTANT_BASE_URL_GLOBAL"]}"\nmanaged = true\n'
        f'oauth = {{ storage = "file", key = "{global_key}" }}\n'
    )

    code, report = doctor("--offline")
    checks = by_name(report)
    assert code == 1
    assert (
        checks["files.slot.assistant-code"]["status"] == "fail"
        and "0644" in checks["files.slot.assistant-code"]["finding"]
    )
    assert checks["files.config_dir"]["status"] == "warn"
    assert checks["files.slot.old-session"]["status"] == "fail"
    assert checks[f"files.temp.{temp.name}"]["repair"].startswith("remove the temp file")
    assert checks["files.lock.assistant-code.json.lock"]["repair"]
    assert checks["files.lock.oauth.assistant-code.lock"]["status"] == "warn"
    assert checks["config.oauth_host"]["repair"].startswith("add oauthHost")

    result = run("doctor", "--fix", "--offline")  # no terminal: refuses without --yes
    assert result.returncode == 2 and "--yes" in result.stderr
    result = run("doctor", "--fix", "--yes", "--offline", timeout=90)
    assert result.returncode == 0, result.stdout + result.stderr

    assert good.stat().st_mode & 0o777 == 0o600 and home.stat().st_mode & 0o777 == 0o700
    assert not broken.exists() and list(credentials.glob("old-session.json.corrupt-*"))  # moved, not deleted
    assert not temp.exists() and not legacy.exists() and not stale.exists()
    assert flock_file.exists()  # never deleted: it would break mutual exclusion
    config = (home / "config.toml").read_text()
    assert config.startswith("# mine\n") and f'oauthHost = "{os.environ["ASSISTANT_OAUTH_HOST_GLOBAL"]}"' in config
    code, report = doctor("--offline")
    assert code == 0, [c for c in report["checks"] if c["status"] == "fail"]


def test_fresh_locks_are_left_alone(home):
    held = home / "oauth" / "assistant-code.lock"
    held.mkdir(parents=True)
    code, report = doctor("--offline")
    assert by_name(report)["files.lock.oauth.assistant-code.lock"]["status"] == "ok"
    run("doctor", "--fix", "--yes", "--offline")
    assert held.exists()


def test_report_has_no_secret_and_nothing_personal(server, home):
    tokens = {**server.issue_tokens(subject="jane.doe@example.org"), "expires_at": int(time.time()) + 600}
    write_creds(home, tokens)
    provision_managed_provider(region_key("cn"), "cn")
    (home / "device_id").write_text("assistant-auth-device-777\n")
    result = run("doctor", "--report", timeout=90)
    text = result.stdout
    assert json.loads(text)["schema_version"] == 1
    for secret in (
        tokens["access_token"],
        tokens["refresh_token"],
        "jane.doe@example.org",
        "assistant-auth-device-777",
        socket.gethostname(),
        str(home),
        os.path.expanduser("~"),
    ):
        assert secret not in text, secret
    assert "127.0.0.1" in text  # authorization hosts are kept
    plain = run("doctor", "--json", timeout=90).stdout
    assert "jane.doe@example.org" in plain  # --json is for the user's own scripts


def test_text_output_reads_without_colour(home, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    result = run("doctor", "--offline")
    assert "\x1b[" not in result.stdout
    assert any(line.startswith(("✔ ok", "! warn", "✘ fail", "- skip")) for line in result.stdout.splitlines())


def test_x509_reader_agrees_with_ssl(ca):
    import ssl
    import tempfile

    from tui.core.doctor.x509 import from_ssl_dict, parse_certificate

    cert = ca.issue_cert("127.0.0.1")
    pem = cert.cert_chain_pems[0].bytes().decode()
    der = ssl.PEM_cert_to_DER_cert(pem)
    with tempfile.NamedTemporaryFile("w", suffix=".pem", delete=False) as handle:
        handle.write(pem)
    decoded = ssl._ssl._test_decode_cert(handle.name)  # the stdlib's own reading, for comparison
    os.unlink(handle.name)
    ours, theirs = parse_certificate(der), from_ssl_dict(decoded)
    assert ours.issuer == theirs.issuer and "Example Inspecting Proxy" in ours.issuer
    assert ours.not_after == theirs.not_after
    with pytest.raises(ValueError):
        parse_certificate(b"\x30\x03\x02\x01")


def test_a_proxy_password_is_never_shown(home, monkeypatch):
    from tui.core.doctor.network import proxy_for, shown_proxy

    monkeypatch.setenv("HTTPS_PROXY", "http://alice:s3cret-pass@proxy.corp.test:3128")
    proxy, source = proxy_for("https://auth.cn.test/")
    assert source == "HTTPS_PROXY" and shown_proxy(proxy) == "http://proxy.corp.test:3128"
    code, report = doctor()
    text = json.dumps(report)
    assert "s3cret-pass" not in text and "alice" not in text
    assert by_name(report)["network.cn.proxy"]["details"]["proxy"] == "http://proxy.corp.test:3128"


def test_a_malformed_proxy_variable_is_a_failed_check_not_a_traceback(home, monkeypatch):
    monkeypatch.setenv("ASSISTANT_OAUTH_HOST_CN", "https://auth.cn.test")
    monkeypatch.setenv("HTTPS_PROXY", "http://[::1")
    result = run("doctor", "--json", timeout=90)
    assert "Traceback" not in result.stderr and "unexpected error" not in result.stderr
    checks = by_name(json.loads(result.stdout))
    assert checks["network.cn"]["status"] == "fail" and "could not run" in checks["network.cn"]["finding"]


def test_coloured_output_keeps_escape_sequences_from_file_names_out(home, monkeypatch, capsys):
    import tui.cli.doctor as command
    from tui.core.doctor import local_checks

    evil = write_creds(home, {"access_token": "AT", "expires_at": int(time.time()) + 600}, name="evil")
    evil.rename(evil.with_name("evil\x1b[2J\x1b]52;c;aGk=\x07.json"))
    monkeypatch.setattr(command, "_colour", lambda: True)
    command._print(local_checks())
    shown = capsys.readouterr().out
    assert "\x1b[3" in shown  # our colours
    assert "\x1b[2J" not in shown and "\x1b]52" not in shown and "\x07" not in shown


def test_a_file_with_two_problems_gets_both_repairs_in_one_run(home):
    broken = write_creds(home, "{broken", name="old-session")
    broken.chmod(0o644)
    code, report = doctor("--offline")
    checks = by_name(report)
    assert checks["files.slot.old-session"]["repair"].startswith("chmod 0600")
    assert checks["files.slot.old-session.content"]["repair"].startswith("rename")
    result = run("doctor", "--fix", "--yes", "--offline", timeout=90)
    assert result.returncode == 0, result.stdout + result.stderr
    moved = list(broken.parent.glob("old-session.json.corrupt-*"))
    assert not broken.exists() and len(moved) == 1  # the move aside, re-checked after the chmod
    assert moved[0].stat().st_mode & 0o777 == 0o600  # and the chmod before it
