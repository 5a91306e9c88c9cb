"""The error hierarchy of kzc: every error carries a message meant for the user.

The CLI prints ``str(error)`` and exits with ``error.exit_code``; the TUI shows the message.
Neither ever shows a traceback for a ``KzcError``.
"""

from __future__ import annotations


class KzcError(Exception):
    """Base class: ``str(self)`` is a complete, user-facing sentence."""

    exit_code = 1


class UsageError(KzcError):
    """Bad input from the user: arguments, connect strings, config values."""

    exit_code = 2


class ConfigError(UsageError):
    """The config file (contexts, keys, themes) is unreadable or inconsistent."""


class MissingToolError(KzcError):
    """A program kzc needs (java, mvn) is not installed; the message says what to install."""

    exit_code = 2


class SandboxError(KzcError):
    """The local sandbox cluster could not be started, inspected or stopped."""


class ConnectError(KzcError):
    """ZooKeeper or Kafka could not be reached: unreachable host, auth or TLS failure, timeout."""


class AuthError(ConnectError):
    """ZooKeeper refused the credentials (AUTH_FAILED) or denied a read to them (NoAuth)."""


class SessionLostError(ConnectError):
    """The ZooKeeper session was lost or expired while an operation was running."""


class KafkaRuleError(KzcError):
    """Input that Kafka itself would reject; the message is Kafka's own wording.

    Args:
        message: Kafka's message, word for word.
        kafka_exception: the simple name of the exception Kafka raises
            (e.g. ``InvalidReplicationFactorException``).
    """

    exit_code = 2

    def __init__(self, message: str, kafka_exception: str = "AdminOperationException") -> None:
        super().__init__(message)
        self.kafka_exception = kafka_exception


class GuardError(KzcError):
    """A mutation kzc refuses before writing anything (internal topic, reassignment in progress...)."""

    exit_code = 2


class ReadOnlyError(GuardError):
    """A mutation was attempted in read-only mode."""


class ConcurrentChangeError(KzcError):
    """A version-checked write lost a race: the znode changed since it was read; nothing was written."""

    exit_code = 2
