"""HTTPS for remote play: the TLS context made from the certificate the
player gives (``terrace play --certfile/--keyfile``) or from a self-signed
one that Terrace makes once and keeps (``terrace play --https``), so that
the secret link's token and cookie never cross the home network in clear.

The standard library reads certificates but cannot make one, and no
package for it is a dependency; a self-signed certificate needs little:
an ECDSA key on the curve P-256, and the certificate's few fields written
in DER (ITU-T X.690) and signed with ECDSA and SHA-256 (FIPS 186-4), done
here with Python's integers.

>>> _der_int(0), _der_int(127), _der_int(128)
(b'\\x02\\x01\\x00', b'\\x02\\x01\\x7f', b'\\x02\\x02\\x00\\x80')
>>> _length(5), _length(200), _length(1000)
(b'\\x05', b'\\x81\\xc8', b'\\x82\\x03\\xe8')
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import os
import secrets
import ssl
from collections.abc import Iterable
from pathlib import Path

from terrace.errors import TerraceError
from terrace.refusals import clip
from terrace.storage.paths import data_folder

CERT_FILE_NAME = "remote-cert.pem"
KEY_FILE_NAME = "remote-key.pem"
"""The self-signed certificate and its key in the user data folder."""
CERT_DAYS = 3650
"""How long a self-signed certificate is valid: a phone that accepted it
keeps doing so for years."""


class CertificateError(TerraceError):
    """The certificate or key cannot be used (unreadable, damaged, not a
    pair) or a self-signed one cannot be made."""


def server_context(certfile: str | os.PathLike[str], keyfile: str | os.PathLike[str] | None = None
                   ) -> ssl.SSLContext:
    """A TLS server context (TLS 1.2 or newer) for ``certfile`` and
    ``keyfile`` (None: the key is in ``certfile``), or a clear
    :class:`CertificateError`."""
    cert_text = _read_pem(certfile)
    key_text = cert_text if keyfile is None else _read_pem(keyfile)
    if "-----BEGIN CERTIFICATE-----" not in cert_text:
        raise CertificateError(f"{clip(str(certfile))} holds no PEM certificate "
                               "(-----BEGIN CERTIFICATE-----)")
    if "PRIVATE KEY-----" not in key_text:
        where = clip(str(certfile if keyfile is None else keyfile))
        raise CertificateError(f"{where} holds no PEM private key"
                               + (": name the key's file with --keyfile" if keyfile is None else ""))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.options |= ssl.OP_NO_RENEGOTIATION  # (a client cannot make the server redo handshakes)
    try:
        context.load_cert_chain(certfile, keyfile, password=_no_password)
    except ssl.SSLError as error:
        if error.reason == "KEY_VALUES_MISMATCH":
            raise CertificateError(f"the private key does not go with the certificate {clip(str(certfile))}"
                                   ) from None
        raise CertificateError(f"cannot use the certificate {clip(str(certfile))} for HTTPS: the certificate "
                               "or its key is damaged or encrypted (a PEM certificate and its unencrypted "
                               "PEM private key are needed)") from None
    except OSError as error:
        raise CertificateError(f"cannot read {clip(str(certfile))}: {error.strerror or error}") from None
    return context


def _no_password() -> str:
    """An encrypted key is refused at once (OpenSSL would ask for its
    password on the terminal)."""
    raise CertificateError("the private key is encrypted: give an unencrypted PEM key")


def _read_pem(path: str | os.PathLike[str]) -> str:
    """A PEM file's text, or a clear :class:`CertificateError`."""
    try:
        with open(path, "rb") as source:
            data = source.read(1024 * 1024)
    except FileNotFoundError:
        raise CertificateError(f"no such file: {clip(str(path))}") from None
    except OSError as error:
        raise CertificateError(f"cannot read {clip(str(path))}: {error.strerror or error}") from None
    return data.decode("latin-1")


def self_signed_paths(folder: Path | None = None) -> tuple[Path, Path]:
    """Where the self-signed certificate and its key are kept (the user
    data folder unless ``folder`` is given)."""
    where = data_folder() if folder is None else folder
    return where / CERT_FILE_NAME, where / KEY_FILE_NAME


def ensure_self_signed(hosts: Iterable[str], folder: Path | None = None) -> tuple[Path, Path]:
    """The self-signed certificate and key (:func:`self_signed_paths`),
    made for ``hosts`` on the first run and kept for the next ones (a phone
    that accepted it then accepts it again); the key file is readable by
    its owner only."""
    cert_path, key_path = self_signed_paths(folder)
    if cert_path.exists() and key_path.exists():
        return cert_path, key_path
    cert_pem, key_pem = make_self_signed(hosts)
    try:
        cert_path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(key_pem)
        cert_path.write_bytes(cert_pem)
    except OSError as error:
        raise CertificateError(f"cannot keep the self-signed certificate in {clip(str(cert_path.parent))}: "
                               f"{error.strerror or error}") from None
    return cert_path, key_path


def fingerprint(cert_path: Path) -> str:
    """The certificate's SHA-256 fingerprint as browsers show it
    (``AB:CD:…``), for the player to compare on the phone."""
    try:
        der = ssl.PEM_cert_to_DER_cert(cert_path.read_text("ascii"))
    except (OSError, ValueError, UnicodeError) as error:
        raise CertificateError(f"cannot read the certificate {clip(str(cert_path))}: {error}") from None
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


# -- P-256 (FIPS 186-4, D.1.2.3) ---------------------------------------------------------------

_P = 2**256 - 2**224 + 2**192 + 2**96 - 1
_A = _P - 3
_N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
_G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
      0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)

_Point = tuple[int, int] | None


