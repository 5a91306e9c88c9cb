"""Cluster-wide znodes: ``/controller``, ``/controller_epoch``, ``/cluster/id``, ``/feature``,
``/migration`` and ``/latest_producer_id_block`` (zk-layout §2.1, §2.2, §2.11)."""

from __future__ import annotations

from dataclasses import dataclass

from core.kafka.znodes.base import (
    INT32,
    INT64,
    Malformed,
    Row,
    as_int,
    as_object,
    describe,
    format_ms,
    java_decimal,
    load_object,
    missing,
    opt_decimal_str,
    opt_int,
    parser,
    req_int,
    req_str,
    req_version,
    utf8_text,
)


@dataclass(frozen=True, slots=True)
class ControllerInfo:
    """``/controller``: who the active controller is.

    v1 (0.8 to 3.3) has ``brokerid`` and ``timestamp``; v2 (3.4+) adds ``kraftControllerEpoch``, -1 when a
    ZooKeeper-mode broker is controller, the KRaft epoch when a KRaft controller holds the znode during a
    ZooKeeper to KRaft migration.
    """

    broker_id: int
    timestamp_ms: int | None
    version: int
    kraft_controller_epoch: int | None

    @property
    def is_kraft(self) -> bool:
        """True when a KRaft controller registered here (migration, 3.4+).

        ZooKeeper controllers always write -1 and KRaft epochs start at 1, so any value >= 0 comes from
        a KRaft controller (zk-layout §9.13 says "> -1"; Kafka's config write guard tests "> 0").
        """
        return self.kraft_controller_epoch is not None and self.kraft_controller_epoch >= 0


@parser
def parse_controller(path: str, data: bytes) -> ControllerInfo:
    """Parse ``/controller`` v1 or v2 (Kafka reads ``brokerid`` and, 3.4+, ``kraftControllerEpoch``)."""
    obj = load_object(data)
    return ControllerInfo(
        broker_id=req_int(obj, "brokerid"),
        timestamp_ms=opt_decimal_str(obj, "timestamp"),
        version=req_version(obj),
        kraft_controller_epoch=opt_int(obj, "kraftControllerEpoch"),
    )


@parser
def parse_controller_epoch(path: str, data: bytes) -> int:
    """Parse ``/controller_epoch``: the epoch as decimal text (Kafka: ``new String(bytes).toInt``)."""
    text = utf8_text(data)
    return java_decimal(text, "the controller epoch", INT32)


@dataclass(frozen=True, slots=True)
class ClusterId:
    """``/cluster/id`` (0.10.1+): the cluster id, a 22-character base64 UUID; ``version`` is a string."""

    version: str
    id: str


@parser
def parse_cluster_id(path: str, data: bytes) -> ClusterId:
    """Parse ``/cluster/id``; ``version`` must be a string as Kafka writes it (``"version":"1"``)."""
    obj = load_object(data)
    if "version" not in obj:
        raise missing("version")
    version = obj["version"]
    if type(version) is not str:
        raise Malformed(f'"version" is {describe(version)}, expected a string (Kafka writes "version":"1")')
    return ClusterId(version=version, id=req_str(obj, "id"))


@dataclass(frozen=True, slots=True)
class FeatureZNode:
    """``/feature`` (2.7+): the cluster's finalized feature levels.

    ``status`` is 1 (enabled, controller IBP >= 2.7-IV0) or 0 (disabled). ``features`` holds
    ``(name, min_version_level or None, max_version_level)``; v2 (IBP >= 3.3-IV0) dropped the minimum.
    """

    version: int
    status: int
    features: tuple[tuple[str, int | None, int], ...]

    @property
    def enabled(self) -> bool:
        """Whether feature versioning (KIP-584) is active."""
        return self.status == 1


