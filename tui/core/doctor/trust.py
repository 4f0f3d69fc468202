"""Which certificates verify TLS here: the trust store httpx uses (SSL_CERT_FILE, SSL_CERT_DIR or
certifi's bundle), and whether the setting points at something that exists."""

from __future__ import annotations

import certifi

from tui.core.doctor.model import FAIL, OK, Check
from tui.core.http import TRUST_FIX, trust_setting
from tui.core.text.phrase import N_, Phrase

DEFAULT_BUNDLE = Phrase(N_("the default bundle (certifi)"))


def ca_bundle() -> tuple[str, str, str | None]:
    """(what, path, problem) of the trust store httpx uses: SSL_CERT_FILE, SSL_CERT_DIR or certifi
    (the same answer every request's client is refused with: `http.trust_setting`)."""
    return trust_setting() or (DEFAULT_BUNDLE, certifi.where(), None)


def check_ca() -> Check:
    what, path, problem = ca_bundle()
    if problem:
        return Check(
            "network.ca",
            FAIL,
            Phrase(N_("{setting} is {path}, but {problem}."), setting=what, path=path, problem=problem),
            Phrase(TRUST_FIX, setting=what),
            {"source": what, "path": path},
        )
    finding = (
        Phrase(N_("Certificates are verified with {setting}: {path}."), setting=what, path=path)
        if what == DEFAULT_BUNDLE
        else Phrase(
            N_(
                "Certificates are verified with {setting}: {path} (it replaces the default store: it must hold every CA you need)."
            ),
            setting=what,
            path=path,
        )
    )
    return Check("network.ca", OK, finding, "", {"source": what, "path": path})
