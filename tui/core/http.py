"""The HTTP edge: one place that builds clients, checks hosts and turns failures into details.

httpx is imported here, lazily, so that reading a valid token never pays for it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from tui.core.errors import AuthError, Problem
from tui.core.spec.hints import NO_ANSWER, NO_CONNECTION, TLS_FAILED, unreachable
from tui.core.spec.limits import ANSWER_BODY
from tui.core.text.phrase import N_, Phrase
from tui.core.text.redact import REDACTED, redact

TYPE_CHECKING = False  # not `from typing import`: this module is on the token hot path
if TYPE_CHECKING:  # pragma: no cover
    import ssl

    import httpx

REQUEST_TIMEOUT = 10.0  # seconds (spec 8)
MAX_BODY = ANSWER_BODY  # bodies beyond 1 MiB are cut (only 200 characters are ever shown); see limits.py
SECRET_FORM_FIELDS = ("refresh_token", "device_code", "client_secret")  # masked in verbose logs

log = logging.getLogger("tui.core.http")


@dataclass(frozen=True)
class Response:
    status: int
    text: str  # decoded with replacement characters: for excerpts and error codes
    valid_utf8: bool = True

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def trouble(self) -> bool:
        """HTTP 5xx or 429: the server's trouble, not the request's; retrying may work."""
        return self.status >= 500 or self.status == 429

    def strict_text(self) -> str:
        """The body for parsing: a body that is not valid UTF-8 is not a valid response."""
        if not self.valid_utf8:
            raise ValueError("response body is not valid UTF-8")
        return self.text


def is_loopback_host(host: str) -> bool:
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def insecure_reason(url: str) -> str | None:
    """Why `url` must not receive a token, or None. Beyond the spec: https, or http on loopback."""
    from tui.core.text.redact import excerpt  # lazy: off token's path

    shown = excerpt(url)
    if not url.isascii() or not url.isprintable() or any(ch.isspace() for ch in url):
        return f"Refusing to send credentials to {shown!r}: the address holds spaces, control or non-ASCII characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError as exc:
        return f"Refusing to send credentials to {shown}: it does not parse as an address ({exc})"
    scheme = parts.scheme.lower()
    if scheme == "https" and parts.hostname:
        return None
    if scheme == "http" and parts.hostname and is_loopback_host(parts.hostname):
        return None
    return (
        f"Refusing to send credentials to {url}: the authorization host must use https:// "
        "(plain http:// is allowed only for loopback addresses)"
    )


def check_secure(url: str) -> None:
    reason = insecure_reason(url)
    if reason:
        raise AuthError(reason)


NO_SUCH_FILE = N_("it does not exist or is not a file")
NO_SUCH_DIRECTORY = N_("it does not exist or is not a directory")
TRUST_FIX = N_("Point {setting} at a PEM bundle that exists, or unset it.")


def trust_setting() -> tuple[str, str, str | None] | None:
    """(variable, path, problem) of the trust store set in the environment (SSL_CERT_FILE first,
    as httpx reads them), None when neither is set: one answer for doctor and every request."""
    cert_file, cert_dir = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
    if cert_file:
        return "SSL_CERT_FILE", cert_file, None if os.path.isfile(cert_file) else Phrase(NO_SUCH_FILE)
    if cert_dir:
        return "SSL_CERT_DIR", cert_dir, None if os.path.isdir(cert_dir) else Phrase(NO_SUCH_DIRECTORY)
    return None


def refuse_broken_trust() -> None:
    """No client is built on a trust store that is not there: the variable and its path named
    (httpx would say only `FileNotFoundError`), a setting to change, never a sign-in to redo."""
    found = trust_setting()
    if found is not None and found[2] is not None:
        setting, path, problem = found
        raise AuthError(
            f"Failed to build HTTP client: {setting} is {path}, but {problem}",
            Phrase(TRUST_FIX, setting=setting),
            kind=Problem.SETTING,
        )


_TRUST: dict[tuple[object, ...], ssl.SSLContext] = {}  # one entry: the trust of the settings as they are now
_TRUST_LOCK = threading.Lock()


def _trust_key() -> tuple[object, ...]:
    """What the trust httpx builds depends on: the variables it and `ssl` read, and the bundle
    file as it is on disk now (a bundle replaced or rewritten is read again; a directory's
    certificates are looked up at each handshake anyway)."""
    names = ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLKEYLOGFILE")
    settings = tuple(os.environ.get(name) or "" for name in names)
    bundle = settings[0] or (None if settings[1] else _certifi_bundle())
    try:
        seen = os.stat(bundle) if bundle else None
    except OSError:
        seen = None
    return (*settings, bundle, seen and (seen.st_ino, seen.st_size, seen.st_mtime_ns))


def _certifi_bundle() -> str:
    import certifi  # lazy: httpx's own default bundle, loaded with httpx

    return certifi.where()


def tls_trust() -> ssl.SSLContext:
    """The TLS context every client verifies with: httpx's own (SSL_CERT_FILE, else SSL_CERT_DIR,
    else certifi's bundle), built once while its settings and bundle stay as they are. Loading a
    bundle of ~150 authorities costs ~50 ms of CPU: without this, each client paid it again (a
    wizard's every request, each refresh the token agent sends)."""
    import httpx  # lazy: heavy: httpx

    key = _trust_key()
    with _TRUST_LOCK:
        context = _TRUST.get(key)
        if context is None:
            context = httpx.create_ssl_context(trust_env=True)
            _TRUST.clear()
            _TRUST[key] = context
        return context


def transport_detail(exc: BaseException) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    return redact(f"{name}: {text}" if text else name)


@contextlib.asynccontextmanager
async def client_scope(client: httpx.AsyncClient | None) -> AsyncIterator[httpx.AsyncClient]:
    """Use the caller's client, or build one with the 10-second timeout of spec 8."""
    if client is not None:
        yield client
        return
    refuse_broken_trust()
    try:
        import httpx  # lazy: heavy: httpx

        own = httpx.AsyncClient(timeout=REQUEST_TIMEOUT, follow_redirects=False, verify=tls_trust())
    except Exception as exc:  # pragma: no cover - depends on the environment (e.g. bad SSL setup)
        raise AuthError(f"Failed to build HTTP client: {transport_detail(exc)}") from None
    async with own:
        yield own


def _log_request(url: str, form: Mapping[str, str]) -> None:
    if log.isEnabledFor(logging.DEBUG):
        shown = {k: (REDACTED if k in SECRET_FORM_FIELDS else v) for k, v in form.items()}
        log.debug("POST %s form=%s", url, redact(json.dumps(shown, sort_keys=True)))


def _response(status: int, chunks: list[bytes], url: str) -> Response:
    raw = b"".join(chunks)[:MAX_BODY]
    try:
        text, valid = raw.decode("utf-8"), True
    except UnicodeDecodeError:
        text, valid = raw.decode("utf-8", errors="replace"), False
    log.debug("HTTP %s from %s: %s", status, url, redact(text[:500]))
    return Response(status=status, text=text, valid_utf8=valid)


class Reached:
    """How far one exchange got, from the transport's own trace (httpcore's `trace` extension):
    nothing yet, a connection, TLS set up or refused, the request sent. A failure is advised by it
    (`hints.unreachable`): a server that accepted the connection and never answered is not a
    proxy or certificate problem."""

    def __init__(self) -> None:
        self.step = "nothing"

    def trace(self, name: str, info: object) -> None:
        if name.endswith("start_tls.failed"):
            self.step = "tls refused"
        elif name.endswith(("connect_tcp.complete", "connect_unix_socket.complete")) and self.step == "nothing":
            self.step = "connected"
        elif name.endswith("start_tls.complete"):
            self.step = "secured"
        elif name.endswith(("send_request_headers.complete", "send_request_body.complete")):
            self.step = "sent"

    async def async_trace(self, name: str, info: object) -> None:
        self.trace(name, info)

    def what(self, exc: BaseException | None = None) -> str:
        """What happened, for the advice: TLS refused, connected and no answer, or no connection."""
        if self.step == "tls refused" or (exc is not None and _tls_in(exc)):
            return TLS_FAILED
        return NO_ANSWER if self.step in ("connected", "secured", "sent") else NO_CONNECTION


def _tls_in(exc: BaseException) -> bool:
    import ssl  # lazy: loaded with httpx by then, only on a failure

    seen: BaseException | None = exc
    for _depth in range(8):  # the transport's chain: httpx's error, httpcore's, the ssl one
        if seen is None:
            return False
        if isinstance(seen, ssl.SSLError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _timed_out(failure: str, url: str, reached: Reached, region: str | None) -> AuthError:
    return AuthError(
        f"{failure}: timed out after {REQUEST_TIMEOUT:g} s", unreachable(url, reached.what(), region), transient=True
    )


def _transport_failed(failure: str, url: str, exc: BaseException, reached: Reached, region: str | None) -> AuthError:
    advice = unreachable(url, reached.what(exc), region)
    return AuthError(f"{failure}: {transport_detail(exc)}", advice, transient=True)


async def post_form(
    client: httpx.AsyncClient,
    url: str,
    form: Mapping[str, str],
    headers: Mapping[str, str] | None,
    failure: str,
    region: str | None = None,
) -> Response:
    """POST a form with a 10-second budget for the whole exchange (spec 8); `region`: whose
    authorization host it is, for the advice on a failure (both regions may name one host).

    A transport failure (connect, reset, timeout, a server trickling bytes past the budget)
    becomes AuthError(f"{failure}: <detail>").
    """
    import asyncio  # lazy: heavy: asyncio

    import httpx  # lazy: heavy: httpx

    from tui.core.bounded import within  # lazy: heavy: asyncio

    check_secure(url)
    _log_request(url, form)

    reached = Reached()

    async def exchange() -> tuple[int, list[bytes]]:
        traced = {"trace": reached.async_trace}
        async with client.stream(
            "POST", url, data=dict(form), headers=dict(headers or {}), extensions=traced
        ) as response:
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.aiter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size >= MAX_BODY:
                    break
            return response.status_code, chunks

    try:  # within, not wait_for: 3.10/3.11's wait_for can lose a cancel (SIGTERM, Esc) that comes with the answer
        status, chunks = await within(exchange(), REQUEST_TIMEOUT)
    except (TimeoutError, asyncio.TimeoutError):  # one class since 3.11, two before
        raise _timed_out(failure, url, reached, region) from None
    except (httpx.HTTPError, OSError, ValueError) as exc:
        raise _transport_failed(failure, url, exc, reached, region) from None
    return _response(status, chunks, url)


class _Deadline(BaseException):
    """The whole-exchange budget of a synchronous request ended (raised by its alarm)."""


@contextlib.contextmanager
def _whole_exchange_budget(seconds: float) -> Iterator[None]:
    """In the main thread, an interval timer bounds the whole synchronous exchange (connect, TLS,
    sending, every read) to `seconds`, as `asyncio.timeout` does for the async one. Elsewhere each
    phase has the budget and the body loop checks the deadline."""
    from tui.core.signals import alarm  # lazy: `http` is on the token hot path

    def expired() -> None:
        raise _Deadline

    with alarm(seconds, expired):
        yield


def post_form_sync(
    url: str, form: Mapping[str, str], headers: Mapping[str, str] | None, failure: str, region: str | None = None
) -> Response:
    """`post_form` without an event loop, for the command line's refresh path: a client of its own
    (the same 10-second budget for the whole exchange, the same proxy and CA handling), the same
    errors."""

    import httpx  # lazy: heavy: httpx

    check_secure(url)
    _log_request(url, form)
    deadline = time.monotonic() + REQUEST_TIMEOUT
    refuse_broken_trust()
    try:
        own = httpx.Client(timeout=REQUEST_TIMEOUT, follow_redirects=False, verify=tls_trust())
    except Exception as exc:  # noqa: BLE001 - depends on the environment (e.g. bad SSL setup)
        raise AuthError(f"Failed to build HTTP client: {transport_detail(exc)}") from None
    chunks: list[bytes] = []
    reached = Reached()
    traced = {"trace": reached.trace}
    try:
        with _whole_exchange_budget(REQUEST_TIMEOUT), own:
            with own.stream("POST", url, data=dict(form), headers=dict(headers or {}), extensions=traced) as response:
                size = 0
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size >= MAX_BODY:
                        break
                    if time.monotonic() > deadline:
                        raise _Deadline
                status = response.status_code
    except (_Deadline, httpx.TimeoutException):
        raise _timed_out(failure, url, reached, region) from None
    except (httpx.HTTPError, OSError, ValueError) as exc:
        raise _transport_failed(failure, url, exc, reached, region) from None
    return _response(status, chunks, url)