@parser
def parse_feature(path: str, data: bytes) -> FeatureZNode:
    """Parse ``/feature`` with the checks of Kafka 3.9's ``FeatureZNode.decode``, in its order."""
    obj = load_object(data)
    version = req_version(obj)
    if not 1 <= version <= 2:
        raise Malformed(f"Unsupported version: {version} of feature information (Kafka reads 1 and 2)")
    status = obj.get("status")
    if status is None:
        raise Malformed("Status can not be absent in feature information")
    status = as_int(status, '"status"')
    if status not in (0, 1):
        raise Malformed(f"Malformed status: {status} found in feature information")
    features = obj.get("features")
    if features is None:
        raise Malformed("Features map can not be absent in feature information")
    parsed = tuple(_feature_level(version, name, levels) for name, levels in as_object(features, '"features"').items())
    return FeatureZNode(version=version, status=status, features=parsed)


def _feature_level(version: int, name: str, levels: object) -> tuple[str, int | None, int]:
    # Kafka decodes the map as Map[String, Map[String, Int]], so every value must be an integer.
    entry = as_object(levels, f'feature "{name}"')
    values = {key: as_int(value, f'feature "{name}" {key}') for key, value in entry.items()}
    minimum = values.get("min_version_level")
    if version == 1 and minimum is None:
        raise Malformed(f'min_version_level absent in feature "{name}"')
    if "max_version_level" not in values:
        raise Malformed(f'max_version_level absent in feature "{name}"')
    maximum = values["max_version_level"]
    if version == 1 and minimum is not None and (minimum < 1 or maximum < minimum):
        raise Malformed(
            f'feature "{name}": expected minValue >= 1, maxValue >= 1 and maxValue >= minValue, '
            f"but received minValue: {minimum}, maxValue: {maximum}"
        )
    if maximum < 1:
        raise Malformed(f'feature "{name}": expected maxValue >= 1, but received maxValue: {maximum}')
    return (name, minimum, maximum)


@dataclass(frozen=True, slots=True)
class MigrationState:
    """``/migration`` (3.4+): the KRaft controller's progress while it migrates and dual-writes metadata."""

    version: int
    kraft_controller_id: int
    kraft_controller_epoch: int
    kraft_metadata_offset: int
    kraft_metadata_epoch: int


@parser
def parse_migration(path: str, data: bytes) -> MigrationState:
    """Parse ``/migration``; like Kafka, only version 0 is accepted."""
    obj = load_object(data)
    version = req_version(obj)
    if version != 0:
        raise Malformed(f"Encountered unknown version {version} when parsing migration json")
    return MigrationState(
        version=version,
        kraft_controller_id=req_int(obj, "kraft_controller_id"),
        kraft_controller_epoch=req_int(obj, "kraft_controller_epoch"),
        kraft_metadata_offset=req_int(obj, "kraft_metadata_offset", INT64),
        kraft_metadata_epoch=req_int(obj, "kraft_metadata_epoch"),
    )


@dataclass(frozen=True, slots=True)
class ProducerIdBlock:
    """``/latest_producer_id_block`` (0.11+): the last block of producer ids handed out (ids inclusive)."""

    version: int
    broker: int
    block_start: int
    block_end: int

    @property
    def size(self) -> int:
        """How many ids the block holds (1000 in every Kafka release)."""
        return self.block_end - self.block_start + 1


@parser
def parse_producer_id_block(path: str, data: bytes) -> ProducerIdBlock:
    """Parse ``/latest_producer_id_block``; the bounds are longs written as JSON strings."""
    obj = load_object(data)
    block = ProducerIdBlock(
        version=req_version(obj),
        broker=req_int(obj, "broker"),
        block_start=java_decimal(req_str(obj, "block_start"), '"block_start"'),
        block_end=java_decimal(req_str(obj, "block_end"), '"block_end"'),
    )
    # Kafka 3.x computes the size with Math.toIntExact and fails beyond 32 bits.
    if not INT32[0] <= block.size <= INT32[1]:
        raise Malformed(f"the block size {block.size} does not fit the 32-bit integer Kafka computes")
    return block


# --- explain -----------------------------------------------------------------------------------------


