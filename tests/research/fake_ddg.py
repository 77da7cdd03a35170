"""A local stand-in for DuckDuckGo's HTML endpoint, at the network edge only.

ddgs runs unmodified and is pointed at this server the way a deployment points it at a corporate
proxy: ``WEB_SEARCH_PROXY`` (this server answers ``CONNECT html.duckduckgo.com:443``) and
``WEB_SEARCH_CA_BUNDLE`` (the test CA that signed the certificate it presents for that host). It
then reads the real HTTPS request ddgs sends — ``POST /html/`` with the form fields ``q``, ``b``,
``l`` (ddgs/engines/duckduckgo.py) — and answers with a recorded page of the shape ddgs parses
(``div.result__body`` → ``h2`` title, ``a`` href and snippet; tests/research/fixtures/ddgs/).
"""

from __future__ import annotations

import datetime as dt
import socket
import socketserver
import ssl
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

FIXTURES = Path(__file__).with_name("fixtures") / "ddgs"
HOST = "html.duckduckgo.com"


def make_ca_and_cert(directory: Path, host: str = HOST) -> tuple[Path, Path, Path]:
    """(CA certificate, server certificate chain, server key) as PEM files, for ``host``."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = dt.datetime.now(dt.UTC)

    def name(text: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(name("AlphaDesk test CA"))
        .issuer_name(name("AlphaDesk test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(name(host))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    paths = (directory / "ca.pem", directory / "server.pem", directory / "server.key")
    paths[0].write_bytes(ca.public_bytes(pem))
    paths[1].write_bytes(cert.public_bytes(pem) + ca.public_bytes(pem))
    paths[2].write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return paths


@dataclass
class Exchange:
    host: str
    method: str
    path: str
    form: dict[str, list[str]]


@dataclass
class FakeDuckDuckGo:
    """The server's state: which recorded page to answer with, the status, and what it received."""

    page: str = "html_repo_rate.html"
    status: int = 200
    received: list[Exchange] = field(default_factory=list)
    refused_hosts: list[str] = field(default_factory=list)


def _read_request(stream: Any) -> tuple[str, str, dict[str, str], bytes]:
    line = stream.readline().decode("latin-1").strip()
    method, path, _ = line.split(" ", 2)
    headers: dict[str, str] = {}
    while (header := stream.readline().decode("latin-1").strip()) != "":
        key, _, value = header.partition(":")
        headers[key.strip().lower()] = value.strip()
    body = stream.read(int(headers.get("content-length", "0") or 0))
    return method, path, headers, body


def _handler(state: FakeDuckDuckGo, context: ssl.SSLContext) -> type[socketserver.StreamRequestHandler]:
    class Handler(socketserver.StreamRequestHandler):
        def handle(self) -> None:
            method, target, _, _ = _read_request(self.rfile)
            host = target.rsplit(":", 1)[0]
            if method != "CONNECT" or host != HOST:
                state.refused_hosts.append(target)
                self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            with context.wrap_socket(self.connection, server_side=True) as tls:
                stream = tls.makefile("rwb")
                method, path, _, body = _read_request(stream)
                state.received.append(Exchange(host, method, path, parse_qs(body.decode())))
                payload = (FIXTURES / state.page).read_bytes() if state.status == 200 else b"rate limited"
                reason = {200: "OK", 202: "Accepted", 429: "Too Many Requests"}.get(state.status, "Error")
                stream.write(
                    f"HTTP/1.1 {state.status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
                    f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                    + payload
                )
                stream.flush()

    return Handler


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve() -> tuple[FakeDuckDuckGo, str, Path, Any]:
    """Start the server: (its state, the proxy URL, the CA file to trust, a stop function)."""
    directory = Path(tempfile.mkdtemp(prefix="fake-ddg-"))
    ca, chain, key = make_ca_and_cert(directory)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(chain, key)
    context.set_alpn_protocols(["http/1.1"])
    state = FakeDuckDuckGo()
    server = _Server(("127.0.0.1", 0), _handler(state, context))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    port = server.server_address[1]

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return state, f"http://127.0.0.1:{port}", ca, stop


__all__ = ["FakeDuckDuckGo", "serve", "socket"]
