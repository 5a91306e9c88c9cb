"""Client quotas: Kafka's eight-level precedence (ClientQuotaManager), per quota key; value checks; the
entity znode names (Sanitizer) and paths."""

from __future__ import annotations

import pytest

from core.errors import UsageError
from core.kafka.quotas import DEFAULT, QuotaEntity, effective_quotas, parse_quota, precedence, sanitize
from core.kafka.znodes.paths import config_path, quota_entity_path
from core.security.quotas import entity_location

LEVELS = [
    ("users/alice/clients/app", QuotaEntity("alice", "app")),
    ("users/alice/clients/<default>", QuotaEntity("alice", DEFAULT)),
    ("users/alice", QuotaEntity("alice", None)),
    ("users/<default>/clients/app", QuotaEntity(DEFAULT, "app")),
    ("users/<default>/clients/<default>", QuotaEntity(DEFAULT, DEFAULT)),
    ("users/<default>", QuotaEntity(DEFAULT, None)),
    ("clients/app", QuotaEntity(None, "app")),
    ("clients/<default>", QuotaEntity(None, DEFAULT)),
]


def test_precedence_is_the_documented_order() -> None:
    assert precedence("alice", "app") == [entity for _, entity in LEVELS]
    assert ["/".join(entity_location(e)) for e in precedence("alice", "app")] == [path for path, _ in LEVELS]


@pytest.mark.parametrize("level", range(8))
def test_each_level_wins_over_every_less_specific_one(level: int) -> None:
    quotas = {entity: {"producer_byte_rate": str(1000 + i)} for i, (_, entity) in enumerate(LEVELS) if i >= level}
    found = {q.key: q for q in effective_quotas(quotas, "alice", "app")}
    assert found["producer_byte_rate"].value == str(1000 + level)
    assert found["producer_byte_rate"].source == LEVELS[level][1]
    assert found["consumer_byte_rate"].value is None and found["consumer_byte_rate"].source is None


def test_each_key_takes_its_own_most_specific_level() -> None:
    quotas = {
        QuotaEntity("alice", None): {"consumer_byte_rate": "10"},
        QuotaEntity(None, "app"): {"producer_byte_rate": "20", "consumer_byte_rate": "30"},
        QuotaEntity("bob", "app"): {"producer_byte_rate": "40"},  # another user: never applies to alice
    }
    found = {q.key: (q.value, q.source) for q in effective_quotas(quotas, "alice", "app")}
    assert found["consumer_byte_rate"] == ("10", QuotaEntity("alice", None))
    assert found["producer_byte_rate"] == ("20", QuotaEntity(None, "app"))


def test_values_are_checked_as_kafka_parses_them() -> None:
    assert parse_quota("producer_byte_rate", "1024", None) == "1024"
    assert parse_quota("request_percentage", "12.5", None) == "12.5"
    with pytest.raises(UsageError, match="Not a number of type LONG"):
        parse_quota("producer_byte_rate", "1.5", None)
    with pytest.raises(UsageError, match="Unknown quota"):
        parse_quota("SCRAM-SHA-256", "x", None)
    with pytest.raises(UsageError, match="needs Kafka 2.7"):
        parse_quota("controller_mutation_rate", "1", (2, 6))
    with pytest.raises(UsageError, match="must be positive"):
        parse_quota("consumer_byte_rate", "0", None)


def test_names_are_sanitised_as_kafka_sanitizer() -> None:
    assert sanitize("User:CN=a b*~") == "User%3ACN%3Da%20b%2A%7E"
    assert sanitize(DEFAULT) == DEFAULT
    assert config_path(*quota_entity_path("alice", "app")) == "/config/users/alice/clients/app"
    assert config_path(*quota_entity_path(None, DEFAULT)) == "/config/clients/<default>"
