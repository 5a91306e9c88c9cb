"""SASL authentication of kzc's own requests (``core.brokers.apiversions.open_broker``) on a SASL listener:
SaslHandshake v1 naming the mechanism, then SaslAuthenticate carrying its tokens (KIP-152, Kafka 1.0+), as
Kafka's own ``SaslClientAuthenticator`` does. Mechanisms: PLAIN (RFC 4616) and SCRAM-SHA-256/512 (RFC 5802
and 7677, with Kafka's ``ScramFormatter``: the password as UTF-8, the user name with ``=2C``/``=3D`` escapes).

The password is only ever sent to the broker: no message here contains it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Callable

from core.brokers.codec import Decoder, Encoder
from core.brokers.wire import frame
from core.config import KafkaSecurity

SASL_HANDSHAKE_KEY = 17
SASL_AUTHENTICATE_KEY = 36
_HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}


class SaslRefused(ValueError):
    """The broker refused the mechanism or the credentials; ``str()`` says which (never the password)."""


class ScramClient:
    """The client side of one SCRAM exchange (RFC 5802): ``first``, ``final(server_first)``, ``verify``."""

    def __init__(self, mechanism: str, user: str, password: str, nonce: str | None = None) -> None:
        self._hash = _HASHES[mechanism]
        self._password = password.encode("utf-8")
        self._nonce = nonce or secrets.token_urlsafe(24)
        name = user.replace("=", "=3D").replace(",", "=2C")
        self._first_bare = f"n={name},r={self._nonce}"
        self._server_signature = b""

    def first(self) -> bytes:
        """client-first-message: no channel binding, no authzid."""
        return ("n,," + self._first_bare).encode("utf-8")

    def final(self, server_first: bytes) -> bytes:
        """client-final-message for ``server_first`` (``r=<nonce>,s=<salt>,i=<iterations>``).

        Raises:
            SaslRefused: the server's nonce does not extend ours, or the message is malformed.
        """
        text = server_first.decode("utf-8", "replace")
        fields = _attributes(text)
        nonce, salt, iterations = fields.get("r", ""), fields.get("s"), fields.get("i", "")
        if "e" in fields:
            raise SaslRefused(f"the broker refused SCRAM: {fields['e']}")
        if not nonce.startswith(self._nonce) or salt is None or not iterations.isdigit():
            raise SaslRefused("the broker's SCRAM server-first-message is malformed")
        salted = hashlib.pbkdf2_hmac(self._hash, self._password, base64.b64decode(salt), int(iterations))
        client_key = self._hmac(salted, b"Client Key")
        stored_key = hashlib.new(self._hash, client_key).digest()
        without_proof = f"c=biws,r={nonce}"
        auth_message = f"{self._first_bare},{text},{without_proof}".encode()
        signature = self._hmac(stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature, strict=True))
        self._server_signature = self._hmac(self._hmac(salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def verify(self, server_final: bytes) -> None:
        """Check the server's signature (it knows the password too, RFC 5802 section 3).

        Raises:
            SaslRefused: the server reported an error or signed wrongly.
        """
        fields = _attributes(server_final.decode("utf-8", "replace"))
        if "e" in fields:
            raise SaslRefused(f"the broker refused SCRAM: {fields['e']}")
        if not hmac.compare_digest(base64.b64decode(fields.get("v", "")), self._server_signature):
            raise SaslRefused("the broker's SCRAM server signature does not match: not the broker that holds the user")

    def _hmac(self, key: bytes, message: bytes) -> bytes:
        return hmac.new(key, message, self._hash).digest()


def _attributes(text: str) -> dict[str, str]:
    found = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if sep and len(key) == 1:
            found[key] = value
    return found


def authenticate(
    send: Callable[[bytes], bytes], ranges: dict[int, tuple[int, int]], security: KafkaSecurity, who: str
) -> None:
    """SaslHandshake v1 + SaslAuthenticate on a connection whose ApiVersions (``ranges``) was just asked.

    Args:
        send: one framed request out, its response body back (``BrokerConnection.send``).

    Raises:
        SaslRefused: the broker lacks SaslAuthenticate (before 1.0) or refused the mechanism or credentials.
        OSError, ValueError: the connection failed or an answer is malformed.
    """
    mechanism = security.sasl_mechanism or ""
    handshake = ranges.get(SASL_HANDSHAKE_KEY)
    authenticate_versions = ranges.get(SASL_AUTHENTICATE_KEY)
    if handshake is None or handshake[1] < 1 or authenticate_versions is None:
        raise SaslRefused(f"{who} has no SaslAuthenticate (Kafka 1.0.0+): kzc's own requests cannot log in to it")
    answer = Decoder(send(frame(SASL_HANDSHAKE_KEY, 1, Encoder(flexible=False).string(mechanism).body())), False)
    error = answer.header().int16()
    if error != 0:
        enabled = [m or "" for m in answer.array(lambda r: r.string()) or []]
        raise SaslRefused(f"{who} does not enable SASL {mechanism} on this listener (it enables {', '.join(enabled)})")
    version = min(1, authenticate_versions[1])
    user, password = security.sasl_username or "", security.sasl_password or ""
    if mechanism == "PLAIN":
        _exchange(send, version, f"\0{user}\0{password}".encode(), who)
        return
    scram = ScramClient(mechanism, user, password)
    server_first = _exchange(send, version, scram.first(), who)
    scram.verify(_exchange(send, version, scram.final(server_first), who))


def _exchange(send: Callable[[bytes], bytes], version: int, token: bytes, who: str) -> bytes:
    """One SaslAuthenticate round trip (v0-v1, not flexible); the server's token."""
    answer = Decoder(send(frame(SASL_AUTHENTICATE_KEY, version, Encoder(flexible=False).blob(token).body())), False)
    error = answer.header().int16()
    message = answer.string()
    if error != 0:
        raise SaslRefused(f"{who} refused kzc's SASL authentication: {message or f'error code {error}'}")
    return answer.blob() or b""
