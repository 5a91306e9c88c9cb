"""SCRAM credentials as Kafka's ScramFormatter computes them, checked against RFC 7677's SCRAM-SHA-256
exchange (its server signature and client proof follow from the stored and server keys), and the stored
form of ScramCredentialUtils."""

from __future__ import annotations

import base64
import hashlib
import hmac

import pytest

from core.errors import UsageError
from core.kafka.scram import (
    check_iterations,
    credential_from_string,
    credential_infos,
    credential_to_string,
    generate_credential,
    redact_credentials,
    secure_random_salt,
    verify_password,
)

_SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
_AUTH_MESSAGE = (
    b"n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    b"s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
)


def test_sha256_credential_matches_rfc7677_exchange() -> None:
    credential = generate_credential("SCRAM-SHA-256", "pencil", 4096, _SALT)
    server_signature = hmac.new(credential.server_key, _AUTH_MESSAGE, hashlib.sha256).digest()
    assert base64.b64encode(server_signature) == b"6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    proof = base64.b64decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    client_signature = hmac.new(credential.stored_key, _AUTH_MESSAGE, hashlib.sha256).digest()
    client_key = bytes(a ^ b for a, b in zip(proof, client_signature, strict=True))
    assert hashlib.sha256(client_key).digest() == credential.stored_key


def test_stored_form_round_trips_and_lists_only_mechanism_and_iterations() -> None:
    credential = generate_credential("SCRAM-SHA-512", "s3cret", 8192)
    text = credential_to_string(credential)
    assert text.startswith("salt=") and text.endswith(",iterations=8192")
    assert [k.split("=")[0] for k in text.split(",")] == ["salt", "stored_key", "server_key", "iterations"]
    assert credential_from_string(text) == credential
    infos = credential_infos({"SCRAM-SHA-512": text, "producer_byte_rate": "1"})
    assert [(i.mechanism, i.iterations) for i in infos] == [("SCRAM-SHA-512", 8192)]
    assert verify_password(credential, "SCRAM-SHA-512", "s3cret")
    assert not verify_password(credential, "SCRAM-SHA-512", "wrong")
    assert "s3cret" not in repr(credential) and base64.b64encode(credential.salt).decode() not in repr(credential)


def test_salt_is_base36_text_of_130_random_bits() -> None:
    salt = secure_random_salt()
    assert salt.decode().isalnum() and salt.decode() == salt.decode().lower()
    assert int(salt.decode(), 36) < 2**130
    assert secure_random_salt() != salt


@pytest.mark.parametrize(
    ("iterations", "message"),
    [(4095, "less than the minimum 4096"), (16385, "greater than the maximum 16384")],
)
def test_iterations_bounds(iterations: int, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        check_iterations("SCRAM-SHA-256", iterations)
    assert check_iterations("SCRAM-SHA-256", 4096) == 4096


def test_unparsable_credential_is_listed_without_iterations() -> None:
    assert [(i.mechanism, i.iterations) for i in credential_infos({"SCRAM-SHA-256": "junk"})] == [
        ("SCRAM-SHA-256", None)
    ]


def test_redaction_hides_salt_and_keys_keeps_iterations() -> None:
    text = credential_to_string(generate_credential("SCRAM-SHA-256", "pw", 4096))
    shown = redact_credentials(f'{{"SCRAM-SHA-256":"{text}"}}')
    assert shown == '{"SCRAM-SHA-256":"salt=(hidden),stored_key=(hidden),server_key=(hidden),iterations=4096"}'
