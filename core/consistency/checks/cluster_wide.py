"""Cluster-wide checks: the controller, broker registrations, unreadable znodes, leftover deletion
markers and topic configs, and notification backlogs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import DataFrame, SparkInput, finding, floor_seconds, ints, rows
from core.consistency.checks.facts import ClusterFacts, Found, located
from core.consistency.checks.text import count, ids
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes import BrokerRegistration, ControllerInfo, Unreadable
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CONFIG_CHANGES,
    CONTROLLER,
    DELETE_TOPICS,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    TOPIC_CONFIGS,
    TOPICS,
    broker_path,
    deletion_marker_path,
    topic_config_path,
)

Ints = tuple[int, ...]
Strs = tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class NoController(Evidence):
    check = "no_controller"
    registered_brokers: Ints

    def sentence(self, at: Where) -> str:
        return (
            "No active controller: /controller is missing, so nothing elects leaders, updates ISRs, reassigns or "
            f"deletes ({count(len(self.registered_brokers), 'broker')} registered)."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ControllerNotRegistered(Evidence):
    check = "controller_not_registered"
    controller: int
    registered_brokers: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"The controller is broker {at.broker}, which is not registered in /brokers/ids "
            f"(registered: {ids(self.registered_brokers)}): its session is gone or the znode is stale."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerRegistrationInvalid(Evidence):
    check = "broker_registration_invalid"
    problems: Strs
    reason: str | None = None
    version: int | None = None
    duplicate_endpoints: Strs | None = None
    shared_with: Ints | None = None

    def sentence(self, at: Where) -> str:
        return f"Broker {at.broker}'s registration is invalid: {'; '.join(self.problems)}."


@dataclass(frozen=True, slots=True, kw_only=True)
class UnreadableZnode(Evidence):
    check = "unreadable_znode"
    reason: str

    def sentence(self, at: Where) -> str:
        return f"Znode {at.path} is not in Kafka's format: {self.reason}."


@dataclass(frozen=True, slots=True, kw_only=True)
class StaleDeletionMarker(Evidence):
    check = "stale_deletion_marker"

    def sentence(self, at: Where) -> str:
        return (
            f"Topic '{at.topic}' is queued for deletion but does not exist: the controller removes this marker on its "
            "next event."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class OrphanTopicConfig(Evidence):
    check = "orphan_topic_config"

    def sentence(self, at: Where) -> str:
        return (
            f"Config of topic '{at.topic}' exists without the topic: a failed create or an interrupted delete left it."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class NotificationBacklog(Evidence):
    check = "notification_backlog"
    stale: int
    total: int
    oldest_age_s: int
    measured_from: str

    def sentence(self, at: Where) -> str:
        since = "the newest one" if self.measured_from == "newest" else "the snapshot"
        return (
            f"{self.stale} of {self.total} notifications under {at.path} are more than 15 minutes older than "
            f"{since} (oldest by {self.oldest_age_s} s): nobody consumes them."
        )


# ---- the rules ----------------------------------------------------------------------------------------


def _no_controller(c: ClusterFacts) -> Iterator[Found]:
    if c.snapshot.controller is None:
        yield NoController(registered_brokers=tuple(sorted(c.registered))), Where(CONTROLLER)


def _no_controller_spark(i: SparkInput) -> DataFrame | None:
    from pyspark.sql import functions as F

    facts = i.frames.facts
    if not facts.controller_missing:
        return None
    return rows(i.frames.one_row, finding(NoController, F.lit(None), F.lit(None), F.lit(None), F.lit(CONTROLLER),
                                          registered_brokers=ints(sorted(facts.registered))))  # fmt: skip


def _controller_not_registered(c: ClusterFacts) -> Iterator[Found]:
    controller = c.snapshot.controller
    # A KRaft controller holds /controller during a migration: not a broker, not reported.
    if isinstance(controller, ControllerInfo) and not controller.is_kraft and controller.broker_id not in c.registered:
        record = ControllerNotRegistered(
            controller=controller.broker_id, registered_brokers=tuple(sorted(c.registered))
        )
        yield record, Where(CONTROLLER, broker=controller.broker_id)


def _controller_not_registered_spark(i: SparkInput) -> DataFrame | None:
    from pyspark.sql import functions as F

    facts = i.frames.facts
    if facts.controller_missing or facts.controller_id is None or facts.controller_is_kraft:
        return None
    if facts.controller_id in facts.registered:
        return None
    cid = F.lit(facts.controller_id)
    none = F.lit(None)
    registered = ints(sorted(facts.registered))
    one = finding(
        ControllerNotRegistered, none, none, cid, F.lit(CONTROLLER), controller=cid, registered_brokers=registered
    )
    return rows(i.frames.one_row, one)


def registration_problems(reg: BrokerRegistration) -> list[str]:
    """Fields that do not match the registration's version (zk-layout §2.3)."""
    problems = []
    if reg.rack is not None and reg.version < 3:
        problems.append("rack_before_v3")
    if reg.listener_security_protocol_map is not None and reg.version < 4:
        problems.append("protocol_map_before_v4")
    if reg.listener_security_protocol_map is None and reg.version >= 4:
        problems.append("no_protocol_map")
    if reg.features is not None and reg.version < 5:
        problems.append("features_before_v5")
    if reg.features is None and reg.version >= 5:
        problems.append("no_features")
    return problems


