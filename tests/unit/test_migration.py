"""The migration's phases, broker modes and readiness findings, from ZooKeeper's values (no cluster)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from cli.migration_cmd import render
from core.consistency.catalog import BY_ID, MIGRATION_CHECKS, selected
from core.consistency.local_engine import run_local
from core.kafka.migration import (
    Mode,
    Phase,
    broker_modes,
    derive_phase,
    ibp_migrates_delegation_tokens,
    ibp_supports_migration,
)
from core.kafka.znodes import ControllerInfo, MigrationState, Unreadable
from core.migration.status import Blocker, BrokerFacts, migration_status
from core.sandbox.migration import _rewrite
from core.snapshot.kraft import kraft_broker_ids, with_served_kraft_brokers
from core.testdata.checks import MIGRATION_CASES, broker_json, healthy, kraft_moved, migration_ready

ZK_CONTROLLER = ControllerInfo(2, 1, 2, -1)
KRAFT_CONTROLLER = ControllerInfo(3000, 1, 2, 1)
WAITING = MigrationState(0, -1, -1, -1, -1)
COPYING = MigrationState(0, 3000, 1, -1, -1)
DUAL = MigrationState(0, 3000, 1, 158, 1)


@pytest.mark.parametrize(
    ("controller", "migration", "registered", "kraft", "advancing", "phase"),
    [
        (ZK_CONTROLLER, None, {1, 2, 3}, set(), None, Phase.NOT_STARTED),
        (None, None, {1, 2, 3}, set(), None, Phase.NOT_STARTED),
        (ZK_CONTROLLER, WAITING, {1, 2, 3}, set(), None, Phase.WAITING_FOR_BROKERS),
        (KRAFT_CONTROLLER, COPYING, {1, 2, 3}, set(), None, Phase.MIGRATING),
        (KRAFT_CONTROLLER, DUAL, {1, 2, 3}, set(), None, Phase.DUAL_WRITE),
        (KRAFT_CONTROLLER, DUAL, {1, 2}, {3}, None, Phase.BROKERS_TO_KRAFT),
        (KRAFT_CONTROLLER, DUAL, set(), {1, 2, 3}, True, Phase.BROKERS_TO_KRAFT),
        (KRAFT_CONTROLLER, DUAL, set(), {1, 2, 3}, False, Phase.FINALIZED),
        (ZK_CONTROLLER, DUAL, {1, 2, 3}, set(), None, Phase.ROLLED_BACK),
        (Unreadable("/controller", b"{", "bad"), DUAL, {1}, set(), None, Phase.UNKNOWN),
        (KRAFT_CONTROLLER, None, {1}, set(), None, Phase.UNKNOWN),
    ],
)
def test_each_zookeeper_signature_gives_its_phase(
    controller: ControllerInfo | Unreadable | None,
    migration: MigrationState | None,
    registered: set[int],
    kraft: set[int],
    advancing: bool | None,
    phase: Phase,
) -> None:
    view = derive_phase(controller, migration, registered, kraft, advancing)
    assert view.phase is phase, view.reason
    assert view.next_step and view.rollback


def test_rollback_is_possible_until_the_controllers_are_finalized() -> None:
    assert derive_phase(KRAFT_CONTROLLER, DUAL, {1}, {2}, None).rollback_possible is True
    assert derive_phase(KRAFT_CONTROLLER, DUAL, set(), {1, 2}, False).rollback_possible is False


def test_a_broker_gone_from_zookeeper_is_kraft_when_it_serves_or_sits_in_an_isr_and_gone_otherwise() -> None:
    modes = broker_modes(Phase.BROKERS_TO_KRAFT, {1}, {1, 2, 3}, {1, 2}, set(), {})
    assert [(m.id, m.mode) for m in modes] == [(1, Mode.MIGRATION), (2, Mode.KRAFT), (3, Mode.GONE)]
    by_isr = broker_modes(Phase.BROKERS_TO_KRAFT, {1}, {1, 2, 3}, None, {1, 2}, {})
    assert [(m.mode, m.source) for m in by_isr][1:] == [(Mode.KRAFT, "isr"), (Mode.GONE, "zookeeper")]


def test_before_dual_write_only_the_brokers_config_tells_migration_mode_apart() -> None:
    modes = broker_modes(Phase.WAITING_FOR_BROKERS, {1, 2, 3}, {1, 2, 3}, None, set(), {1: True, 2: False})
    assert [m.mode for m in modes] == [Mode.MIGRATION, Mode.ZOOKEEPER, Mode.UNKNOWN]


@pytest.mark.parametrize(
    ("ibp", "ok"),
    [("3.9", True), ("3.4-IV0", True), ("3.3-IV3", False), ("2.6", False), ("0.10.2", False), ("x", None)],
)
def test_migration_needs_ibp_3_4(ibp: str, ok: bool | None) -> None:
    assert ibp_supports_migration(ibp) is ok


@pytest.mark.parametrize("case", sorted(MIGRATION_CASES))
def test_each_readiness_case_fires_exactly_its_checks(case: str) -> None:
    builder, expected = MIGRATION_CASES[case]
    findings = run_local(builder(), only=MIGRATION_CHECKS)
    assert {f.check for f in findings} == expected, [f.detail for f in findings]
    for f in findings:
        assert f.detail.endswith(".") and "None" not in f.detail, f.detail
        assert BY_ID[f.check].group == "migration"


def test_kzc_check_runs_the_readiness_checks_only_when_asked() -> None:
    assert not set(selected(None, True)) & set(MIGRATION_CHECKS)
    assert set(selected(MIGRATION_CHECKS, False)) == set(MIGRATION_CHECKS)


def test_the_sandbox_rewrites_a_broker_for_kraft_as_kafkas_guide_says(tmp_path: Path) -> None:
    props = tmp_path / "server.properties"
    props.write_text(
        "broker.id=3\nlisteners=PLAINTEXT://127.0.0.1:9\nzookeeper.connect=z/kafka\n# kept\n"
        "controlled.shutdown.max.retries=1\ninter.broker.protocol.version=3.9\ncontroller.listener.names=CONTROLLER\n"
    )
    drop = ("broker.id", "inter.broker.protocol.version")
    _rewrite(
        props,
        lambda key: key in drop or key.startswith(("zookeeper.", "controlled.shutdown.")),
        {"process.roles": "broker", "node.id": "3"},
    )
    assert props.read_text().splitlines() == [
        "listeners=PLAINTEXT://127.0.0.1:9",
        "# kept",
        "controller.listener.names=CONTROLLER",
        "process.roles=broker",
        "node.id=3",
    ]


def test_the_brokers_configs_add_an_old_ibp_blocker_and_a_jbod_note() -> None:
    configs = {1: {"inter.broker.protocol.version": "3.3-IV3", "log.dirs": "/a,/b"}, 2: {"log.dirs": "/a"}}
    status = migration_status(migration_ready(), BrokerFacts(served=frozenset({1, 2, 3}), configs=configs))
    assert status.phase is Phase.NOT_STARTED and not status.ready
    (blocker,) = status.blockers
    assert blocker.check == "migration_protocol_too_old" and "3.3-IV3" in blocker.detail
    assert blocker.path == "/brokers/ids/1"
    assert [n for n in status.notes if "JBOD" in n] == [status.notes[0]] and "broker 1 has 2 log dirs" in status.notes[
        0
    ]
    data = status.to_json()
    assert {"phase", "kraft_controller", "brokers", "ready", "blockers"} <= set(data)
    assert data["blockers"] == [blocker.to_json()]


@pytest.mark.parametrize(
    ("ibp", "migrates"),
    [("3.9", True), ("3.7-IV4", True), ("3.6", True), ("3.6-IV2", True), ("3.6-IV1", False), ("3.5", False),
     ("3.4-IV0", False), ("2.8", False), ("x", None)],
)  # fmt: skip
def test_delegation_tokens_migrate_from_metadata_version_3_6_iv2(ibp: str, migrates: bool | None) -> None:
    assert ibp_migrates_delegation_tokens(ibp) is migrates


def test_delegation_tokens_block_unless_every_broker_reports_an_ibp_that_migrates_them() -> None:
    snapshot = migration_ready(delegation_tokens=2)
    assert [b.check for b in migration_status(snapshot).blockers] == ["migration_delegation_tokens"]
    old = {1: {"inter.broker.protocol.version": "3.9"}, 2: {"inter.broker.protocol.version": "3.5-IV2"}}
    facts = BrokerFacts(served=frozenset({1, 2}), configs=old)
    assert [b.check for b in migration_status(snapshot, facts).blockers] == ["migration_delegation_tokens"]
    new = {1: {"inter.broker.protocol.version": "3.9"}, 2: {"inter.broker.protocol.version": "3.6-IV2"}}
    status = migration_status(snapshot, BrokerFacts(served=frozenset({1, 2}), configs=new))
    assert status.ready and any("delegation tokens" in n and "3.6-IV2" in n for n in status.notes)


def test_a_broker_is_kraft_only_while_a_kraft_controller_holds_the_controller_znode() -> None:
    # Broker 3 gone from /brokers/ids and still in the ISR: KRaft under a KRaft controller, dead under a
    # ZooKeeper one (the ISR of a ZooKeeper controller only lags).
    moved = kraft_moved()
    assert moved.kraft_brokers == frozenset({3}) and 3 in moved.live_broker_ids()
    assert kraft_broker_ids(moved, served=None) == {3}
    assert kraft_broker_ids(moved, served={1, 2}) == frozenset()
    assert kraft_broker_ids(moved, served={1, 2, 3}) == {3}
    zk_mode = with_served_kraft_brokers(healthy(brokers={1: broker_json(1), 2: broker_json(2)}), None)
    assert zk_mode.kraft_brokers is None and 3 not in zk_mode.live_broker_ids()


def test_the_panel_tells_finalized_from_every_broker_on_kraft_with_the_controller_still_dual_writing() -> None:
    # ZooKeeper shows both alike (a KRaft controller, no broker in /brokers/ids): /migration moving tells.
    snapshot = replace(kraft_moved(brokers={}), migration=DUAL)
    assert snapshot.kraft_brokers == {1, 2, 3}
    moving = migration_status(snapshot, advancing=True, readiness=False).panel_lines()
    assert moving[0] == "phase: every broker runs KRaft; the controller still dual-writes (/migration advancing)"
    assert "/migration advancing: the KRaft controller dual-writes to ZooKeeper" in moving
    assert "brokers: 1 kraft, 2 kraft, 3 kraft" in moving
    frozen = migration_status(snapshot, advancing=False, readiness=False).panel_lines()
    assert frozen[0].startswith("phase: finalized as far as ZooKeeper can tell (/migration frozen, no broker in")
    assert "/migration frozen: nothing dual-writes (finalized, or the KRaft controller is down)" in frozen
    unseen = migration_status(snapshot, advancing=None, readiness=False).panel_lines()
    assert unseen[0] == "phase: every broker left /brokers/ids; /migration not observed moving yet"


def test_the_next_step_asks_to_fix_blockers_only_when_there_are_some() -> None:
    ready = migration_status(migration_ready())
    assert ready.phase is Phase.NOT_STARTED and not ready.blockers
    assert not ready.next_step.startswith("fix") and ready.next_step.startswith("format KRaft controllers")
    assert ready.to_json()["next"] == ready.next_step and "Blockers     none" in render(ready)
    blocked = replace(ready, blockers=(Blocker("ibp", "too old", "/brokers/ids/1"),))
    assert blocked.next_step.startswith("fix the 1 blocker(s) below, then format KRaft controllers")
