"""The next step after an error: one line that names what to check (never part of the spec's text).

Pure functions of a URL, a path or a region; `AuthError.hint` carries their result.
"""

from __future__ import annotations

from tui.core.spec import settings
from tui.core.text.phrase import N_, Phrase

HOST_VARIABLES = tuple(settings.HOST_SETTING.items())  # (region, its host's variable), in REGIONS' order


def host_setting(url: str, region: str | None = None) -> tuple[str, str, bool] | None:
    """(host, environment variable, still the placeholder default) for an authorization URL; the
    variable of `region` (the exchange's own, where known) first: both may name the same host."""
    for each, name in sorted(HOST_VARIABLES, key=lambda pair: pair[0] != region):
        origin = settings.oauth_host(each)
        if url == origin or url.startswith(origin + "/"):
            host = origin.split("://", 1)[-1]
            return host, name, origin == settings.DEFAULTS[name].rstrip("/")
    return None


def _host_of(url: str) -> str:
    return url.split("://", 1)[-1].split("/", 1)[0]


# how far an exchange got before it failed: the advice is what that failure can mean
NO_CONNECTION, TLS_FAILED, NO_ANSWER = "no connection", "tls", "no answer"
_ADVICE = {
    NO_CONNECTION: N_(
        "Nothing answered at {where}: check the host, your network or VPN, and a proxy (HTTPS_PROXY) if you "
        "need one; `assistant-auth doctor` tests it."
    ),
    TLS_FAILED: N_(
        "The secure connection to {where} failed: if your network inspects TLS with its own certificate "
        "authority, point SSL_CERT_FILE at its bundle; `assistant-auth doctor` tests it."
    ),
    NO_ANSWER: N_(
        "{where} accepted the connection and did not answer: the server (or a proxy in between) has trouble, "
        "not your settings; retry in a moment (`assistant-auth doctor` tests the path)."
    ),
}


def unreachable(url: str, what: str = NO_CONNECTION, region: str | None = None) -> str:
    """A transport failure, advised by what happened (`what`): no connection (the host, the
    network, a proxy), TLS refused (a certificate authority), connected and no answer (the
    server's trouble: nothing to change). A placeholder host is said first, whatever happened."""
    found = host_setting(url, region)
    if found is not None and found[2]:
        return Phrase(
            N_("{host} is a placeholder: set {variable} to your service's authorization host."),
            host=found[0],
            variable=found[1],
        )
    where = (
        Phrase(N_("{host} (set by {variable})"), host=found[0], variable=found[1])
        if found is not None
        else _host_of(url)
    )
    return Phrase(_ADVICE.get(what, _ADVICE[NO_CONNECTION]), where=where)


def _where(url: str, region: str | None) -> tuple[str, str]:
    """(host, the variable that set it) of an authorization URL ("" when no setting did)."""
    found = host_setting(url, region)
    return (found[0], found[1]) if found else (_host_of(url), "")


def server_trouble(url: str, region: str | None = None) -> str:
    """HTTP 5xx or 429: the server's trouble, not the person's; nothing to change, retry."""
    host, variable = _where(url, region)
    if variable:
        return Phrase(
            N_("The authorization server {host} (set by {variable}) had trouble, not your sign-in: retry in a moment."),
            host=host,
            variable=variable,
        )
    return Phrase(N_("The authorization server {host} had trouble, not your sign-in: retry in a moment."), host=host)


def refused(url: str, region: str | None = None) -> str:
    """The server answered the device authorization with an error status."""
    host, variable = _where(url, region)
    if variable:
        return Phrase(
            N_(
                "Check that {host} (set by {variable}) is your service's authorization host "
                "and ASSISTANT_CLIENT_ID its client id."
            ),
            host=host,
            variable=variable,
        )
    return Phrase(
        N_("Check that {host} is your service's authorization host and ASSISTANT_CLIENT_ID its client id."), host=host
    )


def damaged_file(path: object, command: str = "assistant-auth login") -> str:
    """The next step for a credential file that cannot be used: look, move it aside, then the
    sign-in of that slot (`command`: its region and account)."""
    return Phrase(
        N_(
            "Run `assistant-auth inspect` to look at {path} and move it aside (nothing is deleted), "
            "then sign in again: `{command}`."
        ),
        path=path,
        command=command,
    )


def damaged_config(path: object) -> str:
    return Phrase(
        N_("Fix {path} by hand (`assistant-auth config` shows where it fails); it is never overwritten while broken."),
        path=path,
    )


def placeholders() -> list[tuple[str, str]]:
    """(region, variable) of every authorization host that is still the placeholder default."""
    found = []
    for region, name in HOST_VARIABLES:
        if settings.oauth_host(region) == settings.DEFAULTS[name].rstrip("/"):
            found.append((region, name))
    return found
