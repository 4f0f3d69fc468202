"""The network path to each authorization host, stage by stage, with no credential sent.

Proxy and CA bundle are resolved as httpx (the client every request of this tool uses) resolves
them; DNS and TCP test the proxy when one applies; TLS goes through the proxy's CONNECT tunnel.
The only HTTP request is a GET of the host's root, with no token, no client id, no device code and
no identity header: just a User-Agent.
"""

from __future__ import annotations

import base64
import contextlib
import os
import socket
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from tui import __version__
from tui.core.doctor.clock import clock_check
from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.doctor.tls import ms_since, tls_check
from tui.core.http import insecure_reason, tls_trust
from tui.core.spec import settings
from tui.core.text.phrase import N_, Phrase
from tui.core.text.redact import redact

TIMEOUT = 10.0  # seconds per stage, as every request of this tool
HOST_VARS = settings.HOST_SETTING


def shown_proxy(url: str) -> str:
    """A proxy URL without its user name or password."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


def proxy_for(url: str) -> tuple[str | None, str]:
    """(proxy URL or None, where it came from) for `url`, by httpx's own rules (its environment
    proxies and mount patterns, most specific first)."""
    from httpx._utils import (  # lazy: the rules httpx applies itself
        URLPattern,
        get_environment_proxies,
    )

    mounts = {URLPattern(key): value for key, value in get_environment_proxies().items()}
    import httpx  # lazy: heavy: httpx

    target = httpx.URL(url)
    for pattern in sorted(mounts):
        if pattern.matches(target):
            proxy = mounts[pattern]
            if proxy is None:
                return None, "NO_PROXY"
            scheme = pattern.pattern.split("://")[0]
            source = {"https": "HTTPS_PROXY", "http": "HTTP_PROXY", "all": "ALL_PROXY"}.get(scheme, pattern.pattern)
            return proxy, source
    return None, ""


def _tunnel(sock: socket.socket, proxy: str, host: str, port: int) -> None:
    """CONNECT through an HTTP proxy; raises OSError with the proxy's answer when refused."""
    parts = urlsplit(proxy)
    request = f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n"
    if parts.username:  # the proxy's own credentials, from the proxy URL; never ours
        pair = f"{parts.username}:{parts.password or ''}".encode()
        request += f"Proxy-Authorization: Basic {base64.b64encode(pair).decode()}\r\n"
    sock.sendall((request + "\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer and len(answer) < 65536:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    status_line = answer.split(b"\r\n", 1)[0].decode("latin-1", errors="replace")
    fields = status_line.split(" ", 2)
    if len(fields) < 2 or fields[1] != "200":
        raise OSError(
            Phrase(N_("the proxy answered CONNECT with {answer}"), answer=status_line.strip() or Phrase(N_("nothing")))
        )


def probe_region(region: str) -> list[Check]:
    """Every stage for one region's authorization host; later stages are skipped after a failure."""
    first = _host_check(region)
    if first.status != OK:
        return [first]
    probe = _Probe.of(region)
    checks = [first, probe.proxy_check()]
    for stage in (probe.dns_check, probe.tcp_check):
        check = stage()
        checks.append(check)
        if check.status == FAIL:
            return checks
    with probe.sock or contextlib.nullcontext():
        for later in (probe.tunnel_check, probe.tls_check):  # None: nothing to say (no proxy)
            found = later()
            if found is not None:
                checks.append(found)
                if found.status == FAIL:
                    return checks
    return checks + _http_checks(probe.prefix, region, probe.origin)


def _host_check(region: str) -> Check:
    """The authorization host and the variable that set it: a placeholder warns, an insecure or
    unparsable address fails."""
    var = HOST_VARS[region]
    origin = settings.oauth_host(region)
    parts = urlsplit(origin)
    host = parts.hostname or ""
    name = f"network.{region}.host"
    if origin == settings.DEFAULTS[var].rstrip("/"):
        return Check(
            name,
            WARN,
            Phrase(N_("{region}: {host} is the placeholder default, not a real host."), region=region, host=host),
            Phrase(N_("Set {variable} to your service's authorization host."), variable=var),
            {"host": host, "variable": var},
        )
    reason = insecure_reason(origin)
    if reason or not host:
        return Check(
            name,
            FAIL,
            Phrase(N_("{region}: {problem}."), region=region, problem=reason or Phrase(N_("the host does not parse"))),
            Phrase(N_("Set {variable} to an https:// address."), variable=var),
            {"host": host, "variable": var},
        )
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    source = var if os.environ.get(var, "").strip() else Phrase(N_("the default"))
    return Check(
        name,
        OK,
        Phrase(
            N_("{region}: authorization host {origin} (from {source})."), region=region, origin=origin, source=source
        ),
        "",
        {"host": host, "port": port, "variable": var},
    )


@dataclass
class _Probe:
    """One region's network path, stage by stage: where a connection goes (the host, or the
    proxy that applies) and the socket once it is open."""

    region: str
    origin: str
    host: str
    port: int
    scheme: str
    proxy: str | None
    source: str
    target_host: str
    target_port: int
    via: str
    sock: socket.socket | None = None

    @classmethod
    def of(cls, region: str) -> _Probe:
        origin = settings.oauth_host(region)
        parts = urlsplit(origin)
        host, scheme = parts.hostname or "", parts.scheme.lower()
        port = parts.port or (443 if scheme == "https" else 80)
        proxy, source = proxy_for(origin)
        target: tuple[str, int, str]
        if proxy:
            proxy_parts = urlsplit(proxy)
            target = (
                proxy_parts.hostname or "",
                proxy_parts.port or 8080,
                Phrase(N_("the proxy {proxy}"), proxy=shown_proxy(proxy)),
            )
        else:
            target = (host, port, host)
        return cls(region, origin, host, port, scheme, proxy, source, *target)

    @property
    def prefix(self) -> str:
        return f"network.{self.region}"

    def proxy_check(self) -> Check:
        if self.proxy:
            shown = shown_proxy(self.proxy)
            return Check(
                f"{self.prefix}.proxy",
                OK,
                Phrase(
                    N_("{region}: requests go through the proxy {proxy} ({source})."),
                    region=self.region,
                    proxy=shown,
                    source=self.source,
                ),
                "",
                {"proxy": shown, "source": self.source},
            )
        finding = (
            Phrase(N_("{region}: direct connection, no proxy applies (NO_PROXY)."), region=self.region)
            if self.source == "NO_PROXY"
            else Phrase(N_("{region}: direct connection, no proxy applies."), region=self.region)
        )
        return Check(f"{self.prefix}.proxy", OK, finding, "", {"proxy": None})

    def dns_check(self) -> Check:
        start = time.monotonic()
        try:
            infos = socket.getaddrinfo(self.target_host, self.target_port, type=socket.SOCK_STREAM)
        except OSError as exc:
            fix = (
                Phrase(N_("Check the proxy setting {variable} and your DNS or VPN."), variable=self.source)
                if self.proxy
                else Phrase(N_("Check {variable} and your DNS or VPN."), variable=HOST_VARS[self.region])
            )
            return Check(
                f"{self.prefix}.dns",
                FAIL,
                Phrase(
                    N_("{region}: {target} does not resolve ({reason})."),
                    region=self.region,
                    target=self.via,
                    reason=exc.strerror or exc,
                ),
                fix,
                {"name": self.target_host, "ms": ms_since(start)},
            )
        address = infos[0][4][0]
        return Check(
            f"{self.prefix}.dns",
            OK,
            Phrase(
                N_("{region}: {name} resolves to {address}."),
                region=self.region,
                name=self.target_host,
                address=address,
            ),
            "",
            {"name": self.target_host, "address": address, "ms": ms_since(start)},
        )

    def tcp_check(self) -> Check:
        start = time.monotonic()
        where = f"{self.target_host}:{self.target_port}"
        try:
            self.sock = socket.create_connection((self.target_host, self.target_port), timeout=TIMEOUT)
        except OSError as exc:
            detail = exc.strerror or str(exc) or type(exc).__name__
            fix = (
                Phrase(N_("The proxy is the cause: start it, or fix or unset {variable}."), variable=self.source)
                if self.proxy
                else Phrase(N_("Check the network, a firewall, or whether you need a proxy (HTTPS_PROXY)."))
            )
            return Check(
                f"{self.prefix}.tcp",
                FAIL,
                Phrase(
                    N_("{region}: cannot connect to {target} at {address} ({reason})."),
                    region=self.region,
                    target=self.via,
                    address=where,
                    reason=detail,
                ),
                fix,
                {"ms": ms_since(start)},
            )
        return Check(
            f"{self.prefix}.tcp",
            OK,
            Phrase(
                N_("{region}: connected to {target} ({address})."), region=self.region, target=self.via, address=where
            ),
            "",
            {"ms": ms_since(start)},
        )

    def tunnel_check(self) -> Check | None:
        """Through a proxy: its CONNECT tunnel to the host (None without a proxy)."""
        if not self.proxy or self.sock is None:
            return None
        start = time.monotonic()
        target = f"{self.host}:{self.port}"
        try:
            self.sock.settimeout(TIMEOUT)
            _tunnel(self.sock, self.proxy, self.host, self.port)
        except OSError as exc:
            return Check(
                f"{self.prefix}.tunnel",
                FAIL,
                Phrase(
                    N_("{region}: {proxy} did not open a tunnel to {address} ({reason})."),
                    region=self.region,
                    proxy=self.via,
                    address=target,
                    reason=exc.args[0] if exc.args and isinstance(exc.args[0], str) else exc,
                ),
                Phrase(
                    N_("The proxy is the cause: check its rules for {host}, or {variable}."),
                    host=self.host,
                    variable=self.source,
                ),
                {"ms": ms_since(start)},
            )
        return Check(
            f"{self.prefix}.tunnel",
            OK,
            Phrase(
                N_("{region}: {proxy} opened a tunnel to {address}."),
                region=self.region,
                proxy=self.via,
                address=target,
            ),
            "",
            {"ms": ms_since(start)},
        )

    def tls_check(self) -> Check | None:
        """The handshake (through the tunnel when there is one); None for an http:// host."""
        if self.scheme != "https" or self.sock is None:
            return None
        return tls_check(self.prefix, self.region, self.sock, self.host, self.reconnect, HOST_VARS[self.region])

    def reconnect(self) -> socket.socket:
        again = socket.create_connection((self.target_host, self.target_port), timeout=TIMEOUT)
        if self.proxy:
            _tunnel(again, self.proxy, self.host, self.port)
        return again


def _http_checks(prefix: str, region: str, origin: str) -> list[Check]:
    """One GET of the host's root through httpx (proxy and CA as every request), no credential;
    then the clock against the server's Date header."""
    import httpx  # lazy: heavy: httpx

    start = time.monotonic()
    try:
        with httpx.Client(trust_env=True, timeout=TIMEOUT, follow_redirects=False, verify=tls_trust()) as client:
            sent_at = time.time()
            response = client.get(origin + "/", headers={"User-Agent": f"assistant-auth/{__version__} doctor"})
            received_at = time.time()
    except httpx.HTTPError as exc:
        return [
            Check(
                f"{prefix}.http",
                FAIL,
                Phrase(
                    N_("{region}: no HTTP answer from {origin} ({problem})."),
                    region=region,
                    origin=origin,
                    problem=f"{type(exc).__name__}: {redact(str(exc))[:160]}",
                ),
                Phrase(N_("Check HTTPS_PROXY and SSL_CERT_FILE (the stages above tell which).")),
                {"ms": ms_since(start)},
            )
        ]
    took = ms_since(start)
    http = Check(
        f"{prefix}.http",
        OK,
        Phrase(
            N_("{region}: {origin} answered HTTP {status} in {ms} ms (no credential sent)."),
            region=region,
            origin=origin,
            status=response.status_code,
            ms=took,
        ),
        "",
        {"status": response.status_code, "ms": took},
    )
    return [http, clock_check(region, response.headers.get("date"), (sent_at + received_at) / 2)]
