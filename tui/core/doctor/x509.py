"""Just enough DER to read a presented certificate's issuer, subject and expiry.

`ssl` gives these fields only for a certificate it verified; doctor also needs them for one it
could not verify (a TLS-inspecting proxy's), which `ssl` hands over only as DER bytes.
"""

from __future__ import annotations

import calendar
import ssl
from dataclasses import dataclass
from typing import Any

_NAMES = {b"\x55\x04\x03": "CN", b"\x55\x04\x0a": "O", b"\x55\x04\x0b": "OU"}


@dataclass(frozen=True)
class CertInfo:
    issuer: str  # "CN=…, O=…" (the parts present)
    subject: str
    not_after: float | None  # epoch seconds


def _read(data: bytes, pos: int) -> tuple[int, bytes, int]:
    """(tag, content, next position) of the DER element at `pos`."""
    tag = data[pos]
    length = data[pos + 1]
    pos += 2
    if length & 0x80:
        count = length & 0x7F
        if not 0 < count <= 4:
            raise ValueError("unsupported DER length")
        length = int.from_bytes(data[pos : pos + count], "big")
        pos += count
    end = pos + length
    if end > len(data):
        raise ValueError("truncated DER")
    return tag, data[pos:end], end


def _children(data: bytes) -> list[tuple[int, bytes]]:
    items, pos = [], 0
    while pos < len(data):
        tag, content, pos = _read(data, pos)
        items.append((tag, content))
    return items


def _name(data: bytes) -> str:
    parts = []
    for _set_tag, rdn in _children(data):
        for _seq_tag, attribute in _children(rdn):
            pair = _children(attribute)
            if len(pair) == 2 and pair[0][1] in _NAMES:
                text = pair[1][1].decode("utf-8", errors="replace")
                parts.append(f"{_NAMES[pair[0][1]]}={text}")
    return ", ".join(parts)


def _time(tag: int, content: bytes) -> float | None:
    text = content.decode("ascii", errors="replace").rstrip("Z")
    try:
        if tag == 0x17:  # UTCTime: YYMMDDHHMMSS
            year = int(text[:2])
            year += 2000 if year < 50 else 1900
            rest = text[2:]
        elif tag == 0x18:  # GeneralizedTime: YYYYMMDDHHMMSS
            year, rest = int(text[:4]), text[4:]
        else:
            return None
        month, day, hour, minute, second = (int(rest[i : i + 2]) for i in range(0, 10, 2))
    except ValueError:
        return None
    return float(calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)))


def parse_certificate(der: bytes) -> CertInfo:
    """ValueError when `der` is not a certificate this reader understands."""
    try:
        _tag, certificate, _end = _read(der, 0)
        _tag, tbs, _end = _read(certificate, 0)
        fields = _children(tbs)
        if fields and fields[0][0] == 0xA0:  # [0] version
            fields = fields[1:]
        # serialNumber, signature, issuer, validity, subject
        issuer, validity, subject = fields[2][1], fields[3][1], fields[4][1]
        times = _children(validity)
        not_after = _time(*times[1]) if len(times) == 2 else None
        return CertInfo(issuer=_name(issuer), subject=_name(subject), not_after=not_after)
    except (IndexError, ValueError) as exc:
        raise ValueError(f"not a certificate: {exc}") from None


def from_ssl_dict(cert: dict[str, Any]) -> CertInfo:
    """The same fields from `SSLSocket.getpeercert()` (a verified certificate)."""

    def name(rdns: Any) -> str:
        labels = {"commonName": "CN", "organizationName": "O", "organizationalUnitName": "OU"}
        return ", ".join(f"{labels[k]}={v}" for rdn in rdns or () for k, v in rdn if k in labels)

    after = cert.get("notAfter")
    return CertInfo(
        issuer=name(cert.get("issuer")),
        subject=name(cert.get("subject")),
        not_after=float(ssl.cert_time_to_seconds(after)) if after else None,
    )
