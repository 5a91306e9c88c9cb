"""Consumer groups on a live cluster: list and describe with lag, plan and apply offset resets.

``GroupOps`` reads Kafka-stored groups through the AdminClient (``core.brokers.group_admin``: ListGroups,
DescribeGroups, OffsetFetch, ListOffsets) and ZooKeeper-stored groups from ``/consumers``
(``core.groups.legacy``); both become ``GroupLag`` through the same ``core.groups.lag`` rows, with the end
offsets of every partition asked in one ListOffsets. Without ``--bootstrap-server`` only ZooKeeper-stored
groups are listed, their lag unknown, and the notes say what needs the brokers.

``GroupOps.apply`` is the one plan -> audit -> apply sequence for resets: it refuses in read-only mode,
re-reads the group's state right before the write (Kafka's rule: no active members), writes the audit
intent line with the committed offsets as they were, commits, and records the outcome.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from core.audit import Attempt, AuditLog
from core.brokers.group_admin import GroupAdmin, GroupDescription
from core.config import ConnectionSettings, cluster_name, read_only_cause
from core.errors import ConnectError, KzcError, ReadOnlyError, UsageError
from core.groups.lag import KAFKA, ZOOKEEPER, GroupLag, Member, group_rows
from core.groups.legacy import LegacyGroup, list_legacy_groups, read_legacy_groups
from core.groups.reset import (
    ResetPlan,
    ResetRequest,
    check_resettable,
    parse_datetime,
    parse_topic_args,
    plan_reset,
)
from core.kafka.topic_partition import TopicPartition
from core.zookeeper.kafka_root import open_kafka_session, read_cluster_id
from core.zookeeper.session import ZkSession

NEEDS_BROKERS = "the end offsets (and Kafka-stored groups) need --bootstrap-server"


@dataclass(frozen=True)
class GroupsOverview:
    """Every group kzc could read, sorted by lag (unknown first, then largest), and what is missing."""

    groups: tuple[GroupLag, ...]
    notes: tuple[str, ...] = ()
    unlisted: str | None = None  # why some groups may be missing (a broker did not list its groups)

    def to_json(self) -> dict[str, Any]:
        """``kzc groups --json``: ``{"groups": [...], "notes": [...]}``."""
        return {"groups": [g.summary_json() for g in self.groups], "notes": list(self.notes)}


@dataclass(frozen=True)
class ResetResult:
    """A reset applied: the plan and the committed offsets read back after the write."""

    plan: ResetPlan
    committed: dict[TopicPartition, int | None]

    def to_json(self) -> dict[str, Any]:
        """The plan with ``"applied": true`` and the offsets read back."""
        return {
            **self.plan.to_json(),
            "applied": True,
            "committed_after": [
                {"topic": t, "partition": p, "offset": o} for (t, p), o in sorted(self.committed.items())
            ],
        }


def lag_order(group: GroupLag) -> tuple[int, int, str]:
    """Sort key of the groups list: unknown lag first (it may be the worst), then largest lag, then name."""
    if group.lag is None and (group.error or group.lag_total.unknown):
        return (0, 0, group.group)
    return (1, -(group.lag or 0), group.group)


class GroupOps:
    """Read and reset the consumer groups of one cluster.

    Args:
        admin: the brokers' AdminClient, or None (only ZooKeeper-stored groups are then readable).
        session: a started ``ZkSession`` for ZooKeeper-stored groups, or None.
        settings: read-only mode and the cluster's name for the audit log.
        audit: where reset attempts are recorded (the default audit file when None).
    """

    def __init__(
        self,
        admin: GroupAdmin | None,
        session: ZkSession | None,
        settings: ConnectionSettings,
        audit: AuditLog | None = None,
    ) -> None:
        self.admin = admin
        self.session = session
        self.settings = settings
        self.audit = audit or AuditLog(cluster_name(settings))

    # ---- reading ------------------------------------------------------------------------------------

    def overview(self) -> GroupsOverview:
        """Every group with its lag: Kafka-stored ones (with brokers) and ZooKeeper-stored ones.

        ZooKeeper and the brokers are read in parallel, and so are the groups' descriptions and committed
        offsets; each AdminClient call is bounded by the admin's timeout. A broker that did not list its
        groups leaves them out (``unlisted`` and the notes say which error), the others are still read.

        Raises:
            ConnectError: neither the brokers nor ZooKeeper could be read.
        """
        notes: list[str] = []
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="kzc-groups") as pool:
            legacy_read = pool.submit(self._legacy_all)
            listing = self.admin.list_consumer_groups() if self.admin is not None else None
            legacy = legacy_read.result()
        if listing is None:
            if legacy:
                notes.append(f"ZooKeeper-stored groups only: {NEEDS_BROKERS}")
            else:
                notes.append("no ZooKeeper-stored groups; Kafka-stored groups need --bootstrap-server")
            groups = [self._legacy_lag(g, None) for g in legacy]
            return GroupsOverview(tuple(sorted(groups, key=lag_order)), tuple(notes))
        unlisted = None
        if listing.problems:
            unlisted = "not listed: " + "; ".join(listing.problems[:3])
            notes.append(f"some brokers did not list their consumer groups ({'; '.join(listing.problems[:3])})")
        groups = self._kafka_groups(sorted(g.group_id for g in listing.groups), legacy)
        return GroupsOverview(tuple(sorted(groups, key=lag_order)), tuple(notes), unlisted)

    def committed_lag(self, read_ends: Callable[[], Mapping[TopicPartition, int | str]]) -> GroupsOverview:
        """Every group's committed offsets against the end offsets ``read_ends`` gives (the caller's read, e.g. the
        high watermarks of ``kzc record``'s traffic tick): ListGroups on every broker and one OffsetFetch per group
        (with brokers), ``/consumers`` (with ZooKeeper); no DescribeGroups and no ListOffsets, so the groups carry
        no members and their state is the listing's. A partition missing from the ends is unknown, never 0.

        ``read_ends`` is called once, after every committed offset is read, the order kafka-consumer-groups reads
        them in: an offset committed between the two reads is then never ahead of its end offset (a negative lag).

        Raises:
            ConnectError: neither the brokers nor ZooKeeper could be read.
        """
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kzc-groups") as pool:
            legacy_read = pool.submit(self._legacy_all)
            listing = self.admin.list_consumer_groups() if self.admin is not None else None
            legacy = legacy_read.result()
        states = {g.group_id: g.state for g in listing.groups} if listing is not None else {}
        ids = sorted(states)
        committed = self.admin.list_consumer_group_offsets(ids) if ids and self.admin is not None else {}
        ends = read_ends()
        groups = [self._legacy_lag(old, ends) for old in legacy]
        unlisted = "not listed: " + "; ".join(listing.problems[:3]) if listing and listing.problems else None
        for group in ids:
            offsets = committed.get(group)
            error = None if isinstance(offsets, dict) else f"committed offsets not read: {offsets or 'no answer'}"
            rows = group_rows([], offsets if isinstance(offsets, dict) else None, ends, error)
            groups.append(GroupLag(group, KAFKA, states[group], (), rows, error=error))
        return GroupsOverview(tuple(sorted(groups, key=lag_order)), (), unlisted)

    def _legacy_all(self) -> list[LegacyGroup]:
        if self.session is None:
            return []
        return read_legacy_groups(self.session, list_legacy_groups(self.session))

    def describe(self, group: str) -> GroupLag:
        """One group with its partitions (Kafka-stored first; else ZooKeeper-stored).

        Raises:
            UsageError: the group exists neither on the brokers nor under ``/consumers`` (exit 2).
            ConnectError: the brokers or ZooKeeper did not answer.
        """
        legacy = read_legacy_groups(self.session, [group]) if self.session is not None else []
        if self.admin is not None:
            found = self._kafka_groups([group], legacy)
            kafka = found[0]
            # DescribeGroups answers Dead for a group the coordinator does not know.
            if kafka.state != "Dead" or kafka.partitions or kafka.error:
                return kafka
            if legacy:
                return found[1]
            raise UsageError(f"Consumer group '{group}' does not exist.")
        if legacy:
            return self._legacy_lag(legacy[0], None)
        raise UsageError(
            f"no ZooKeeper-stored group '{group}' under /consumers; Kafka-stored groups need --bootstrap-server"
        )

    def _kafka_groups(self, ids: Sequence[str], legacy: Sequence[LegacyGroup]) -> list[GroupLag]:
        admin = self.admin
        assert admin is not None
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kzc-groups") as pool:
            offsets_read = pool.submit(admin.list_consumer_group_offsets, ids) if ids else None
            described = admin.describe_consumer_groups(ids)
            committed = offsets_read.result() if offsets_read is not None else {}
        wanted: set[TopicPartition] = set()
        for group in ids:
            offsets = committed.get(group)
            if isinstance(offsets, dict):
                wanted.update(offsets)
            description = described.get(group)
            if isinstance(description, GroupDescription):
                for member in description.members:
                    wanted.update(member.assignment)
        for old in legacy:
            wanted.update(old.offsets)
            wanted.update(old.owners)
        ends = self._ends(wanted)
        groups = [self._kafka_lag(g, described.get(g), committed.get(g), ends) for g in ids]
        groups += [self._legacy_lag(old, ends) for old in legacy]
        return groups

    def _ends(self, partitions: set[TopicPartition]) -> dict[TopicPartition, int | str]:
        """Each partition's end offset, or why it is unknown; one ListOffsets for all of them."""
        if not partitions or self.admin is None:
            return {}
        try:
            found = self.admin.list_offsets(sorted(partitions), "latest")
        except ConnectError as exc:
            return {key: f"the brokers did not answer: {exc}" for key in partitions}
        return {
            key: value if isinstance(value, int) and value >= 0 else f"no end offset from the leader: {value}"
            for key, value in found.items()
        }

    def _kafka_lag(
        self,
        group: str,
        description: GroupDescription | KzcError | None,
        committed: dict[TopicPartition, int | None] | KzcError | None,
        ends: dict[TopicPartition, int | str],
    ) -> GroupLag:
        error = None
        if isinstance(committed, KzcError) or committed is None:
            error = f"committed offsets not read: {committed or 'no answer'}"
            committed = None
        if not isinstance(description, GroupDescription):
            reason = f"not described: {description or 'no answer'}"
            rows = group_rows([], committed, ends, error)
            return GroupLag(group, KAFKA, "Unknown", (), rows, error="; ".join(filter(None, [reason, error])))
        members = tuple(Member(m.member_id, m.client_id, m.host, len(m.assignment)) for m in description.members)
        assigned = [(member, m.assignment) for member, m in zip(members, description.members, strict=True)]
        rows = group_rows(assigned, committed, ends, error)
        return GroupLag(
            group, KAFKA, description.state, members, rows, description.protocol, description.coordinator, error
        )

    def _legacy_lag(self, old: LegacyGroup, ends: Mapping[TopicPartition, int | str] | None) -> GroupLag:
        members = tuple(
            Member(c, "", "", sum(1 for key in old.owners if old.owner_of(key) == c)) for c in old.consumers
        )
        by_id = {m.member_id: m for m in members}
        owned: dict[str, list[TopicPartition]] = {}
        for key in old.owners:
            owner = old.owner_of(key)
            if owner in by_id:
                owned.setdefault(owner, []).append(key)
        assigned = [(by_id[c], keys) for c, keys in owned.items()]
        if ends is None:
            missing: dict[TopicPartition, int | str] = {}
            rows = group_rows(assigned, old.offsets, missing, f"no end offset: {NEEDS_BROKERS}")
        else:
            rows = group_rows(assigned, old.offsets, ends)
        state = "Active" if old.consumers else "Empty"
        notes = tuple(f"unreadable: {p}" for p in old.problems)
        return GroupLag(old.group, ZOOKEEPER, state, members, rows, notes=notes)

    # ---- resets -------------------------------------------------------------------------------------

    def plan_reset(self, request: ResetRequest) -> ResetPlan:
        """The offsets the reset would commit, with Kafka's rules; nothing is written.

        Raises:
            UsageError: bad ``--topic`` or value; no brokers; a ZooKeeper-stored group.
            KafkaRuleError: the group has active members (Kafka's message), an unknown topic.
            ConnectError: the brokers did not answer.
        """
        whole, explicit = parse_topic_args(request.topics)
        if not whole and not explicit:
            raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
        timestamp = parse_datetime(request.value or "") if request.scenario == "to-datetime" else None
        admin = self._admin_for("resetting offsets")
        description = admin.describe_consumer_groups([request.group])[request.group]
        if isinstance(description, KzcError):
            raise description
        if (
            description.state == "Dead"
            and self.session is not None
            and read_legacy_groups(self.session, [request.group])
        ):
            raise UsageError(
                f"'{request.group}' is a ZooKeeper-stored group (/consumers/{request.group}): kzc resets only "
                "Kafka-stored groups, as kafka-consumer-groups does since Kafka 2.0"
            )
        partitions = list(explicit)
        for topic in whole:
            partitions += [(topic, p) for p in admin.topic_partitions(topic)]
        partitions = list(dict.fromkeys(partitions))
        committed_all = admin.list_consumer_group_offsets([request.group])[request.group]
        if isinstance(committed_all, KzcError):
            raise committed_all
        committed = {key: committed_all.get(key) for key in partitions}
        starts = admin.list_offsets(partitions, "earliest")
        ends = admin.list_offsets(partitions, "latest")
        by_time = admin.list_offsets(partitions, timestamp) if timestamp is not None else None
        return plan_reset(
            request, description.state, partitions, committed, starts, ends, by_time, blocked=self.blocked()
        )

    def blocked(self) -> str | None:
        """Why no reset may be applied now (read-only mode), or None."""
        cause = read_only_cause(self.settings)
        return None if cause is None else f"kzc is read-only ({cause}): resetting offsets is refused"

    def apply(self, plan: ResetPlan, attempt: Attempt | None = None) -> ResetResult:
        """Commit the planned offsets, audited: intent line (offsets as they were), write, outcome line.

        Raises:
            ReadOnlyError: read-only mode.
            KafkaRuleError: the group became active since the plan (Kafka's message), or the coordinator
                refused.
            KzcError: the write failed.
        """
        if attempt is None:
            with self.audit.attempt("group reset", plan.request.to_json()) as own:
                return self.apply(plan, own)
        if (reason := self.blocked()) is not None:
            raise ReadOnlyError(reason)
        admin = self._admin_for("resetting offsets")
        description = admin.describe_consumer_groups([plan.group])[plan.group]
        if isinstance(description, KzcError):
            raise description
        check_resettable(plan.group, description.state)
        before = admin.list_consumer_group_offsets([plan.group])[plan.group]
        before_json = (
            [
                {"topic": t, "partition": p, "offset": o}
                for (t, p), o in sorted(before.items())
                if (t, p) in plan.offsets
            ]
            if isinstance(before, dict)
            else str(before)
        )
        attempt.intent(
            f"committing {len(plan.rows)} offset(s) for group {plan.group}",
            plan=_plan_summary(plan),
            before=before_json,
        )
        admin.alter_consumer_group_offsets(plan.group, plan.offsets)
        after = admin.list_consumer_group_offsets([plan.group])[plan.group]
        committed = {k: v for k, v in after.items() if k in plan.offsets} if isinstance(after, dict) else {}
        result = ResetResult(plan, committed)
        attempt.applied(f"reset {len(plan.rows)} offset(s) of group {plan.group}", **_plan_summary(plan))
        return result

    def _admin_for(self, what: str) -> GroupAdmin:
        if self.admin is None:
            raise UsageError(f"{what} needs the brokers: give --bootstrap-server")
        return self.admin