def _registrations(c: ClusterFacts) -> Iterator[Found]:
    brokers = c.snapshot.brokers
    endpoints: dict[str, list[int]] = defaultdict(list)
    for broker_id, entry in brokers.items():
        reg = entry.registration
        if isinstance(reg, BrokerRegistration):
            for address in sorted({f"{e.host}:{e.port}" for e in reg.endpoints if e.host}):
                endpoints[address].append(broker_id)
    shared = {address: ids for address, ids in endpoints.items() if len(ids) > 1}
    for broker_id, entry in sorted(brokers.items()):
        at = Where(broker_path(broker_id), broker=broker_id)
        reg = entry.registration
        if isinstance(reg, Unreadable):
            yield BrokerRegistrationInvalid(problems=("unreadable",), reason=reg.reason), at
            continue
        problems = registration_problems(reg)
        mine = sorted(a for a, ids in shared.items() if broker_id in ids)
        others = sorted({other for a in mine for other in shared[a] if other != broker_id})
        if mine:
            problems.append("duplicate_endpoint")
        if problems:
            record = BrokerRegistrationInvalid(
                problems=tuple(problems),
                version=reg.version,
                duplicate_endpoints=tuple(mine) if mine else None,
                shared_with=tuple(others) if others else None,
            )
            yield record, at


def _registrations_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    brokers = i.frames.brokers
    endpoints = (
        brokers.where(c("readable"))
        .select("broker", F.explode(F.array_distinct("endpoints")).alias("address"))
        .where(~c("address").startswith(":"))
    )
    shared = (
        endpoints.groupBy("address").agg(F.array_sort(F.collect_set("broker")).alias("ids")).where(F.size("ids") > 1)
    )
    mine = (
        endpoints.join(shared, "address", "inner")
        .groupBy("broker")
        .agg(
            F.array_sort(F.collect_set("address")).alias("dup_addresses"),
            F.array_sort(F.array_distinct(F.flatten(F.collect_list("ids")))).alias("dup_ids"),
        )
    )
    b = brokers.join(mine, "broker", "left")
    version = c("version")
    problems = F.filter(
        F.array(
            F.when(c("rack").isNotNull() & (version < 3), F.lit("rack_before_v3")),
            F.when(c("has_protocol_map") & (version < 4), F.lit("protocol_map_before_v4")),
            F.when(~c("has_protocol_map") & (version >= 4), F.lit("no_protocol_map")),
            F.when(c("has_features") & (version < 5), F.lit("features_before_v5")),
            F.when(~c("has_features") & (version >= 5), F.lit("no_features")),
            F.when(c("dup_addresses").isNotNull(), F.lit("duplicate_endpoint")),
        ),
        lambda x: x.isNotNull(),
    )
    broker = c("broker")
    bpath = F.concat(F.lit(f"{BROKER_IDS}/"), broker.cast("string"))
    others = F.filter(F.coalesce(c("dup_ids"), ints([])), lambda x: x != broker)
    unreadable = rows(
        b.where(~c("readable")),
        finding(BrokerRegistrationInvalid, F.lit(None), F.lit(None), broker, bpath,
                problems=F.array(F.lit("unreadable")), reason=c("reason")),
    )  # fmt: skip
    invalid = rows(
        b.where(c("readable") & (F.size(problems) > 0)),
        finding(BrokerRegistrationInvalid, F.lit(None), F.lit(None), broker, bpath, problems=problems,
                version=version, duplicate_endpoints=c("dup_addresses"),
                shared_with=F.when(F.size(others) > 0, others)),
    )  # fmt: skip
    return unreadable.unionByName(invalid)


