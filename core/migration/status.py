"""Where a ZooKeeper-to-KRaft migration stands and what blocks it: ``kzc migration``, the cluster screen's panel.

The phase and each broker's mode come from ``core.kafka.migration`` (the one rule), fed with a snapshot of
ZooKeeper and, when ``--bootstrap-server`` is given, what the brokers say (DescribeCluster: which brokers
serve; DescribeConfigs: each broker's migration flag and inter.broker.protocol.version). The blockers are the
findings of the catalog's migration readiness checks (``core.consistency``, the same rules ``kzc check
--only migration_...`` runs) plus what only the brokers' configs show.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.brokers.admin import KafkaAdmin
from core.config import KafkaSecurity
from core.connect import HostPort
from core.consistency.catalog import MIGRATION_CHECKS
from core.consistency.checks.migration import MigrationProtocolTooOld
from core.consistency.findings import make_finding
from core.consistency.local_engine import run_local
from core.errors import KzcError
from core.kafka.migration import (
    IBP,
    MIGRATION_ENABLE,
    BrokerMode,
    Mode,
    Phase,
    PhaseView,
    broker_modes,
    derive_phase,
    ibp_migrates_delegation_tokens,
    ibp_supports_migration,
    upgrade_path,
)
from core.kafka.znodes import ControllerInfo, MigrationState
from core.kafka.znodes.paths import MIGRATION, broker_path
from core.snapshot.kraft import broker_sets, kraft_broker_ids
from core.snapshot.model import ClusterSnapshot
from core.zookeeper.session import ZkSession

LOG_DIRS = "log.dirs"
TOKENS_CHECK = "migration_delegation_tokens"
PROTOCOL_CHECK = "migration_protocol_too_old"
# /migration moves with every KRaft batch, at least every 500 ms (the controller's NoOpRecord,
# metadata.max.idle.interval.ms): two seconds without a change means it is frozen.
ADVANCE_WINDOW_S = 2.0


@dataclass(frozen=True)
class Blocker:
    """Something that blocks the migration: a readiness check's id, its sentence and where it was seen."""

    check: str
    detail: str
    path: str

    def to_json(self) -> dict[str, str]:
        """``{"check", "detail", "path"}``."""
        return {"check": self.check, "detail": self.detail, "path": self.path}


@dataclass(frozen=True)
class BrokerFacts:
    """What the brokers said: which serve (None: not asked or no answer) and some static configs."""

    served: frozenset[int] | None = None
    configs: dict[int, dict[str, str]] = field(default_factory=dict)
    problems: tuple[str, ...] = ()


NOT_ASKED = BrokerFacts(problems=("the brokers were not asked: give --bootstrap-server to read their modes",))


WRITES_DURING_MIGRATION = (
    "writes through ZooKeeper refused (the KRaft controller owns the metadata); through the brokers "
    "(--bootstrap-server) allowed while it dual-writes"
)


FIX_BLOCKERS = "fix the blockers, then "  # how core.kafka.migration opens a next step that blockers hold up


