"""Is it safe to stop these brokers? What the controller would make of every partition if they stopped now,
and the health of each partition then, by the one derivation (``core.snapshot.health.partition_health``)
applied to the cluster minus those brokers. Pure: a snapshot in, a prediction out.

What the ZooKeeper-mode controller does when a broker dies (``KafkaController.onBrokerFailure`` ->
``onReplicasBecomeOffline``), and so what this predicts, partition by partition:

- **Its leader stopped**: the partition goes offline and the controller elects a new leader at once
  (``OfflinePartitionLeaderElectionStrategy``): the first replica *in assignment order* that is alive and in
  the ISR; the new ISR is the old one without the stopped brokers. No such replica: it stays offline (no
  leader, ``-1``; unclean election is off by default since 0.11 and kzc never assumes it), and the
  controller keeps the last ISR member (``removeReplicasFromIsr`` never empties an ISR), so ZooKeeper then
  holds one of the stopped in-sync replicas (with several stopped, which one depends on the order the
  controller handles them: ``isr_exact`` is False then).
- **A follower in the ISR stopped**: the ISR loses it (the controller at once; when the stopped broker was
  the controller, its successor leaves that to the leader, after ``replica.lag.time.max.ms``).
- **A follower out of the ISR stopped**: nothing changes.

A controlled shutdown (SIGTERM) moves leaders first with the same choice (``ControlledShutdownLeaderElection``,
the first live in-sync replica in assignment order that is not shutting down), so the prediction holds for
it too, except that a partition whose only in-sync replica is stopping keeps its leader until the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from core.kafka.znodes import PartitionState, TopicAssignment, Unreadable
from core.snapshot.health import MinIsrResolver, PartitionHealth, live_leader, partition_health
from core.snapshot.model import ClusterSnapshot, StaticMinIsr


@dataclass(frozen=True, slots=True)
class PartitionChange:
    """One partition the stop would touch: its state now and as predicted, and its health both times."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    leader_before: int | None  # the live leader now (None: offline already)
    isr_before: tuple[int, ...]
    leader_after: int | None  # None: offline after the stop
    isr_after: tuple[int, ...]
    isr_exact: bool  # False: offline with several stopped in-sync replicas, ZooKeeper keeps one of them
    live_after: tuple[int, ...]  # its replicas still registered after the stop
    before: PartitionHealth
    after: PartitionHealth

    @property
    def goes_offline(self) -> bool:
        """Led now, without a leader after the stop: no in-sync replica would be left alive."""
        return self.before.offline is None and self.after.offline is not None

    @property
    def loses_last_in_sync_copy(self) -> bool:
        """Every in-sync copy would be on a stopped broker: only an unclean election (which loses the writes
        those copies hold) could bring it back before they return. True exactly when it goes offline."""
        return self.goes_offline

    @property
    def live_out_of_sync(self) -> tuple[int, ...]:
        """Replicas that stay alive but are out of the ISR (what an unclean election would pick from)."""
        return tuple(r for r in self.live_after if r not in self.isr_before)

    @property
    def falls_under_min_isr(self) -> bool | None:
        """Still led, but its ISR would be smaller than ``min.insync.replicas``: ``acks=all`` producers fail
        (None: the value is unknown)."""
        if self.after.offline is not None:
            return False
        if self.after.under_min_isr is None:
            return None
        return bool(self.after.under_min_isr) and not self.before.under_min_isr

    @property
    def leader_moves(self) -> bool:
        """Its leader is stopped and another replica takes over."""
        return self.leader_before is not None and self.leader_after not in (None, self.leader_before)

    @property
    def single_in_sync_copy(self) -> bool:
        """Still led, but by its only in-sync replica: one more failure takes it offline."""
        return self.after.offline is None and len(self.isr_after) == 1 and len(self.isr_before) > 1


