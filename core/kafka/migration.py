"""The ZooKeeper-to-KRaft migration (KIP-866, Kafka 3.4-3.9) as ZooKeeper and the brokers show it: pure rules.

Where a cluster stands is read from the marks the migration leaves (measured on a real 3.9 migration,
``shared/kafka/kraft-migration.md``):

| phase | ``/migration`` | ``/controller`` | ``/brokers/ids`` |
|---|---|---|---|
| not started | absent | ZooKeeper broker (``kraftControllerEpoch`` -1) | every broker |
| KRaft controller waiting for brokers | all fields -1 | ZooKeeper broker | every broker |
| migrating (initial copy) | offset -1 | KRaft controller (epoch >= 0, persistent) | every broker |
| dual write | offset >= 0, advancing ~2/s | KRaft controller | every broker (all in migration mode) |
| brokers moving to KRaft | advancing | KRaft controller | a subset: KRaft brokers leave it |
| finalized (or controller down) | frozen | KRaft controller | empty |

A broker in migration mode registers in ZooKeeper exactly as a ZooKeeper-mode one: before dual write only the
broker's own config (``zookeeper.metadata.migration.enable``, DescribeConfigs) tells them apart. A KRaft
broker is absent from ``/brokers/ids`` but still serves (AdminClient) and stays in the ISR.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from core.kafka.znodes import ControllerInfo, MigrationState, Unreadable
from core.kafka.znodes.paths import MIGRATION

MIGRATION_ENABLE = "zookeeper.metadata.migration.enable"
IBP = "inter.broker.protocol.version"
# MetadataVersion.IBP_3_4_IV0: the first version that supports the migration (Kafka refuses to enable it
# below: "Cannot enable ZooKeeper migration without setting 'inter.broker.protocol.version' to 3.4 or higher").
MIN_MIGRATION_IBP = (3, 4)


class Phase(enum.Enum):
    """Where a migration stands, as far as ZooKeeper (and the brokers, when asked) can tell."""

    NOT_STARTED = "not_started"
    WAITING_FOR_BROKERS = "waiting_for_brokers"
    MIGRATING = "migrating"
    DUAL_WRITE = "dual_write"
    BROKERS_TO_KRAFT = "brokers_to_kraft"
    FINALIZED = "finalized"
    ROLLED_BACK = "rolled_back"
    UNKNOWN = "unknown"

    @property
    def label(self) -> str:
        """The phase in words."""
        return _LABELS[self]

    @property
    def kraft_owns_metadata(self) -> bool:
        """Whether a KRaft controller owns the metadata (ZooKeeper writes would bypass it)."""
        return self in (Phase.MIGRATING, Phase.DUAL_WRITE, Phase.BROKERS_TO_KRAFT, Phase.FINALIZED)


_LABELS = {
    Phase.NOT_STARTED: "not started",
    Phase.WAITING_FOR_BROKERS: "KRaft controller waiting for brokers",
    Phase.MIGRATING: "migrating (the KRaft controller copies the metadata)",
    Phase.DUAL_WRITE: "dual write",
    Phase.BROKERS_TO_KRAFT: "brokers moving to KRaft",
    Phase.FINALIZED: "finalized (as far as ZooKeeper can tell)",
    Phase.ROLLED_BACK: "rolled back to ZooKeeper",
    Phase.UNKNOWN: "unknown",
}


class Mode(enum.Enum):
    """How a broker runs during the migration."""

    ZOOKEEPER = "zookeeper"
    MIGRATION = "migration"
    KRAFT = "kraft"
    GONE = "gone"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class BrokerMode:
    """One broker's mode and what it was told by (``source``: zookeeper, config, brokers, isr)."""

    id: int
    mode: Mode
    source: str

    def to_json(self) -> dict[str, object]:
        """``{"id", "mode", "source"}``."""
        return {"id": self.id, "mode": self.mode.value, "source": self.source}


@dataclass(frozen=True)
class PhaseView:
    """The phase with why, the next step and whether a rollback is still possible."""

    phase: Phase
    reason: str
    next_step: str
    rollback: str
    rollback_possible: bool | None