@dataclass(frozen=True)
class MigrationStatus:
    """The migration as kzc sees it now."""

    view: PhaseView
    controller: ControllerInfo | None
    migration: MigrationState | None
    brokers: tuple[BrokerMode, ...]
    blockers: tuple[Blocker, ...]
    advancing: bool | None
    notes: tuple[str, ...] = ()

    @property
    def phase(self) -> Phase:
        """The phase."""
        return self.view.phase

    @property
    def ready(self) -> bool:
        """No blocker is known."""
        return not self.blockers

    @property
    def next_step(self) -> str:
        """The phase's next step, agreeing with the blockers: "fix the blockers" only when there are some."""
        step = self.view.next_step
        if step.startswith(FIX_BLOCKERS):
            rest = step.removeprefix(FIX_BLOCKERS)
            return f"fix the {len(self.blockers)} blocker(s) below, then {rest}" if self.blockers else rest
        return step

    @property
    def kraft_brokers(self) -> frozenset[int]:
        """Brokers running in KRaft mode: absent from ``/brokers/ids`` but serving (or in an ISR)."""
        return frozenset(b.id for b in self.brokers if b.mode is Mode.KRAFT)

    def kraft_controller_json(self) -> dict[str, Any] | None:
        """The KRaft controller: id and epoch from ``/controller`` (or ``/migration``), the offset and epoch of
        the metadata ``/migration`` records; None while no KRaft controller shows in ZooKeeper."""
        c, m = self.controller, self.migration
        if c is not None and c.is_kraft:
            who, epoch = c.broker_id, c.kraft_controller_epoch
        elif m is not None and m.kraft_controller_id >= 0:
            who, epoch = m.kraft_controller_id, m.kraft_controller_epoch
        else:
            return None
        return {
            "id": who,
            "epoch": epoch,
            "metadata_offset": m.kraft_metadata_offset if m is not None else None,
            "metadata_epoch": m.kraft_metadata_epoch if m is not None else None,
            "holds_controller_znode": c is not None and c.is_kraft,
            "migration_advancing": self.advancing,
        }

    def writes(self) -> str:
        """Which path kzc's mutations may take now (``core.topics.guard.read_only_reason`` decides each one)."""
        if self.phase.kraft_owns_metadata:
            return WRITES_DURING_MIGRATION
        if self.phase is Phase.UNKNOWN:
            return "writes refused where kzc cannot rule out a KRaft controller (see the reason)"
        return "writes through ZooKeeper or the brokers, as usual (a ZooKeeper controller is active)"

    def phase_line(self) -> str:
        """The phase, telling "finalized" (as far as ZooKeeper can tell) from "every broker on KRaft, the
        controller still dual-writing", which differ in ZooKeeper only by ``/migration`` moving."""
        in_zookeeper = any(b.mode not in (Mode.KRAFT, Mode.GONE) for b in self.brokers)
        if self.phase is Phase.FINALIZED:
            return (
                "phase: finalized as far as ZooKeeper can tell (/migration frozen, no broker in /brokers/ids; "
                "a stopped KRaft controller looks the same)"
            )
        if self.phase is Phase.BROKERS_TO_KRAFT and not in_zookeeper:
            if self.advancing:
                return "phase: every broker runs KRaft; the controller still dual-writes (/migration advancing)"
            return "phase: every broker left /brokers/ids; /migration not observed moving yet"
        return f"phase: {self.phase.label}"

    def migration_line(self) -> str | None:
        """Whether ``/migration`` moves, once a KRaft controller records an offset in it (None before)."""
        m = self.migration
        if m is None or m.kraft_metadata_offset < 0:
            return None
        if self.advancing is True:
            return f"{MIGRATION} advancing: the KRaft controller dual-writes to ZooKeeper"
        if self.advancing is False:
            return f"{MIGRATION} frozen: nothing dual-writes (finalized, or the KRaft controller is down)"
        return f"{MIGRATION}: not observed moving yet"

    def panel_lines(self) -> list[str]:
        """What the console's migration panel shows."""
        lines = [self.phase_line()]
        c = self.kraft_controller_json()
        if c is not None:
            lines.append(
                f"KRaft controller {c['id']} · epoch {c['epoch']} · /migration offset {c['metadata_offset']} "
                f"(epoch {c['metadata_epoch']})"
            )
        if (moving := self.migration_line()) is not None:
            lines.append(moving)
        lines.append("brokers: " + (", ".join(f"{b.id} {b.mode.value}" for b in self.brokers) or "none"))
        lines.append(f"next: {self.next_step}")
        lines.append(f"rollback: {self.view.rollback}")
        lines.append(self.writes())
        return lines

    def to_json(self) -> dict[str, Any]:
        """What ``kzc migration --json`` prints."""
        return {
            "phase": self.phase.value,
            "phase_label": self.phase.label,
            "reason": self.view.reason,
            "kraft_controller": self.kraft_controller_json(),
            "brokers": [b.to_json() for b in self.brokers],
            "next": self.next_step,
            "rollback_possible": self.view.rollback_possible,
            "rollback": self.view.rollback,
            "ready": self.ready,
            "blockers": [b.to_json() for b in self.blockers],
            "notes": list(self.notes),
            "writes": self.writes(),
        }


def ask_brokers(
    bootstrap: Sequence[HostPort] | None, security: KafkaSecurity, broker_ids: Collection[int], timeout: float = 10.0
) -> BrokerFacts:
    """DescribeCluster, then each broker's migration flag and IBP (DescribeConfigs); failures become notes."""
    if not bootstrap:
        return NOT_ASKED
    admin = KafkaAdmin(bootstrap, security=security, timeout=timeout)
    try:
        served = admin.served_broker_ids()
    except KzcError as exc:
        return BrokerFacts(problems=(f"the brokers did not answer DescribeCluster: {exc}",))
    configs: dict[int, dict[str, str]] = {}
    problems = []
    for broker_id in sorted(served | set(broker_ids)):
        if broker_id not in served:
            continue
        try:
            configs[broker_id] = admin.broker_configs(broker_id, (MIGRATION_ENABLE, IBP, "process.roles", LOG_DIRS))
        except KzcError as exc:
            problems.append(f"broker {broker_id}: its config could not be read ({exc})")
    return BrokerFacts(served=served, configs=configs, problems=tuple(problems))


