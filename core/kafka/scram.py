"""SCRAM credentials as Kafka stores them in ZooKeeper (KIP-84, 0.10.2+): ``ScramFormatter`` and
``ScramCredentialUtils``.

A user's credential for one mechanism is an entry of its config ``/config/users/<user>``::

    SCRAM-SHA-256=salt=<b64>,stored_key=<b64>,server_key=<b64>,iterations=<N>

computed as ``ScramFormatter.generateCredential``: salted password = Hi(password, salt, iterations)
(PBKDF2-HMAC with the mechanism's hash, one block), client key = HMAC(salted, "Client Key"), stored key =
H(client key), server key = HMAC(salted, "Server Key"). The salt is ``secureRandomBytes``: the bytes of a
random 130-bit number written in base 36. Kafka takes the password as UTF-8 bytes (no SASLprep).

Nothing here logs or returns the salt or keys in a form meant for display: ``ScramCredentialInfo`` (what
``kzc user list`` shows) holds only the mechanism and the iterations.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from core.errors import UsageError

# ScramMechanism: name -> (hashlib name, min iterations). Max 16384: KIP-554 (AlterUserScramCredentials).
MECHANISMS: dict[str, tuple[str, int]] = {"SCRAM-SHA-256": ("sha256", 4096), "SCRAM-SHA-512": ("sha512", 4096)}
MAX_ITERATIONS = 16384
DEFAULT_ITERATIONS = 4096  # ConfigCommand's DefaultScramIterations


@dataclass(frozen=True, slots=True)
class ScramCredential:
    """One stored credential. Secret: never print it, log it or put it into an audit line."""

    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def __repr__(self) -> str:  # keeps the keys out of tracebacks and debug output
        return f"ScramCredential(iterations={self.iterations}, <secret>)"


@dataclass(frozen=True, slots=True)
class ScramCredentialInfo:
    """What may be shown of a credential: its mechanism and iterations (``CredentialInfo`` of KIP-554)."""

    mechanism: str
    iterations: int | None  # None: the stored entry is not a credential Kafka could parse


def check_mechanism(mechanism: str) -> str:
    """``mechanism`` when Kafka knows it.

    Raises:
        UsageError: not SCRAM-SHA-256 or SCRAM-SHA-512.
    """
    if mechanism not in MECHANISMS:
        raise UsageError(f"Invalid mechanism {mechanism!r}: expected one of {', '.join(MECHANISMS)}")
    return mechanism


def check_iterations(mechanism: str, iterations: int) -> int:
    """``iterations`` when within the mechanism's minimum and KIP-554's maximum.

    Raises:
        UsageError: out of range, with Kafka's wording.
    """
    minimum = MECHANISMS[check_mechanism(mechanism)][1]
    if iterations < minimum:
        raise UsageError(f"Iterations {iterations} is less than the minimum {minimum} required for {mechanism}")
    if iterations > MAX_ITERATIONS:
        raise UsageError(f"Iterations {iterations} is greater than the maximum {MAX_ITERATIONS} for {mechanism}")
    return iterations


def secure_random_salt() -> bytes:
    """``ScramFormatter.secureRandomBytes``: a random 130-bit number in base 36, as ASCII bytes."""
    number = secrets.randbits(130)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    text = ""
    while number:
        number, rest = divmod(number, 36)
        text = digits[rest] + text
    return (text or "0").encode("ascii")


def generate_credential(mechanism: str, password: str, iterations: int, salt: bytes | None = None) -> ScramCredential:
    """``ScramFormatter.generateCredential``: the credential Kafka stores for ``password``."""
    digest = MECHANISMS[check_mechanism(mechanism)][0]
    salt = salt if salt is not None else secure_random_salt()
    salted = hashlib.pbkdf2_hmac(digest, password.encode("utf-8"), salt, iterations)
    client_key = hmac.new(salted, b"Client Key", digest).digest()
    stored_key = hashlib.new(digest, client_key).digest()
    server_key = hmac.new(salted, b"Server Key", digest).digest()
    return ScramCredential(salt, stored_key, server_key, iterations)


def credential_to_string(credential: ScramCredential) -> str:
    """``ScramCredentialUtils.credentialToString``: ``salt=..,stored_key=..,server_key=..,iterations=N``."""
    b64 = base64.b64encode
    return (
        f"salt={b64(credential.salt).decode()},stored_key={b64(credential.stored_key).decode()},"
        f"server_key={b64(credential.server_key).decode()},iterations={credential.iterations}"
    )


def credential_from_string(text: str) -> ScramCredential:
    """``ScramCredentialUtils.credentialFromString``.

    Raises:
        ValueError: not the four fields Kafka writes (the message never quotes the value).
    """
    fields: dict[str, str] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError("a field is not key=value")
        fields[key] = value
    if set(fields) != {"salt", "stored_key", "server_key", "iterations"}:
        raise ValueError("expected exactly salt, stored_key, server_key and iterations")
    try:
        return ScramCredential(
            base64.b64decode(fields["salt"], validate=True),
            base64.b64decode(fields["stored_key"], validate=True),
            base64.b64decode(fields["server_key"], validate=True),
            int(fields["iterations"]),
        )
    except ValueError:
        raise ValueError("a field is not valid base64 or the iterations not a number") from None


def credential_infos(config: dict[str, str]) -> list[ScramCredentialInfo]:
    """The SCRAM credentials in a user's config (``/config/users/<u>``), mechanism and iterations only."""
    infos = []
    for mechanism in MECHANISMS:
        if mechanism in config:
            try:
                iterations: int | None = credential_from_string(config[mechanism]).iterations
            except ValueError:
                iterations = None
            infos.append(ScramCredentialInfo(mechanism, iterations))
    return infos


def verify_password(credential: ScramCredential, mechanism: str, password: str) -> bool:
    """Whether ``password`` produces ``credential`` (tests; a server would use the SCRAM exchange)."""
    again = generate_credential(mechanism, password, credential.iterations, credential.salt)
    return hmac.compare_digest(again.stored_key, credential.stored_key)


_SECRET_FIELDS = re.compile(r"\b(salt|stored_key|server_key)=[^,\"'\s]*")


def redact_credentials(text: str) -> str:
    """``text`` with every SCRAM salt and key replaced by ``(hidden)`` (the iterations stay): how any view
    of a user's raw config (the ZooKeeper browser, ``kzc zk get``) shows it."""
    return _SECRET_FIELDS.sub(lambda m: f"{m.group(1)}=(hidden)", text)
