"""The TLS stage of doctor's network path: the handshake with the trust store in effect, and when
it fails, the certificate the server presents (read without verification) to name its issuer."""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable

from tui.core.doctor.model import FAIL, OK, WARN, Check
from tui.core.doctor.x509 import CertInfo, from_ssl_dict, parse_certificate
from tui.core.http import tls_trust
from tui.core.text.phrase import N_, Phrase

Reconnect = Callable[[], socket.socket]  # a new connection to the host

CERT_SOON = 14 * 86400  # a certificate that expires within two weeks is a warning


def ms_since(start: float) -> int:
    return round((time.monotonic() - start) * 1000)


def tls_check(prefix: str, region: str, sock: socket.socket, host: str, reconnect: Reconnect, host_var: str) -> Check:
    """`host_var`: the setting that named the host (said when the certificate is for another name)."""
    name = f"{prefix}.tls"
    start = time.monotonic()
    try:
        context = tls_trust()  # the trust store every request of this tool uses
    except (OSError, ssl.SSLError) as exc:
        hint = Phrase(N_("Point SSL_CERT_FILE at a readable PEM bundle, or unset it."))
        finding = Phrase(N_("{region}: the CA bundle cannot be loaded ({problem})."), region=region, problem=exc)
        return Check(name, FAIL, finding, hint, {})
    try:
        with context.wrap_socket(sock, server_hostname=host, do_handshake_on_connect=True) as tls:
            info = from_ssl_dict(tls.getpeercert() or {})
            version = tls.version()
    except ssl.SSLCertVerificationError as exc:
        return _untrusted(name, region, host, host_var, exc, _presented_certificate(host, reconnect), start)
    except (OSError, ssl.SSLError) as exc:
        finding = Phrase(
            N_("{region}: the TLS handshake with {host} failed ({problem})."), region=region, host=host, problem=exc
        )
        hint = Phrase(N_("A proxy or firewall may be interfering: check HTTPS_PROXY."))
        return Check(name, FAIL, finding, hint, {"ms": ms_since(start)})
    details = {
        "ms": ms_since(start),
        "issuer": info.issuer,
        "subject": info.subject,
        "version": version,
        "not_after": info.not_after,
    }
    left = (info.not_after - time.time()) if info.not_after else None
    expires = time.strftime("%Y-%m-%d", time.gmtime(info.not_after)) if info.not_after else Phrase(N_("unknown"))
    if left is not None and left < CERT_SOON:
        finding = Phrase(
            N_("{region}: trusted certificate (issuer {issuer}) expires {date}, soon."),
            region=region,
            issuer=info.issuer,
            date=expires,
        )
        return Check(name, WARN, finding, Phrase(N_("Tell the service's operators; nothing to change here.")), details)
    finding = Phrase(
        N_("{region}: trusted certificate, issuer {issuer}, expires {date} ({version})."),
        region=region,
        issuer=info.issuer,
        date=expires,
        version=version,
    )
    return Check(name, OK, finding, "", details)


def _untrusted(
    name: str,
    region: str,
    host: str,
    host_var: str,
    exc: ssl.SSLCertVerificationError,
    presented: CertInfo | None,
    start: float,
) -> Check:
    """A certificate that does not verify: for another name, or from a CA not trusted here (TLS
    inspection, most often), said with the issuer it names."""
    issuer = presented.issuer if presented else Phrase(N_("an unknown issuer"))
    details = {"ms": ms_since(start), "issuer": issuer, "verify_error": exc.verify_message or str(exc)}
    if exc.verify_code == 62 or "hostname" in str(exc).lower():  # X509_V_ERR_HOSTNAME_MISMATCH
        finding = Phrase(
            N_("{region}: the certificate is not for {host} (issued by {issuer})."),
            region=region,
            host=host,
            issuer=issuer,
        )
        return Check(name, FAIL, finding, Phrase(N_("Check the {variable} host name."), variable=host_var), details)
    finding = Phrase(
        N_(
            "{region}: the certificate of {host} is not trusted ({problem}); issued by {issuer}. TLS inspection by {issuer}?"
        ),
        region=region,
        host=host,
        problem=exc.verify_message,
        issuer=issuer,
    )
    hint = Phrase(
        N_(
            "Point SSL_CERT_FILE at a PEM bundle that includes that CA (it replaces the default store, so "
            "include the public CAs too), or ask your IT for it."
        )
    )
    return Check(name, FAIL, finding, hint, details)


def _presented_certificate(host: str, reconnect: Reconnect) -> CertInfo | None:
    """The certificate a server presents, read without verification, on a new connection (only
    to name its issuer; nothing is sent over it)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with reconnect() as raw:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                der = tls.getpeercert(binary_form=True)
        return parse_certificate(der) if der else None
    except (OSError, ValueError):
        return None