@dataclass(frozen=True)
class StopCheck:
    """The prediction for stopping ``brokers``: every partition the stop touches, and the lists operators
    ask for."""

    brokers: tuple[int, ...]
    unknown_brokers: tuple[int, ...]  # asked for, but not registered now (already stopped?)
    changes: tuple[PartitionChange, ...]
    unreadable_topics: tuple[str, ...]  # assignments kzc could not read: not predicted

    @property
    def offline(self) -> tuple[PartitionChange, ...]:
        """Partitions that would go offline (they lose their last in-sync copy)."""
        return tuple(c for c in self.changes if c.goes_offline)

    @property
    def under_min_isr(self) -> tuple[PartitionChange, ...]:
        """Partitions still led but under ``min.insync.replicas``: ``acks=all`` fails."""
        return tuple(c for c in self.changes if c.falls_under_min_isr)

    @property
    def min_isr_unknown(self) -> tuple[PartitionChange, ...]:
        """Partitions whose ISR shrinks where ``min.insync.replicas`` is unknown (no ``--bootstrap-server``)."""
        return tuple(c for c in self.changes if c.falls_under_min_isr is None)

    @property
    def leader_moves(self) -> tuple[PartitionChange, ...]:
        """Partitions whose leader is stopped and another replica takes over."""
        return tuple(c for c in self.changes if c.leader_moves)

    @property
    def single_copy(self) -> tuple[PartitionChange, ...]:
        """Partitions left with one in-sync replica."""
        return tuple(c for c in self.changes if c.single_in_sync_copy)

    @property
    def safe(self) -> bool:
        """Nothing goes offline and no ``acks=all`` producer fails (unknown counts as unsafe)."""
        return not self.offline and not self.under_min_isr and not self.min_isr_unknown

    def to_json(self) -> dict[str, Any]:
        """What ``kzc broker stop-check --json`` prints: the lists as ``TOPIC-PARTITION`` names, and every
        touched partition."""

        def names(changes: tuple[PartitionChange, ...]) -> list[str]:
            return [f"{c.topic}-{c.partition}" for c in changes]

        return {
            "brokers": list(self.brokers),
            "unknown_brokers": list(self.unknown_brokers),
            "safe": self.safe,
            "offline": names(self.offline),
            "under_min_isr": names(self.under_min_isr),
            "min_isr_unknown": names(self.min_isr_unknown),
            "leader_moves": {f"{c.topic}-{c.partition}": [c.leader_before, c.leader_after] for c in self.leader_moves},
            "single_copy": names(self.single_copy),
            "unreadable_topics": list(self.unreadable_topics),
            "changes": [
                {
                    "topic": c.topic,
                    "partition": c.partition,
                    "replicas": list(c.replicas),
                    "leader_before": c.leader_before,
                    "isr_before": list(c.isr_before),
                    "leader_after": c.leader_after,
                    "isr_after": list(c.isr_after),
                    "isr_exact": c.isr_exact,
                    "offline_after": c.after.offline,
                    "under_min_isr_after": c.after.under_min_isr,
                    "acks_all_after": c.after.acks_all_text,
                    "min_insync_replicas": c.after.min_isr.value,
                    "min_insync_replicas_source": c.after.min_isr.source,
                }
                for c in self.changes
            ],
        }


def predict_state(
    replicas: tuple[int, ...], state: PartitionState, stopped: frozenset[int], live: frozenset[int]
) -> tuple[PartitionState, bool]:
    """The partition state the controller writes once ``stopped`` brokers are gone (see the module docstring),
    and whether its ISR is exact. ``live``: the brokers still registered after the stop."""
    isr = state.isr
    if not any(r in stopped for r in isr) and state.leader not in stopped:
        return state, True
    leader = state.leader
    if leader in stopped or leader not in live:
        candidates = [r for r in replicas if r in live and r in isr]
        if candidates:
            return replace(state, leader=candidates[0], isr=tuple(r for r in isr if r in live)), True
        kept = tuple(r for r in isr if r in stopped)
        # The controller never empties an ISR: the last member it handles stays (leader -1).
        return replace(state, leader=-1, isr=kept[-1:] or isr), len(kept) <= 1
    return replace(state, isr=tuple(r for r in isr if r in live) or isr), True


def stop_check(snapshot: ClusterSnapshot, brokers: Iterable[int], static: StaticMinIsr | None = None) -> StopCheck:
    """What stopping ``brokers`` now would do to every partition (pure; see the module docstring)."""
    stopped = frozenset(brokers)
    live_now = snapshot.live_broker_ids()
    live_after = live_now - stopped
    resolver = MinIsrResolver(snapshot, static)
    changes: list[PartitionChange] = []
    unreadable: list[str] = []
    for entry in snapshot.topics.values():
        assignment = entry.assignment
        if not isinstance(assignment, TopicAssignment):
            unreadable.append(entry.name)
            continue
        for partition, replicas in assignment.partitions:
            if not any(r in stopped for r in replicas):
                continue
            state = entry.states.get(partition)
            adding = assignment.adding_replicas(partition)
            before = partition_health(
                replicas, adding, state, live_now, resolver.resolve(entry.config, live_leader(state, live_now))
            )
            if not isinstance(state, PartitionState) or isinstance(state, Unreadable):
                continue  # no state to predict from: offline already, and said so by the health rules
            after_state, exact = predict_state(replicas, state, stopped, live_after)
            if after_state == state:
                continue
            leader_after = live_leader(after_state, live_after)
            after = partition_health(
                replicas, adding, after_state, live_after, resolver.resolve(entry.config, leader_after)
            )
            changes.append(
                PartitionChange(
                    entry.name, partition, replicas, live_leader(state, live_now), state.isr, leader_after,
                    after_state.isr, exact, tuple(r for r in replicas if r in live_after), before, after,
                )
            )  # fmt: skip
    changes.sort(key=lambda c: (c.topic, c.partition))
    return StopCheck(
        brokers=tuple(sorted(stopped)),
        unknown_brokers=tuple(sorted(stopped - live_now)),
        changes=tuple(changes),
        unreadable_topics=tuple(sorted(unreadable)),
    )
