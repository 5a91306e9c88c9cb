"""SCRAM credentials through the brokers (2.7+, KIP-554): DescribeUserScramCredentials and
AlterUserScramCredentials through the AdminClient, as ``kafka-configs --bootstrap-server --entity-type users
--alter --add-config 'SCRAM-SHA-256=[iterations=N,password=...]'`` sends them.

The password never leaves this process: librdkafka salts and hashes it here (a fresh random salt, Hi() with
the iterations) and sends the salt and the salted password, as Kafka's own AdminClient does. Nothing here
returns or logs a password, salt or key.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from confluent_kafka import KafkaError, KafkaException

# Re-exported by confluent_kafka.admin, untyped there (as core.brokers.admin imports ConfigResource).
from confluent_kafka.admin._scram import ScramCredentialInfo as WireInfo
from confluent_kafka.admin._scram import ScramMechanism, UserScramCredentialDeletion, UserScramCredentialUpsertion

from core.brokers.acls import SECURITY_REFUSALS
from core.brokers.admin import KafkaAdmin
from core.errors import KafkaRuleError, KzcError
from core.kafka.scram import MECHANISMS, ScramCredentialInfo


def _mechanism(name: str) -> ScramMechanism:
    return ScramMechanism[name.replace("-", "_")]


class ScramAdmin(KafkaAdmin):
    """``KafkaAdmin`` plus DescribeUserScramCredentials and AlterUserScramCredentials."""

    def describe_credentials(self, users: Sequence[str] | None = None) -> dict[str, list[ScramCredentialInfo]]:
        """Each user's credentials (mechanism and iterations); every user with one when ``users`` is None. A user
        asked for that has none maps to an empty list (the broker's ResourceNotFoundException).

        Raises:
            KafkaRuleError: the brokers refused (not authorized).
            KzcError: the brokers did not answer.
        """
        asked = None if users is None else list(users)
        result = self._call(
            "describe SCRAM credentials",
            lambda: self._client.describe_user_scram_credentials(asked, request_timeout=self.timeout),
        )
        if asked is None:
            descriptions = self._result(result, "describe SCRAM credentials") or {}
            return {name: _infos(d) for name, d in sorted(descriptions.items())}
        found: dict[str, list[ScramCredentialInfo]] = {}
        for user in asked:
            try:
                found[user] = _infos(result[user].result(timeout=self.timeout + 3.0))
            except KafkaException as exc:
                error = exc.args[0] if exc.args else None
                if isinstance(error, KafkaError) and error.code() == KafkaError.RESOURCE_NOT_FOUND:
                    found[user] = []
                    continue
                raise self._error(error, f"describe the SCRAM credentials of user {user}") from exc
        return found

    def upsert_credential(self, user: str, mechanism: str, iterations: int, password: str) -> None:
        """AlterUserScramCredentials: set ``user``'s ``mechanism`` credential for ``password``.

        Raises:
            KafkaRuleError: the brokers refused (not authorized, unacceptable iterations...).
            KzcError: the brokers did not answer.
        """
        upsert = UserScramCredentialUpsertion(user, WireInfo(_mechanism(mechanism), iterations), password.encode())
        self._alter(user, [upsert], f"set the {mechanism} credential of user {user}")

    def delete_credentials(self, user: str, mechanisms: Sequence[str]) -> None:
        """AlterUserScramCredentials: delete ``user``'s credentials of ``mechanisms``.

        Raises:
            KafkaRuleError: the brokers refused (not authorized, no such credential...).
            KzcError: the brokers did not answer.
        """
        deletions: list[Any] = [UserScramCredentialDeletion(user, _mechanism(m)) for m in mechanisms]
        self._alter(user, deletions, f"delete the {', '.join(mechanisms)} credentials of user {user}")

    def _alter(self, user: str, alterations: list[Any], what: str) -> None:
        futures = self._call(
            what, lambda: self._client.alter_user_scram_credentials(alterations, request_timeout=self.timeout)
        )
        self._result(futures[user], what)

    def _error(self, error: object, what: str) -> KzcError:
        if isinstance(error, KafkaError) and error.code() in SECURITY_REFUSALS:
            return KafkaRuleError(f"{error.str()} (the brokers refused to {what})", SECURITY_REFUSALS[error.code()])
        return super()._error(error, what)


def _infos(description: Any) -> list[ScramCredentialInfo]:
    by_name = {m.replace("-", "_"): m for m in MECHANISMS}
    infos = [
        ScramCredentialInfo(by_name[i.mechanism.name], int(i.iterations))
        for i in description.scram_credential_infos
        if i.mechanism.name in by_name
    ]
    return sorted(infos, key=lambda i: i.mechanism)
