"""HTTPS for remote play: the TLS context made from the certificate the
player gives (``terrace play --certfile/--keyfile``) or from a self-signed
one that Terrace makes once and keeps (``terrace play --https``), so that
the secret link's token and cookie never cross the home network in clear.

The standard library reads certificates but cannot make one; the
self-signed one (an ECDSA key on P-256, signed with SHA-256) is made with
the ``cryptography`` package.
"""

from __future__ import annotations

import datetime
import hashlib
import ipaddress
import os
import shutil
import ssl
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from terrace.errors import TerraceError
from terrace.refusals import clip
from terrace.storage.paths import data_folder

HTTPS_FOLDER_NAME = "remote-https"
CERT_FILE_NAME = "cert.pem"
KEY_FILE_NAME = "key.pem"
"""The self-signed certificate and its key: a folder of the user data
folder, readable by its owner only, that appears with both files whole."""
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
    """A PEM file's text, or a clear :class:`CertificateError`. Only a
    regular file is read: a pipe (a FIFO) waited for ever for a program to
    write to it, and could not have been read twice (here and by OpenSSL)
    anyway."""
    try:
        # (opened without waiting: a FIFO's open() waits for a writer)
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with open(handle, "rb") as source:
            if not stat.S_ISREG(os.fstat(handle).st_mode):
                raise CertificateError(f"{clip(str(path))} is not a regular file: give the file that "
                                       "holds the PEM text")
            os.set_blocking(handle, True)
            data = source.read(1024 * 1024)
    except FileNotFoundError:
        raise CertificateError(f"no such file: {clip(str(path))}") from None
    except OSError as error:
        raise CertificateError(f"cannot read {clip(str(path))}: {error.strerror or error}") from None
    return data.decode("latin-1")


def self_signed_paths(folder: Path | None = None) -> tuple[Path, Path]:
    """Where the self-signed certificate and its key are kept (the user
    data folder unless ``folder`` is given)."""
    where = (data_folder() if folder is None else folder) / HTTPS_FOLDER_NAME
    return where / CERT_FILE_NAME, where / KEY_FILE_NAME


def ensure_self_signed(hosts: Iterable[str], folder: Path | None = None) -> tuple[Path, Path]:
    """The self-signed certificate and key (:func:`self_signed_paths`),
    made for ``hosts`` on the first run and kept for the next ones (a phone
    that accepted it then accepts it again); their folder is readable by
    its owner only."""
    cert_path, key_path = self_signed_paths(folder)
    if cert_path.exists() and key_path.exists():
        return cert_path, key_path
    cert_pem, key_pem = make_self_signed(hosts)
    kept = cert_path.parent
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{HTTPS_FOLDER_NAME}-", dir=kept.parent))  # (owner only)
        try:
            descriptor = os.open(scratch / KEY_FILE_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                out.write(key_pem)
            (scratch / CERT_FILE_NAME).write_bytes(cert_pem)
            try:
                # (one step: the pair appears whole, never a key without its
                # certificate; a run started at the same moment that got
                # there first keeps its own, and this one takes it)
                os.rename(scratch, kept)
            except OSError:
                if not (cert_path.exists() and key_path.exists()):
                    raise CertificateError(f"{clip(str(kept))} holds a certificate without its key or a key "
                                           "without its certificate: delete that folder to make a new "
                                           "self-signed certificate") from None
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    except OSError as error:
        raise CertificateError(f"cannot keep the self-signed certificate in {clip(str(kept))}: "
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


def _alt_names(hosts: Iterable[str]) -> list[x509.GeneralName]:
    """The subjectAltName extension's names: addresses as iPAddress, the
    rest as dNSName."""
    names: list[x509.GeneralName] = []
    for host in sorted({h.strip("[]").lower() for h in hosts if h}):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            if host.isascii() and host.replace(".", "").replace("-", "").isalnum():
                names.append(x509.DNSName(host))
    return names


def make_self_signed(hosts: Iterable[str], now: datetime.datetime | None = None) -> tuple[bytes, bytes]:
    """A new self-signed certificate for ``hosts`` (its names and
    addresses, besides ``localhost``, 127.0.0.1 and ::1) and its private
    key (ECDSA on P-256), both PEM.

    >>> cert, key = make_self_signed(["192.168.1.20"])
    >>> cert.startswith(b"-----BEGIN CERTIFICATE-----"), b"PRIVATE KEY" in key
    (True, True)
    """
    key = ec.generate_private_key(ec.SECP256R1())
    start = (now or datetime.datetime.now(datetime.UTC)).replace(microsecond=0)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Terrace (self-signed, remote play)")])
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start - datetime.timedelta(days=1))
        .not_valid_after(start + datetime.timedelta(days=CERT_DAYS))
        .add_extension(x509.SubjectAlternativeName(_alt_names(["localhost", "127.0.0.1", "::1", *hosts])),
                       critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption())
    return certificate.public_bytes(serialization.Encoding.PEM), key_pem
