"""Kafka's topic-name rules (``org.apache.kafka.common.internals.Topic``, 3.4+ wording).

Rules are checked in Kafka's order: non-empty, not ``.``/``..``, at most 249 UTF-16 code units
(Java's ``String.length``), only ASCII ``[a-zA-Z0-9._-]``. Because length comes before characters,
an over-long name with bad characters reports the length. Messages are the 3.4+ ones, verified
against the kafka-clients 3.9.1 jar.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.errors import KafkaRuleError
from core.kafka.java import scala_string_set_order

MAX_NAME_LENGTH = 249
INTERNAL_TOPICS = frozenset({"__consumer_offsets", "__transaction_state", "__share_group_state"})

_LEGAL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


def _java_length(name: str) -> int:
    """``String.length()``: UTF-16 code units, so a character beyond the BMP counts twice."""
    return len(name.encode("utf-16-le", "surrogatepass")) // 2


def _invalid_reason(name: str) -> str | None:
    """``Topic.detectInvalidTopic`` (3.4+): the reason, or None when the name is valid."""
    if not name:
        return "the empty string is not allowed"
    if name == ".":
        return "'.' is not allowed"
    if name == "..":
        return "'..' is not allowed"
    if _java_length(name) > MAX_NAME_LENGTH:
        return f"the length of '{name}' is longer than the max allowed length {MAX_NAME_LENGTH}"
    if not all(char in _LEGAL_CHARS for char in name):
        return f"'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    return None


def name_problem(name: str) -> str | None:
    """Kafka's message for an invalid topic name, or None if Kafka accepts it (for live validation)."""
    reason = _invalid_reason(name)
    return None if reason is None else f"Topic name is invalid: {reason}"


def is_valid_topic_name(name: str) -> bool:
    """``Topic.isValid``: True when :func:`validate_topic_name` would not raise."""
    return _invalid_reason(name) is None


def validate_topic_name(name: str) -> None:
    """``Topic.validate``.

    Raises:
        KafkaRuleError: ``InvalidTopicException`` with Kafka's 3.4+ message, for example
            ``Topic name is invalid: '.' is not allowed``.
    """
    problem = name_problem(name)
    if problem is not None:
        raise KafkaRuleError(problem, "InvalidTopicException")


def has_collision_chars(name: str) -> bool:
    """``Topic.hasCollisionChars``: the name contains ``.`` or ``_`` (metric names may collide)."""
    return "." in name or "_" in name


def unify_collision_chars(name: str) -> str:
    """``Topic.unifyCollisionChars``: every ``.`` replaced by ``_``."""
    return name.replace(".", "_")


def has_collision(a: str, b: str) -> bool:
    """``Topic.hasCollision``: equal after unifying ``.`` and ``_`` (also true when ``a == b``)."""
    return unify_collision_chars(a) == unify_collision_chars(b)


def collisions(name: str, existing: Iterable[str]) -> list[str]:
    """Existing topics colliding with ``name``, in the order Kafka's message lists them.

    ``AdminZkClient.validateTopicCreate`` filters the Scala ``Set`` of all topics. Up to four
    topics that set keeps ZooKeeper's child order (pass ``existing`` as ``get_children`` returned
    it); from five on Scala's hash order applies to the filtered result. An exact match is
    included (Kafka reports "already exists" before it looks for collisions).
    """
    topics = list(dict.fromkeys(existing))
    colliding = [topic for topic in topics if has_collision(name, topic)]
    return scala_string_set_order(colliding, hashed=len(topics) > 4)


def is_internal(name: str) -> bool:
    """``Topic.isInternal`` (3.9 set; ``__cluster_metadata`` is deliberately not internal)."""
    return name in INTERNAL_TOPICS