def derive_phase(
    controller: ControllerInfo | Unreadable | None,
    migration: MigrationState | Unreadable | None,
    registered: Collection[int],
    kraft_brokers: Collection[int],
    advancing: bool | None,
) -> PhaseView:
    """The phase from ``/controller``, ``/migration``, ``/brokers/ids`` and the brokers known to run KRaft.

    Args:
        advancing: whether ``/migration``'s offset moved lately (None: not observed). Only consulted when no
            broker is left in ``/brokers/ids``: frozen means finalized (or the controller is down).
    """
    if isinstance(controller, Unreadable) or isinstance(migration, Unreadable):
        bad = controller if isinstance(controller, Unreadable) else migration
        assert isinstance(bad, Unreadable)
        return _view(Phase.UNKNOWN, f"{bad.path} is unreadable: {bad.reason}")
    kraft = isinstance(controller, ControllerInfo) and controller.is_kraft
    if migration is None:
        if kraft:
            return _view(Phase.UNKNOWN, "a KRaft controller holds /controller but /migration is absent")
        return _view(Phase.NOT_STARTED, f"{MIGRATION} is absent and a ZooKeeper broker (or none) is controller")
    if not kraft:
        if migration.kraft_metadata_offset < 0:
            return _view(
                Phase.WAITING_FOR_BROKERS,
                f"{MIGRATION} exists with no metadata offset and a ZooKeeper broker is still controller: a KRaft "
                "controller in migration mode waits for every broker to register with it",
            )
        return _view(
            Phase.ROLLED_BACK,
            f"{MIGRATION} records offset {migration.kraft_metadata_offset} but a ZooKeeper broker is controller again",
        )
    assert isinstance(controller, ControllerInfo)
    who = f"KRaft controller {controller.broker_id} (epoch {controller.kraft_controller_epoch}) holds /controller"
    if migration.kraft_metadata_offset < 0:
        return _view(Phase.MIGRATING, f"{who}; /migration has no metadata offset yet: the initial copy runs")
    if not registered:
        if advancing is False:
            return _view(
                Phase.FINALIZED,
                f"{who}; no broker is left in /brokers/ids and /migration no longer advances (or the controller "
                "is down)",
            )
        seen = "still advances" if advancing else "was not observed moving"
        return _view(Phase.BROKERS_TO_KRAFT, f"{who}; every broker left /brokers/ids; /migration {seen}")
    if kraft_brokers:
        moved = ", ".join(map(str, sorted(kraft_brokers)))
        return _view(Phase.BROKERS_TO_KRAFT, f"{who}; broker(s) {moved} run KRaft (gone from /brokers/ids)")
    return _view(Phase.DUAL_WRITE, f"{who}; /migration at offset {migration.kraft_metadata_offset}")


def _view(phase: Phase, reason: str) -> PhaseView:
    next_step, rollback, possible = _NEXT[phase]
    return PhaseView(phase, reason, next_step, rollback, possible)


_NEXT: dict[Phase, tuple[str, str, bool | None]] = {
    Phase.NOT_STARTED: (
        "fix the blockers, then format KRaft controllers with this cluster's id (/cluster/id) and start them "
        f"with {MIGRATION_ENABLE}=true and zookeeper.connect",
        "nothing to roll back",
        None,
    ),
    Phase.WAITING_FOR_BROKERS: (
        f"roll every broker with {MIGRATION_ENABLE}=true, controller.quorum.voters, controller.listener.names and "
        f"{IBP} equal to the controllers' metadata.version; the copy starts when the last one registers",
        "possible: stop the KRaft controllers and delete /migration and the controllers' logs",
        True,
    ),
    Phase.MIGRATING: (
        "wait: the KRaft controller copies the metadata, then dual-writes",
        "possible until the controllers are finalized (Kafka's guide: revert the brokers, then the controllers)",
        True,
    ),
    Phase.DUAL_WRITE: (
        "roll the brokers to KRaft (process.roles=broker, node.id, no zookeeper.* settings)",
        "possible: roll the brokers back without migration mode, stop the controllers, delete /controller and "
        f"{MIGRATION}",
        True,
    ),
    Phase.BROKERS_TO_KRAFT: (
        "roll the remaining brokers to KRaft, then finalize: restart the controllers without "
        f"{MIGRATION_ENABLE} and zookeeper.connect",
        "possible until the controllers are finalized: roll the KRaft brokers back to migration mode first",
        True,
    ),
    Phase.FINALIZED: (
        "nothing: the cluster runs on KRaft; ZooKeeper is no longer updated and can be decommissioned",
        "not possible: the controllers were finalized (ZooKeeper no longer receives changes)",
        False,
    ),
    Phase.ROLLED_BACK: (
        "a ZooKeeper controller is active again; to migrate again, start over from the KRaft controllers",
        "done (the cluster is back on ZooKeeper)",
        None,
    ),
    Phase.UNKNOWN: ("read the reason: kzc cannot tell the phase", "unknown", None),
}


