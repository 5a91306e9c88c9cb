"""kzc's own SASL client (``core.brokers.sasl``): SCRAM as RFC 5802/7677 computes it, Kafka's user-name escapes."""

from __future__ import annotations

import pytest

from core.brokers.sasl import SaslRefused, ScramClient

# RFC 7677 section 3: user "user", password "pencil".
NONCE = "rOprNGfwEbeRWgbNEkqO"
SERVER_FIRST = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
CLIENT_FINAL = (
    b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
)
SERVER_FINAL = b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="


def test_scram_sha_256_matches_the_rfc_7677_example() -> None:
    client = ScramClient("SCRAM-SHA-256", "user", "pencil", NONCE)
    assert client.first() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    assert client.final(SERVER_FIRST) == CLIENT_FINAL
    client.verify(SERVER_FINAL)


def test_a_wrong_server_signature_or_an_error_is_refused() -> None:
    client = ScramClient("SCRAM-SHA-256", "user", "pencil", NONCE)
    client.final(SERVER_FIRST)
    with pytest.raises(SaslRefused, match="signature does not match"):
        client.verify(b"v=AAAA")
    with pytest.raises(SaslRefused, match="invalid-proof"):
        client.verify(b"e=invalid-proof")


def test_a_server_nonce_that_does_not_extend_ours_is_refused() -> None:
    client = ScramClient("SCRAM-SHA-512", "user", "pencil", NONCE)
    with pytest.raises(SaslRefused, match="malformed"):
        client.final(b"r=someone-else,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")


def test_user_names_are_escaped_as_kafka_s_scram_formatter_does() -> None:
    assert ScramClient("SCRAM-SHA-256", "a,b=c", "pw", "n").first() == b"n,,n=a=2Cb=3Dc,r=n"
