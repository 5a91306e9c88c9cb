"""The consumer-group requests ``core.groups`` reads lag and resets offsets with: ListGroups, DescribeGroups,
ListOffsets and OffsetCommit through the AdminClient, OffsetFetch as kzc's own (``core.brokers.offset_fetch``).

``GroupAdmin`` extends ``KafkaAdmin`` (same client, timeouts and error mapping), as ``core.brokers.changes``
does for config changes and elections.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from confluent_kafka import KafkaError, KafkaException

from core.brokers.admin import WEDGED, KafkaAdmin
from core.brokers.offset_fetch import committed_offsets
from core.errors import KzcError
from core.kafka.topic_partition import TopicPartition

# Kafka's names of the consumer group states (ConsumerGroupState.toString), by confluent-kafka's enum name.
_GROUP_STATES = {
    "STABLE": "Stable",
    "EMPTY": "Empty",
    "DEAD": "Dead",
    "PREPARING_REBALANCING": "PreparingRebalance",
    "COMPLETING_REBALANCING": "CompletingRebalance",
    "UNKNOWN": "Unknown",
}


@dataclass(frozen=True, slots=True)
class GroupListing:
    """One consumer group as ListGroups returns it (``state``: Kafka's name, e.g. ``Stable``)."""

    group_id: str
    state: str
    simple: bool


@dataclass(frozen=True, slots=True)
class GroupListings:
    """What ListGroups returned: the groups listed, and each broker's error (its groups are then missing)."""

    groups: tuple[GroupListing, ...]
    problems: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GroupMember:
    """A member of a consumer group and the partitions assigned to it."""

    member_id: str
    client_id: str
    host: str
    instance_id: str | None
    assignment: tuple[TopicPartition, ...]


@dataclass(frozen=True, slots=True)
class GroupDescription:
    """A consumer group as DescribeGroups returns it (``protocol``: the partition assignor)."""

    group_id: str
    state: str
    protocol: str
    coordinator: int | None
    members: tuple[GroupMember, ...]
    simple: bool


class GroupAdmin(KafkaAdmin):
    """``KafkaAdmin`` plus the consumer groups' requests and the partitions' offsets."""

    def list_consumer_groups(self) -> GroupListings:
        """Every consumer group the brokers listed (ListGroups on every broker), and what the others said.

        A broker that did not answer leaves out the groups it coordinates: ``problems`` says so, the groups
        the other brokers listed are still there.

        Raises:
            ConnectError: no broker answered within the timeout (or every one that did answered an error).
        """
        future = self._call(
            "list consumer groups", lambda: self._client.list_consumer_groups(request_timeout=self.timeout)
        )
        result = self._result(future, "list consumer groups")
        errors = [e.args[0] if isinstance(e, KafkaException) and e.args else e for e in result.errors]
        if any(isinstance(e, KafkaError) and e.code() in WEDGED for e in errors):
            self._wedged("a broker did not answer ListGroups")
        if errors and not result.valid:
            raise self._error(errors[0], "list consumer groups")
        groups = tuple(
            GroupListing(g.group_id, _state_name(g.state), bool(g.is_simple_consumer_group)) for g in result.valid
        )
        return GroupListings(groups, tuple(str(e) for e in errors))

    def describe_consumer_groups(self, group_ids: Sequence[str]) -> dict[str, GroupDescription | KzcError]:
        """Each group's state, protocol, coordinator and members, or the error that group's coordinator gave.

        Raises:
            ConnectError: the request could not be sent at all.
        """
        if not group_ids:
            return {}
        ids = list(group_ids)
        futures = self._call(
            "describe consumer groups",
            lambda: self._client.describe_consumer_groups(ids, request_timeout=self.timeout),
        )
        described: dict[str, GroupDescription | KzcError] = {}
        for group in ids:
            try:
                found = self._result(futures[group], f"describe consumer group {group}")
            except KzcError as exc:
                described[group] = exc
                continue
            members = tuple(
                GroupMember(
                    m.member_id,
                    m.client_id,
                    m.host,
                    m.group_instance_id,
                    tuple((tp.topic, tp.partition) for tp in (m.assignment.topic_partitions if m.assignment else [])),
                )
                for m in found.members
            )
            coordinator = found.coordinator.id if found.coordinator is not None else None
            described[group] = GroupDescription(
                group, _state_name(found.state), found.partition_assignor or "", coordinator, members,
                bool(found.is_simple_consumer_group),
            )  # fmt: skip
        return described

    def list_consumer_group_offsets(
        self, group_ids: Sequence[str]
    ) -> dict[str, dict[TopicPartition, int | None] | KzcError]:
        """Each group's committed offsets (``None``: no committed offset), or the error its coordinator gave.

        kzc's own FindCoordinator and OffsetFetch (``core.brokers.offset_fetch``), not librdkafka's, which dies of
        SIGSEGV when a group's coordinator moves (a broker outage); one connection per coordinator.

        Raises:
            ConnectError: no bootstrap server answered.
        """
        if not group_ids:
            return {}
        return committed_offsets(self.servers, self.security, self.timeout, group_ids)

    def list_offsets(
        self, partitions: Iterable[TopicPartition], spec: str | int
    ) -> dict[TopicPartition, int | KzcError]:
        """ListOffsets for ``partitions``: ``spec`` is ``earliest``, ``latest`` (the high watermark) or a
        timestamp in epoch ms (the first offset at or after it; ``-1`` when there is none).

        A partition whose leader did not answer maps to its error, never to an offset.

        Raises:
            ConnectError: the request could not be sent at all.
        """
        from confluent_kafka import TopicPartition as ClientTopicPartition
        from confluent_kafka.admin._listoffsets import OffsetSpec

        keys = list(dict.fromkeys(partitions))
        if not keys:
            return {}
        if spec == "earliest":
            offset_spec = OffsetSpec.earliest()  # type: ignore[no-untyped-call]
        elif spec == "latest":
            offset_spec = OffsetSpec.latest()  # type: ignore[no-untyped-call]
        else:
            offset_spec = OffsetSpec.for_timestamp(int(spec))
        request = {ClientTopicPartition(t, p): offset_spec for t, p in keys}
        futures = self._call("list offsets", lambda: self._client.list_offsets(request, request_timeout=self.timeout))
        found: dict[TopicPartition, int | KzcError] = {}
        for tp, future in futures.items():
            key = (tp.topic, tp.partition)
            try:
                found[key] = int(self._result(future, f"list the offsets of {tp.topic}-{tp.partition}").offset)
            except KzcError as exc:
                found[key] = exc
        return found

    def alter_consumer_group_offsets(self, group_id: str, offsets: Mapping[TopicPartition, int]) -> None:
        """Commit ``offsets`` for ``group_id`` (OffsetCommit through the group coordinator).

        Raises:
            KafkaRuleError: the coordinator refused (the group has active members, unknown topic...).
            ConnectError: no broker answered within the timeout.
        """
        from confluent_kafka import ConsumerGroupTopicPartitions
        from confluent_kafka import TopicPartition as ClientTopicPartition

        request = ConsumerGroupTopicPartitions(
            group_id, [ClientTopicPartition(t, p, o) for (t, p), o in offsets.items()]
        )
        futures = self._call(
            "alter consumer group offsets",
            lambda: self._client.alter_consumer_group_offsets([request], request_timeout=self.timeout),
        )
        result = self._result(futures[group_id], f"commit the offsets of group {group_id}")
        failed = [tp for tp in result.topic_partitions or [] if tp.error is not None]
        if failed:
            raise KzcError(
                f"the coordinator of group {group_id} refused some offsets: "
                + "; ".join(f"{tp.topic}-{tp.partition}: {tp.error.str()}" for tp in failed[:5])
            )


def _state_name(state: object) -> str:
    """Kafka's name of a consumer group state (``Stable``...), from confluent-kafka's enum."""
    name = getattr(state, "name", None)
    return _GROUP_STATES.get(str(name), str(name).title() if name else "Unknown")
