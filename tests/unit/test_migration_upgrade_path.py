"""Migration readiness on a cluster that cannot migrate yet says the upgrade path: which release to reach and the
``inter.broker.protocol.version`` steps of Kafka's rolling upgrade (no cluster)."""

from __future__ import annotations

from core.kafka.migration import Phase, upgrade_path
from core.migration.status import BrokerFacts, migration_status
from core.testdata.checks import MIGRATION_CASES, migration_ready


def test_an_old_protocol_makes_the_upgrade_the_next_step() -> None:
    configs = {b: {"inter.broker.protocol.version": "2.4-IV1"} for b in (1, 2, 3)}
    status = migration_status(migration_ready(), BrokerFacts(served=frozenset({1, 2, 3}), configs=configs))
    assert status.phase is Phase.NOT_STARTED and not status.ready
    nxt = status.view.next_step
    assert nxt.startswith("upgrade first") and "Kafka 3.9" in nxt and "3.4 at least" in nxt
    assert "keeping inter.broker.protocol.version=2.4-IV1" in nxt
    assert "set inter.broker.protocol.version=3.9 and restart the brokers one by one" in nxt
    assert status.to_json()["next"] == nxt


def test_old_registrations_alone_give_the_path_without_a_version() -> None:
    # 0.10 brokers cannot say their protocol version (no DescribeConfigs): their v4 registrations tell.
    build, _ = MIGRATION_CASES["migration_protocol_too_old"]
    status = migration_status(build())
    assert "upgrade first" in status.view.next_step
    assert "inter.broker.protocol.version=its current value" in status.view.next_step
    assert "log.message.format.version" in status.view.next_step and "below 2.1" in status.view.next_step


def test_a_ready_cluster_keeps_the_usual_next_step() -> None:
    assert not migration_status(migration_ready()).view.next_step.startswith("upgrade first")


def test_the_message_format_and_offsets_notes_apply_only_below_3_0_and_2_1() -> None:
    recent = upgrade_path(["3.3-IV3"])
    assert "log.message.format.version" not in recent and "below 2.1" not in recent
    middle = upgrade_path(["2.4"])
    assert "log.message.format.version" in middle and "below 2.1" not in middle
    assert "below 2.1" in upgrade_path(["0.10.2"])