def _add(p: _Point, q: _Point) -> _Point:
    """Point addition on P-256 (None: the point at infinity)."""
    if p is None:
        return q
    if q is None:
        return p
    if p[0] == q[0]:
        if (p[1] + q[1]) % _P == 0:
            return None
        slope = (3 * p[0] * p[0] + _A) * pow(2 * p[1], -1, _P) % _P
    else:
        slope = (q[1] - p[1]) * pow(q[0] - p[0], -1, _P) % _P
    x = (slope * slope - p[0] - q[0]) % _P
    return x, (slope * (p[0] - x) - p[1]) % _P


def _times(k: int, point: _Point = _G) -> _Point:
    """``k`` times ``point``."""
    result: _Point = None
    while k:
        if k & 1:
            result = _add(result, point)
        point = _add(point, point)
        k >>= 1
    return result


def _sign(digest: bytes, key: int) -> tuple[int, int]:
    """An ECDSA signature (r, s) of a SHA-256 ``digest`` with ``key``."""
    z = int.from_bytes(digest, "big")
    while True:
        k = secrets.randbelow(_N - 1) + 1
        point = _times(k)
        assert point is not None
        r = point[0] % _N
        s = pow(k, -1, _N) * (z + r * key) % _N
        if r and s:
            return r, s


# -- DER ---------------------------------------------------------------------------------------


def _length(size: int) -> bytes:
    if size < 0x80:
        return bytes([size])
    raw = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(raw)]) + raw


def _tlv(tag: int, content: bytes) -> bytes:
    return bytes([tag]) + _length(len(content)) + content


def _seq(*parts: bytes) -> bytes:
    return _tlv(0x30, b"".join(parts))


def _der_int(value: int) -> bytes:
    return _tlv(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


def _oid(dotted: str) -> bytes:
    first, second, *rest = (int(part) for part in dotted.split("."))
    out = bytearray([40 * first + second])
    for arc in rest:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        out += bytes(reversed(chunk))
    return _tlv(0x06, bytes(out))


def _time(moment: datetime.datetime) -> bytes:
    """UTCTime before 2050, GeneralizedTime from then on (RFC 5280, 4.1.2.5)."""
    if moment.year < 2050:
        return _tlv(0x17, moment.strftime("%y%m%d%H%M%SZ").encode())
    return _tlv(0x18, moment.strftime("%Y%m%d%H%M%SZ").encode())


def _pem(label: str, der: bytes) -> bytes:
    body = base64.encodebytes(der).decode().replace("\n", "")
    lines = [body[i:i + 64] for i in range(0, len(body), 64)]
    return ("\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"]) + "\n").encode()


_EC_PUBLIC_KEY, _P256 = _oid("1.2.840.10045.2.1"), _oid("1.2.840.10045.3.1.7")
_ECDSA_SHA256 = _seq(_oid("1.2.840.10045.4.3.2"))


def _alt_names(hosts: Iterable[str]) -> bytes:
    """The subjectAltName extension's names: addresses as iPAddress, the
    rest as dNSName."""
    names = []
    for host in sorted({h.strip("[]").lower() for h in hosts if h}):
        try:
            names.append(_tlv(0x87, ipaddress.ip_address(host).packed))
        except ValueError:
            if host.isascii() and host.replace(".", "").replace("-", "").isalnum():
                names.append(_tlv(0x82, host.encode("ascii")))
    return _seq(*names)


def make_self_signed(hosts: Iterable[str], now: datetime.datetime | None = None) -> tuple[bytes, bytes]:
    """A new self-signed certificate for ``hosts`` (its names and
    addresses) and its private key, both PEM."""
    hosts = ["localhost", "127.0.0.1", "::1", *hosts]
    key = secrets.randbelow(_N - 1) + 1
    public = _times(key)
    assert public is not None
    point = b"\x04" + public[0].to_bytes(32, "big") + public[1].to_bytes(32, "big")
    start = (now or datetime.datetime.now(datetime.UTC)).replace(microsecond=0)
    name = _seq(_tlv(0x31, _seq(_oid("2.5.4.3"), _tlv(0x0C, b"Terrace (self-signed, remote play)"))))
    extensions = _seq(
        _seq(_oid("2.5.29.17"), _tlv(0x04, _alt_names(hosts))),
        _seq(_oid("2.5.29.19"), _tlv(0x01, b"\xff"), _tlv(0x04, _seq())),  # basicConstraints, critical: no CA
        _seq(_oid("2.5.29.37"), _tlv(0x04, _seq(_oid("1.3.6.1.5.5.7.3.1")))),  # extKeyUsage: serverAuth
    )
    tbs = _seq(
        _tlv(0xA0, _der_int(2)),  # version 3
        _der_int(secrets.randbits(127) | 1),
        _ECDSA_SHA256,
        name,
        _seq(_time(start - datetime.timedelta(days=1)), _time(start + datetime.timedelta(days=CERT_DAYS))),
        name,
        _seq(_seq(_EC_PUBLIC_KEY, _P256), _tlv(0x03, b"\x00" + point)),
        _tlv(0xA3, extensions),
    )
    r, s = _sign(hashlib.sha256(tbs).digest(), key)
    certificate = _seq(tbs, _ECDSA_SHA256, _tlv(0x03, b"\x00" + _seq(_der_int(r), _der_int(s))))
    private = _seq(_der_int(1), _tlv(0x04, key.to_bytes(32, "big")), _tlv(0xA0, _P256),
                   _tlv(0xA1, _tlv(0x03, b"\x00" + point)))
    return _pem("CERTIFICATE", certificate), _pem("EC PRIVATE KEY", private)
