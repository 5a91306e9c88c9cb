"""kafka-configs --zookeeper's rules for dynamic broker configs, release by release, with Kafka's messages."""

from __future__ import annotations

import pytest

from core.errors import KafkaRuleError
from core.kafka.broker_config_rules import check_zookeeper_update


def test_throttle_rates_pass_while_brokers_run() -> None:
    check_zookeeper_update([("leader.replication.throttled.rate", "100")], "1", [1, 2], before_1_1=False)
    check_zookeeper_update([("follower.replication.throttled.rate", "0")], "<default>", [1], before_1_1=True)


@pytest.mark.parametrize(
    ("entity", "message"),
    [
        ("1", "Set(log.cleaner.threads). when broker 1 is running."),
        ("<default>", "Set(log.cleaner.threads). for default cluster if any broker is running."),
    ],
)
def test_other_keys_are_refused_while_brokers_run(entity: str, message: str) -> None:
    with pytest.raises(KafkaRuleError, match="--bootstrap-server option must be specified") as raised:
        check_zookeeper_update([("log.cleaner.threads", "2")], entity, [1, 2], before_1_1=False)
    assert message in str(raised.value)


def test_before_1_1_only_the_two_rates_exist() -> None:
    with pytest.raises(KafkaRuleError, match="Unknown Dynamic Configuration 'replica.alter.log.dirs"):
        check_zookeeper_update([("replica.alter.log.dirs.io.max.bytes.per.second", "1")], "1", [], before_1_1=True)


@pytest.mark.parametrize(("value", "why"), [("-1", "Value must be at least 0"), ("fast", "Not a number of type LONG")])
def test_rates_are_longs_at_least_0(value: str, why: str) -> None:
    with pytest.raises(KafkaRuleError) as raised:
        check_zookeeper_update([("leader.replication.throttled.rate", value)], "1", [1], before_1_1=False)
    assert str(raised.value) == f"Invalid value {value} for configuration leader.replication.throttled.rate: {why}"