def explain_controller(value: ControllerInfo) -> list[Row]:
    """Field-by-field meaning of ``/controller``."""
    if value.is_kraft:
        who = f"KRaft controller node {value.broker_id} leads; ZooKeeper brokers no longer compete (migration)"
    else:
        who = f"broker {value.broker_id} is the active controller"
    rows: list[Row] = [
        ("version", str(value.version), _controller_version(value.version)),
        ("brokerid", str(value.broker_id), who),
        ("timestamp", _opt(value.timestamp_ms), f"became controller at {format_ms(value.timestamp_ms)}"),
    ]
    epoch = value.kraft_controller_epoch
    if epoch is None:
        rows.append(("kraftControllerEpoch", "absent", "written by a ZooKeeper controller before 3.4"))
    elif epoch == -1:
        rows.append(("kraftControllerEpoch", "-1", "a ZooKeeper-mode broker is controller"))
    elif value.is_kraft:
        rows.append(("kraftControllerEpoch", str(epoch), "KRaft epoch: ZooKeeper to KRaft migration underway"))
    else:
        rows.append(("kraftControllerEpoch", str(epoch), "unexpected: Kafka writes -1 or a KRaft epoch"))
    return rows


def _controller_version(version: int) -> str:
    return {
        1: "format v1 (Kafka 0.8 to 3.3)",
        2: "format v2 (Kafka 3.4+, adds kraftControllerEpoch)",
    }.get(version, "unknown format version; Kafka reads only brokerid")


def explain_controller_epoch(value: int) -> list[Row]:
    """Meaning of ``/controller_epoch``."""
    meaning = "controller generation: +1 at every election; the znode version fences controller writes"
    if value == 0:
        meaning = "no controller has been elected since the znode was created with 0"
    elif value < 0:
        meaning = "negative: Kafka never writes this"
    return [("epoch", str(value), meaning)]


def explain_cluster_id(value: ClusterId) -> list[Row]:
    """Meaning of ``/cluster/id``."""
    well_formed = len(value.id) == 22 and all(c.isalnum() or c in "-_" for c in value.id)
    return [
        ("version", value.version, 'always the string "1"' if value.version == "1" else "unexpected version"),
        (
            "id",
            value.id,
            "cluster id shown to clients; set once by the first broker"
            if well_formed
            else "not a 22-character base64 UUID as Kafka generates",
        ),
    ]


def explain_feature(value: FeatureZNode) -> list[Row]:
    """Meaning of ``/feature``."""
    rows: list[Row] = [
        (
            "version",
            str(value.version),
            {1: "v1 (2.7 to 3.2): min and max levels", 2: "v2 (IBP >= 3.3): max only"}.get(value.version, ""),
        ),
        (
            "status",
            str(value.status),
            "enabled: finalized features are in force"
            if value.enabled
            else "disabled: controller IBP < 2.7-IV0, features ignored",
        ),
    ]
    if not value.features:
        rows.append(("features", "{}", "no finalized features"))
    for name, minimum, maximum in value.features:
        levels = f"max {maximum}" if minimum is None else f"min {minimum}, max {maximum}"
        rows.append((f"features.{name}", levels, f"finalized version level of feature {name}"))
    return rows


def explain_migration(value: MigrationState) -> list[Row]:
    """Meaning of ``/migration``."""
    return [
        ("version", str(value.version), "the only version Kafka knows"),
        (
            "kraft_controller_id",
            str(value.kraft_controller_id),
            "KRaft controller that last wrote the migration",
        ),
        ("kraft_controller_epoch", str(value.kraft_controller_epoch), "its KRaft epoch"),
        (
            "kraft_metadata_offset",
            str(value.kraft_metadata_offset),
            "last KRaft metadata log offset copied to ZooKeeper (-1: nothing migrated yet)",
        ),
        ("kraft_metadata_epoch", str(value.kraft_metadata_epoch), "epoch of that metadata log entry"),
    ]


def explain_producer_id_block(value: ProducerIdBlock) -> list[Row]:
    """Meaning of ``/latest_producer_id_block``."""
    return [
        ("version", str(value.version), "format version (always 1)"),
        ("broker", str(value.broker), f"broker {value.broker} took the latest block of producer ids"),
        ("block_start", str(value.block_start), "first producer id of that block"),
        (
            "block_end",
            str(value.block_end),
            f"last id of the block ({value.size} ids); the next block starts at {value.block_end + 1}",
        ),
    ]


def _opt(number: int | None) -> str:
    return "absent" if number is None else str(number)
