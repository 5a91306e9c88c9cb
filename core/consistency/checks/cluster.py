"""Cluster-wide checks: the controller, broker registrations, unreadable znodes, leftover deletion
markers and topic configs, and notification backlogs."""

from __future__ import annotations

from dataclasses import dataclass

from core.consistency.checks.text import count, ids
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

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


NO_CONTROLLER = Check(
    CheckSpec(
        "no_controller",
        Severity.ERROR,
        Subject.CLUSTER,
        "No active controller",
        "/controller is an ephemeral znode held by the active controller; without it nothing elects leaders, "
        "shrinks ISRs, reassigns or deletes.",
        "§2.1, §9.13",
    ),
    NoController,
    "cluster",
    ("cluster",),
)
CONTROLLER_NOT_REGISTERED = Check(
    CheckSpec(
        "controller_not_registered",
        Severity.ERROR,
        Subject.CLUSTER,
        "Controller is not a registered broker",
        "/controller brokerid must be a broker in /brokers/ids, unless a KRaft controller holds it during "
        "migration (kraftControllerEpoch >= 0).",
        "§2.1, §9.13",
    ),
    ControllerNotRegistered,
    "cluster",
    ("cluster",),
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
    "cluster",
    ("cluster",),
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
    "cluster",
    ("unreadable",),
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
    "cluster",
    ("cluster",),
)
ORPHAN_TOPIC_CONFIG = Check(
    CheckSpec(
        "orphan_topic_config",
        Severity.WARNING,
        Subject.TOPIC,
        "Topic config without a topic",
        "/config/topics/<t> is written before /brokers/topics/<t> and deleted after it, not transactionally: "
        "a failed create or an interrupted delete leaves an orphan.",
        "§5.1, §9.9",
    ),
    OrphanTopicConfig,
    "cluster",
    ("cluster",),
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
    "cluster",
    ("notifications",),
)