def migration_advancing(session: ZkSession, window: float = ADVANCE_WINDOW_S) -> bool | None:
    """Whether ``/migration`` changes within ``window`` seconds: one read with a data watch, then wait for it
    (no polling). None when ``/migration`` is absent or unreadable."""
    changed = threading.Event()

    def on_change(_event: object) -> None:
        changed.set()  # kazoo's thread: only note it

    try:
        session.retry(session.client.get, MIGRATION, watch=on_change)
    except Exception:  # absent or unreadable: nothing to observe
        return None
    return changed.wait(window)


def migration_status(
    snapshot: ClusterSnapshot, brokers: BrokerFacts = NOT_ASKED, advancing: bool | None = None, readiness: bool = True
) -> MigrationStatus:
    """The phase, the KRaft controller, each broker's mode and (``readiness``) the blockers, from a snapshot and
    the brokers."""
    registered, known, in_isr = broker_sets(snapshot)
    controller = snapshot.controller if isinstance(snapshot.controller, ControllerInfo) else None
    migration = snapshot.migration if isinstance(snapshot.migration, MigrationState) else None
    enabled = {
        b: c[MIGRATION_ENABLE].strip().lower() == "true" for b, c in brokers.configs.items() if MIGRATION_ENABLE in c
    }
    # Determined already by whoever read the snapshot (the live model, kzc check), else from it and the brokers.
    kraft = snapshot.kraft_brokers if snapshot.kraft_brokers is not None else kraft_broker_ids(snapshot, brokers.served)
    view = derive_phase(snapshot.controller, snapshot.migration, registered, kraft, advancing)
    modes = broker_modes(view.phase, registered, known, brokers.served, in_isr, enabled)
    findings = run_local(snapshot, only=MIGRATION_CHECKS) if readiness else []
    findings.sort(key=lambda f: (f.check, f.path, f.broker or 0))
    notes = list(brokers.problems)
    tokens_migrate = _tokens_migrate(brokers)
    if tokens_migrate is not None:
        kept = [f for f in findings if f.check != TOKENS_CHECK]
        if len(kept) < len(findings):
            notes.append(f"delegation tokens in /delegation_token/tokens migrate: {tokens_migrate}")
        findings = kept
    blockers = [Blocker(f.check, f.detail, f.path) for f in findings]
    for broker_id, config in sorted(brokers.configs.items()):
        ibp = config.get(IBP)
        if ibp is not None and ibp_supports_migration(ibp) is False:
            f = make_finding(MigrationProtocolTooOld(ibp=ibp), broker_path(broker_id), broker=broker_id)
            blockers.append(Blocker(f.check, f.detail, f.path))
    if view.phase is Phase.NOT_STARTED and any(b.check == PROTOCOL_CHECK for b in blockers):
        # A release that cannot migrate: the next step is the upgrade, not the KRaft controllers.
        ibps = [c[IBP] for c in brokers.configs.values() if IBP in c]
        view = replace(view, next_step=upgrade_path(ibps))
    for broker_id, config in sorted(brokers.configs.items()):
        dirs = [d for d in config.get(LOG_DIRS, "").split(",") if d.strip()]
        if len(dirs) > 1:
            notes.append(
                f"broker {broker_id} has {len(dirs)} log dirs (JBOD): Kafka migrates JBOD brokers only from 3.8 "
                "(3.6-3.7 refuse to start the migration, KAFKA-15450); kzc cannot see the brokers' Kafka version"
            )
    return MigrationStatus(
        view=view,
        controller=controller,
        migration=migration,
        brokers=modes,
        blockers=tuple(blockers),
        advancing=advancing,
        notes=tuple(notes),
    )


def _tokens_migrate(brokers: BrokerFacts) -> str | None:
    """Why delegation tokens will migrate, when every broker that answered reports an IBP of 3.6-IV2 or higher
    (migration requires it to equal the controllers' metadata.version); None when kzc cannot tell."""
    if not brokers.served or any(b not in brokers.configs for b in brokers.served):
        return None
    ibps = {b: brokers.configs[b].get(IBP) for b in sorted(brokers.served)}
    if not all(v is not None and ibp_migrates_delegation_tokens(v) for v in ibps.values()):
        return None
    shown = ", ".join(sorted({str(v) for v in ibps.values()}))
    return f"every broker reports {IBP} {shown} (3.6-IV2 or higher, KAFKA-15219)"


def needs_advance_check(snapshot: ClusterSnapshot) -> bool:
    """Whether the phase depends on ``/migration`` moving: a KRaft controller and no broker left in ZooKeeper."""
    c = snapshot.controller
    return isinstance(c, ControllerInfo) and c.is_kraft and not snapshot.brokers