def _plan_summary(plan: ResetPlan) -> dict[str, Any]:
    data = plan.to_json()
    data.pop("blocked", None)
    return data


@contextmanager
def open_group_ops(
    settings: ConnectionSettings, timeout: float = 15.0, audit: AuditLog | None = None
) -> Iterator[GroupOps]:
    """A ``GroupOps`` with an AdminClient (when bootstrap servers are set) and a ZooKeeper session (when a
    connect string is set).

    Raises:
        UsageError: neither ``--zookeeper`` nor ``--bootstrap-server``.
        ConnectError: ZooKeeper or the brokers unreachable.
    """
    if not settings.zookeeper and not settings.bootstrap_servers:
        raise UsageError("give --bootstrap-server (Kafka-stored groups) and/or --zookeeper (ZooKeeper-stored groups)")
    admin = (
        GroupAdmin(settings.bootstrap_servers, security=settings.kafka_security, timeout=timeout)
        if settings.bootstrap_servers
        else None
    )
    if admin is not None:
        admin.check_reachable()
    with ExitStack() as stack:
        session = stack.enter_context(open_kafka_session(settings)) if settings.zookeeper else None
        if session is not None and audit is not None:
            audit.cluster_id = read_cluster_id(session)
        yield GroupOps(admin, session, settings, audit)