def _unreadable(c: ClusterFacts) -> Iterator[Found]:
    """Every unreadable znode once, but broker registrations (``broker_registration_invalid`` says it)."""
    s = c.snapshot
    candidates: list[object] = [
        s.cluster_id, s.controller, s.controller_epoch, s.reassignment, s.preferred_election, s.feature,
        s.migration, s.producer_id_block, *s.topic_configs.values(), *s.broker_configs.values(),
    ]  # fmt: skip
    for notes in (s.isr_change_notifications, s.log_dir_event_notifications, s.config_change_notifications):
        candidates.extend(n.value for n in notes)
    candidates.extend(entry.assignment for entry in s.topics.values())
    candidates.extend(c.unreadable_states)
    candidates.extend(s.unreadable)
    seen = {broker_path(b) for b in s.brokers}
    for value in candidates:
        if isinstance(value, Unreadable) and value.path not in seen:
            seen.add(value.path)
            topic, partition = located(value.path)
            yield UnreadableZnode(reason=value.reason), Where(value.path, topic, partition)


def _unreadable_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    path = c("path")
    state_re = r"^/brokers/topics/([^/]+)/partitions/([0-9]{1,9})/state\z"
    state = F.regexp_extract(path, state_re, 1)
    state_partition = F.regexp_extract(path, state_re, 2)
    topic_only = F.regexp_extract(path, r"^/(?:brokers/topics|config/topics|admin/delete_topics)/([^/]+)\z", 1)
    topic = F.when(state != "", state).when(topic_only != "", topic_only)
    partition = F.when(state != "", state_partition.cast("int"))
    broker_paths = [broker_path(b) for b in sorted(i.frames.facts.registered)]
    unreadable = i.frames.unreadable
    candidates = unreadable.where(~path.isin(broker_paths)) if broker_paths else unreadable
    return rows(
        candidates.dropDuplicates(["path"]),
        finding(UnreadableZnode, topic, partition, F.lit(None), path, reason=c("reason")),
    )


def _stale_markers(c: ClusterFacts) -> Iterator[Found]:
    for name in sorted(c.snapshot.deletion_markers):
        if name not in c.snapshot.topics:
            yield StaleDeletionMarker(), Where(deletion_marker_path(name), name)


def _stale_markers_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    stale = i.frames.markers.join(F.broadcast(i.frames.topics.select("topic")), "topic", "left_anti")
    return rows(stale, finding(StaleDeletionMarker, c("topic"), F.lit(None), F.lit(None),
                               F.concat(F.lit(f"{DELETE_TOPICS}/"), c("topic"))))  # fmt: skip


def _orphan_configs(c: ClusterFacts) -> Iterator[Found]:
    for name in sorted(c.snapshot.topic_configs):
        if name not in c.snapshot.topics:
            yield OrphanTopicConfig(), Where(topic_config_path(name), name)


def _orphan_configs_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    orphans = i.frames.topic_configs.select("topic").join(
        F.broadcast(i.frames.topics.select("topic")), "topic", "left_anti"
    )
    return rows(orphans, finding(OrphanTopicConfig, c("topic"), F.lit(None), F.lit(None),
                                 F.concat(F.lit(f"{TOPIC_CONFIGS}/"), c("topic"))))  # fmt: skip


def _backlogs(c: ClusterFacts) -> Iterator[Found]:
    """ISR-change and log-dir-event notifications measured from the snapshot, config changes from the newest
    one (brokers purge the old ones only when they process a newer one)."""
    s = c.snapshot
    limit = c.params.notification_max_age_ms
    for parent, notes, from_newest in (
        (ISR_CHANGE_NOTIFICATIONS, s.isr_change_notifications, False),
        (LOG_DIR_EVENT_NOTIFICATIONS, s.log_dir_event_notifications, False),
        (CONFIG_CHANGES, s.config_change_notifications, True),
    ):
        if not notes:
            continue
        reference = max(n.ctime_ms for n in notes) if from_newest else s.taken_at_ms
        stale = [n for n in notes if reference - n.ctime_ms > limit]
        if stale:
            oldest = min(n.ctime_ms for n in stale)
            record = NotificationBacklog(
                stale=len(stale),
                total=len(notes),
                oldest_age_s=(reference - oldest) // 1000,
                measured_from="newest" if from_newest else "snapshot",
            )
            yield record, Where(parent)


