"""Which certificates verify TLS here: the trust store httpx uses (SSL_CERT_FILE, SSL_CERT_DIR or
certifi's bundle), and whether the setting points at something that exists."""

from __future__ import annotations

import os

import certifi

from tui.core.doctor.model import FAIL, OK, Check
from tui.core.phrase import N_, Phrase

DEFAULT_BUNDLE = Phrase(N_("the default bundle (certifi)"))


def ca_bundle() -> tuple[str, str, str | None]:
    """(what, path, problem) of the trust store httpx uses: SSL_CERT_FILE, SSL_CERT_DIR or certifi."""
    cert_file = os.environ.get("SSL_CERT_FILE")
    cert_dir = os.environ.get("SSL_CERT_DIR")
    if cert_file:
        problem = None if os.path.isfile(cert_file) else Phrase(N_("it does not exist or is not a file"))
        return "SSL_CERT_FILE", cert_file, problem
    if cert_dir:
        problem = None if os.path.isdir(cert_dir) else Phrase(N_("it does not exist or is not a directory"))
        return "SSL_CERT_DIR", cert_dir, problem
    return DEFAULT_BUNDLE, certifi.where(), None


def check_ca() -> Check:
    what, path, problem = ca_bundle()
    if problem:
        return Check(
            "network.ca",
            FAIL,
            Phrase(N_("{setting} is {path}, but {problem}."), setting=what, path=path, problem=problem),
            Phrase(N_("Point {setting} at a PEM bundle that exists, or unset it."), setting=what),
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