def broker_modes(
    phase: Phase,
    registered: Collection[int],
    known: Collection[int],
    served: Collection[int] | None,
    in_isr: Collection[int],
    migration_enabled: Mapping[int, bool],
) -> tuple[BrokerMode, ...]:
    """Each broker's mode.

    Args:
        registered: brokers in ``/brokers/ids``.
        known: every broker id kzc knows of (replicas of the assignments, registered, served).
        served: the brokers the AdminClient lists (None: not asked).
        in_isr: brokers in some partition's ISR.
        migration_enabled: each broker's ``zookeeper.metadata.migration.enable`` (DescribeConfigs), when read.
    """
    kraft_owner = phase.kraft_owns_metadata
    out = []
    for broker in sorted(set(known) | set(registered) | set(served or ())):
        if broker in registered:
            if kraft_owner:
                # The KRaft controller only takes over once every registered broker registered with it.
                out.append(BrokerMode(broker, Mode.MIGRATION, "zookeeper"))
            elif broker in migration_enabled:
                mode = Mode.MIGRATION if migration_enabled[broker] else Mode.ZOOKEEPER
                out.append(BrokerMode(broker, mode, "config"))
            elif phase in (Phase.NOT_STARTED, Phase.ROLLED_BACK):
                out.append(BrokerMode(broker, Mode.ZOOKEEPER, "zookeeper"))
            else:
                # Migration mode leaves no mark in ZooKeeper: only the broker's config tells.
                out.append(BrokerMode(broker, Mode.UNKNOWN, "zookeeper"))
        elif served is not None:
            alive = broker in served
            out.append(BrokerMode(broker, Mode.KRAFT if alive and kraft_owner else Mode.GONE, "brokers"))
        elif kraft_owner and broker in in_isr:
            out.append(BrokerMode(broker, Mode.KRAFT, "isr"))
        else:
            out.append(BrokerMode(broker, Mode.GONE, "zookeeper"))
    return tuple(out)


def ibp_tuple(value: str) -> tuple[int, int] | None:
    """``inter.broker.protocol.version`` as (major, minor): ``3.9``, ``3.9-IV0``, ``2.8-IV1``, ``0.10.2``."""
    match = re.match(r"^\s*(\d+)\.(\d+)(?:\.(\d+))?", value)
    if match is None:
        return None
    major, minor, patch = int(match[1]), int(match[2]), match[3]
    # Versions before 1.0 are written 0.MINOR.PATCH: compare them on (0, MINOR) (all far below 3.4).
    return (major, minor) if patch is None or major > 0 else (0, minor)


def ibp_migrates_delegation_tokens(value: str) -> bool | None:
    """Whether a migration at this IBP (equal to the controllers' metadata.version) copies delegation tokens:
    3.6-IV2 or higher (``MetadataVersion.isDelegationTokenSupported``; "3.6" alone is 3.6's latest, IV2). None
    when the value is not a version."""
    parsed = ibp_tuple(value)
    if parsed is None:
        return None
    if parsed != (3, 6):
        return parsed > (3, 6)
    iv = re.search(r"-IV(\d+)\s*$", value)
    return iv is None or int(iv[1]) >= 2


def ibp_supports_migration(value: str) -> bool | None:
    """Whether a broker at this IBP can enter migration mode (3.4+); None when the value is not a version."""
    parsed = ibp_tuple(value)
    return None if parsed is None else parsed >= MIN_MIGRATION_IBP


# The release to reach before migrating: the last with ZooKeeper, whose migration is the most complete
# (delegation tokens from 3.6, JBOD from 3.8); Kafka's upgrade notes take any release from 0.8.x straight to it.
UPGRADE_TARGET = "3.9"


def upgrade_path(ibps: Collection[str]) -> str:
    """What a cluster whose brokers cannot migrate (an ``inter.broker.protocol.version`` below 3.4, or a
    release before 3.4) does first: Kafka's rolling upgrade (its upgrade notes, "Upgrading ZooKeeper-based
    clusters"), then the protocol bump that the migration needs.

    Args:
        ibps: the protocol versions the brokers report (empty when they cannot say, e.g. 0.10 has no
            DescribeConfigs).
    """
    parsed = [p for p in (ibp_tuple(v) for v in ibps) if p is not None]
    current = ", ".join(sorted(set(ibps))) if ibps else "its current value"
    old_format = not parsed or min(parsed) < (3, 0)
    keep = f"{IBP}={current}" + (
        " and log.message.format.version at its current value (set it to the running release before 0.11)"
        if old_format
        else ""
    )
    irreversible = (
        "; from then on a downgrade below 2.1 is impossible (the offsets schema changes)"
        if not parsed or min(parsed) < (2, 1)
        else ""
    )
    return (
        f"upgrade first: migration needs Kafka 3.4 or newer at {IBP} 3.4 or higher. Roll every broker to Kafka "
        f"{UPGRADE_TARGET} (3.4 at least; any release from 0.8 upgrades to it directly), keeping {keep} in "
        f"server.properties; once every broker runs it, set {IBP}={UPGRADE_TARGET} and restart the brokers one "
        f"by one{irreversible}; then start the migration"
    )