def _backlogs_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    grouped = i.frames.notes.groupBy("parent").agg(
        F.collect_list("ctime_ms").alias("ctimes"), F.max("ctime_ms").alias("newest"), F.count(F.lit(1)).alias("total")
    )
    from_newest = c("parent") == CONFIG_CHANGES
    reference = F.when(from_newest, c("newest")).otherwise(F.lit(i.frames.facts.taken_at_ms))
    stale = F.filter("ctimes", lambda t: reference - t > F.lit(i.params.notification_max_age_ms))
    return rows(
        grouped.where(F.size(stale) > 0),
        finding(NotificationBacklog, F.lit(None), F.lit(None), F.lit(None), c("parent"), stale=F.size(stale),
                total=c("total").cast("int"), oldest_age_s=floor_seconds(reference - F.array_min(stale)),
                measured_from=F.when(from_newest, F.lit("newest")).otherwise(F.lit("snapshot"))),
    )  # fmt: skip


NO_CONTROLLER = Check(
    CheckSpec(
        "no_controller",
        Severity.ERROR,
        Subject.CLUSTER,
        "No active controller",
        f"{CONTROLLER} is an ephemeral znode held by the active controller; without it nothing elects leaders, "
        "shrinks ISRs, reassigns or deletes.",
        "§2.1, §9.13",
    ),
    NoController,
    local={"cluster": _no_controller},
    spark={"cluster": _no_controller_spark},
)
CONTROLLER_NOT_REGISTERED = Check(
    CheckSpec(
        "controller_not_registered",
        Severity.ERROR,
        Subject.CLUSTER,
        "Controller is not a registered broker",
        f"{CONTROLLER} brokerid must be a broker in {BROKER_IDS}, unless a KRaft controller holds it during "
        "migration (kraftControllerEpoch >= 0).",
        "§2.1, §9.13",
    ),
    ControllerNotRegistered,
    local={"cluster": _controller_not_registered},
    spark={"cluster": _controller_not_registered_spark},
)
BROKER_REGISTRATION_INVALID = Check(
    CheckSpec(
        "broker_registration_invalid",
        Severity.ERROR,
        Subject.BROKER,
        "Broker registration is invalid",
        "A registration must decode as Kafka 3.9 decodes it, carry the fields of its version, map every "
        "listener to a security protocol (v4+), and no two brokers may advertise the same endpoint.",
        "§2.3, §9.14",
    ),
    BrokerRegistrationInvalid,
    local={"cluster": _registrations},
    spark={"cluster": _registrations_spark},
)
UNREADABLE_ZNODE = Check(
    CheckSpec(
        "unreadable_znode",
        Severity.ERROR,
        Subject.ZNODE,
        "Znode not in Kafka's format",
        "Kafka's readers fail on data that is not in the format it writes; the controller cannot use it.",
        "§2",
    ),
    UnreadableZnode,
    local={"cluster": _unreadable},
    spark={"unreadable": _unreadable_spark},
)
STALE_DELETION_MARKER = Check(
    CheckSpec(
        "stale_deletion_marker",
        Severity.WARNING,
        Subject.TOPIC,
        "Deletion marker for a topic that does not exist",
        "The controller removes markers of unknown topics on its next deletion event; a lingering one means "
        "no controller event since.",
        "§7.1, §9.8",
    ),
    StaleDeletionMarker,
    local={"cluster": _stale_markers},
    spark={"cluster": _stale_markers_spark},
)
ORPHAN_TOPIC_CONFIG = Check(
    CheckSpec(
        "orphan_topic_config",
        Severity.WARNING,
        Subject.TOPIC,
        "Topic config without a topic",
        f"{TOPIC_CONFIGS}/<t> is written before {TOPICS}/<t> and deleted after it, not transactionally: "
        "a failed create or an interrupted delete leaves an orphan.",
        "§5.1, §9.9",
    ),
    OrphanTopicConfig,
    local={"cluster": _orphan_configs},
    spark={"cluster": _orphan_configs_spark},
)
NOTIFICATION_BACKLOG = Check(
    CheckSpec(
        "notification_backlog",
        Severity.WARNING,
        Subject.ZNODE,
        "Notifications nobody consumes",
        "The controller deletes ISR-change and log-dir-event notifications once processed, and brokers purge "
        "config changes older than 15 minutes when they process a newer one; older entries mean the "
        "controller is absent or stuck, or brokers are not consuming them.",
        "§2.9, §2.10, §9.11",
    ),
    NotificationBacklog,
    local={"cluster": _backlogs},
    spark={"notifications": _backlogs_spark},
)
