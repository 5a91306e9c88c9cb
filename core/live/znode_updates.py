"""What each znode that fired changes in the live watcher's state, kind by kind, and the events that tell it.

``ZnodeUpdates`` is mixed into ``core.live.watcher.ClusterWatcher``: the watcher's one dispatch thread
(``kzc-live``) calls ``_znode_changed`` with each path that fired, which re-reads that znode (``core.live.reads``),
lays the new value over the state (the structural ``LiveState`` and the topics changed since the last full read)
and returns the difference as events (``core.live.state``). The actor (its queue, its thread, the session's
states and the re-sync) stays in the watcher; these handlers share its fields and its thread, so they take no
lock but the one ``state()`` copies under.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from core.kafka.znodes import (
    TopicAssignment,
    parse_migration,
    parse_partition_state,
    parse_preferred_election,
    parse_reassignment,
    parse_topic,
)
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CONTROLLER,
    CONTROLLER_EPOCH,
    DELETE_TOPICS,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    MIGRATION,
    PREFERRED_REPLICA_ELECTION,
    REASSIGN_PARTITIONS,
    TOPICS,
    parse_broker_path,
    parse_state_path,
    parse_topic_path,
    state_path,
    topic_path,
)
from core.live.live_event import LiveEvent
from core.live.migration_watch import MigrationWatch
from core.live.reads import WatchedReads, broker_ids, parsed
from core.live.state import (
    FollowedTopic,
    LiveState,
    StateValue,
    diff_assignment,
    diff_brokers,
    diff_controller,
    diff_controller_epoch,
    diff_deletions,
    diff_isr_notifications,
    diff_log_dir_events,
    diff_partition_state,
    diff_preferred_election,
    diff_reassignment,
    diff_topics,
)
from core.snapshot.model import ClusterSnapshot
from core.snapshot.read_attempt import times_of


class ZnodeUpdates:
    """The incremental update each fired znode makes (dispatch thread only); the fields are the watcher's."""

    _lock: threading.Lock  # guards the fields below for state() (written only by the dispatch thread)
    _base: LiveState
    _followed: dict[str, FollowedTopic]
    _snapshot: ClusterSnapshot | None
    _reading: bool
    _deferred: set[str]
    _topic_before: dict[str, FollowedTopic | None]
    _state_before: dict[str, StateValue]
    _changes: int
    _reads: WatchedReads
    _migration: MigrationWatch
    targeted_reads: int

    def _znode_changed(self, path: str) -> list[LiveEvent]:
        if path in (CONTROLLER, CONTROLLER_EPOCH):
            return self._update_controller() + self._phase_events()
        if path == BROKER_IDS:
            return self._update_broker_list() + self._phase_events()
        if path == MIGRATION:
            return self._migration_fired()
        if path == TOPICS:
            return self._update_topics()
        if path == DELETE_TOPICS:
            return self._update_deletions()
        if path in (REASSIGN_PARTITIONS, PREFERRED_REPLICA_ELECTION):
            return self._update_admin_request(path)
        if path in (ISR_CHANGE_NOTIFICATIONS, LOG_DIR_EVENT_NOTIFICATIONS):
            return self._update_notifications(path)
        if (broker := parse_broker_path(path)) is not None:
            return self._update_broker(broker)
        topic = parse_topic_path(path)
        state = parse_state_path(path) if topic is None else None
        if topic is None and state is None:
            return []  # the browser's znode, or a watch left from a topic no longer followed
        if self._reading:
            self._defer(path)  # the full read may hold an older value: re-read after it
            return []
        self.targeted_reads += 1
        if topic is not None:
            return self._update_followed(topic)
        assert state is not None
        return self._update_partition(*state)

    def _update_controller(self) -> list[LiveEvent]:
        old = self._base
        controller, czxid, epoch = self._reads.controller()
        new_epoch = epoch if isinstance(epoch, int) else None
        events = diff_controller(old.controller, old.controller_czxid, controller, czxid, new_epoch)
        events += diff_controller_epoch(old.controller_epoch, epoch)
        self._set_base(controller=controller, controller_czxid=czxid, controller_epoch=epoch)
        return events

    def _migration_fired(self) -> list[LiveEvent]:
        if self._migration.fired(self._base):
            return self._update_migration()
        return self._phase_events()

    def _update_migration(self) -> list[LiveEvent]:
        self._set_base(migration=self._reads.value(MIGRATION, parse_migration))
        self._migration.armed()
        return self._phase_events()

    def _phase_events(self) -> list[LiveEvent]:
        return self._migration.events(self._base)

    def _update_broker_list(self) -> list[LiveEvent]:
        old = self._base
        ids = broker_ids(self._reads.children(BROKER_IDS))
        brokers = {i: r for i, r in old.brokers.items() if i in ids}
        epochs = {i: e for i, e in old.broker_epochs.items() if i in ids}
        self._reads.brokers(sorted(ids - brokers.keys()), brokers, epochs)
        self._set_base(brokers=brokers, broker_epochs=epochs)
        return diff_brokers(old.brokers, old.broker_epochs, brokers, epochs)

    def _update_broker(self, broker_id: int) -> list[LiveEvent]:
        old = self._base
        if broker_id not in old.brokers:
            return []  # not listed yet: the /brokers/ids child watch reports it
        brokers, epochs = dict(old.brokers), dict(old.broker_epochs)
        del brokers[broker_id], epochs[broker_id]
        self._reads.brokers([broker_id], brokers, epochs)
        self._set_base(brokers=brokers, broker_epochs=epochs)
        return diff_brokers(old.brokers, old.broker_epochs, brokers, epochs) + self._phase_events()

    def _update_topics(self) -> list[LiveEvent]:
        old = self._base.topics
        topics = frozenset(self._reads.children(TOPICS) or ())
        self._set_base(topics=topics)
        events = diff_topics(old, topics)
        for name in sorted(old - topics):
            self._store(FollowedTopic(name, None))  # gone: later watches of its znodes compare with nothing
        for name in sorted(topics - old):
            if self._reading:
                self._defer(topic_path(name))
            else:
                events += self._update_followed(name)  # read it, its states and set their watches
        return events

    def _update_deletions(self) -> list[LiveEvent]:
        old = self._base.deletions
        deletions = frozenset(self._reads.children(DELETE_TOPICS) or ())
        # A marker goes once its topic is deleted: re-read the topics first, so the removal comes first
        # and DeletionFinished knows whether the topic is really gone.
        events = self._update_topics() if old - deletions else []
        self._set_base(deletions=deletions)
        return events + diff_deletions(old, deletions, self._base.topics)

    def _update_admin_request(self, path: str) -> list[LiveEvent]:
        if path == REASSIGN_PARTITIONS:
            old_request = self._base.reassignment
            request = self._reads.value(REASSIGN_PARTITIONS, parse_reassignment)
            self._set_base(reassignment=request)
            return diff_reassignment(old_request, request)
        old_election = self._base.preferred_election
        election = self._reads.value(PREFERRED_REPLICA_ELECTION, parse_preferred_election)
        self._set_base(preferred_election=election)
        return diff_preferred_election(old_election, election)

    def _update_notifications(self, path: str) -> list[LiveEvent]:
        count = len(self._reads.children(path) or ())
        if path == ISR_CHANGE_NOTIFICATIONS:
            old = self._base.isr_notifications
            self._set_base(isr_notifications=count)
            return diff_isr_notifications(old, count)
        old = self._base.log_dir_events
        self._set_base(log_dir_events=count)
        return diff_log_dir_events(old, count)

    def _defer(self, path: str) -> None:
        """Re-read ``path`` (a topic or partition state znode that fired during a full read) after the read, and
        keep what was known of it before: the read may already hold the new value, and the change is reported
        against the old one (else a topic expanded during a read was never reported). Fired twice during the
        read: the change runs from the first."""
        self._deferred.add(path)
        if (name := parse_topic_path(path)) is not None:
            self._topic_before.setdefault(name, self._lookup(name))
        elif (located := parse_state_path(path)) is not None:
            tracked = self._lookup(located[0])
            if tracked is not None and located[1] in tracked.states:
                self._state_before.setdefault(path, tracked.states[located[1]])

    def _rebase_deferred(self, reread: dict[str, FollowedTopic]) -> None:
        """A re-sync during a full read reported the topics it re-read up to what it read: a deferred znode of one
        of them is compared with that after the read, not with what was known before (reported twice else)."""
        for name, topic in reread.items():
            if name in self._topic_before:
                self._topic_before[name] = topic
        for path in list(self._state_before):
            located = parse_state_path(path)
            if located is None or located[0] not in reread:
                continue
            state = reread[located[0]].states.get(located[1])
            if state is None:
                del self._state_before[path]  # not in what was re-read: compared with the full read's
            else:
                self._state_before[path] = state

    def _lookup(self, name: str) -> FollowedTopic | None:
        """What is known of topic ``name``: as changed since the last full read, or as that read holds it."""
        tracked = self._followed.get(name)
        if tracked is None and self._snapshot is not None:
            entry = self._snapshot.topics.get(name)
            if entry is not None:
                tracked = FollowedTopic(name, entry.assignment, entry.states, entry.times)
        return tracked

    def _store(self, tracked: FollowedTopic) -> None:
        with self._lock:
            self._followed[tracked.name] = tracked
            self._changes += 1

    def _update_followed(self, name: str) -> list[LiveEvent]:
        known = self._lookup(name)
        # As known before a full read it fired during (_defer); taken before the reads, so a failed read leaves
        # nothing stale behind.
        tracked = self._topic_before.pop(name, known)
        tracked = tracked or FollowedTopic(name, None)  # new to this watcher: everything in it is new
        read = self._reads.data(topic_path(name))
        assignment = parsed(topic_path(name), read, parse_topic)
        wanted = assignment.partition_ids if isinstance(assignment, TopicAssignment) else ()
        entering = [p for p in wanted if p not in tracked.states]
        states = self._reads.states(name, entering)
        # ZooKeeper fires the topic znode's watch before the /brokers/topics child watch: report the
        # creation first, as it happened.
        events = self._update_topics() if assignment is not None and name not in self._base.topics else []
        events += diff_assignment(name, tracked.assignment, assignment)
        for partition in entering:  # a partition new to the assignment had no state before
            events += diff_partition_state(name, partition, None, states[partition])
        times = times_of(read[1]) if isinstance(read, tuple) else None
        latest = {**tracked.states, **(known.states if known is not None else {})}  # the full read's are newer
        kept = {p: states[p] if p in states else latest[p] for p in wanted}
        self._store(FollowedTopic(name, assignment, kept, times))
        return events

    def _update_partition(self, name: str, partition: int) -> list[LiveEvent]:
        path = state_path(name, partition)
        tracked = self._lookup(name)
        if tracked is None or partition not in tracked.states:
            self._state_before.pop(path, None)
            return []
        # As known before a full read it fired during (_defer), else as known now.
        old = self._state_before.pop(path) if path in self._state_before else tracked.states[partition]
        new = self._reads.value(path, parse_partition_state)
        self._store(replace(tracked, states={**tracked.states, partition: new}))
        return diff_partition_state(name, partition, old, new)

    def _update_partitions(self, paths: tuple[str, ...]) -> list[LiveEvent]:
        """Partition states that fired, read pipelined; events by topic, then partition."""
        wanted: dict[str, list[int]] = {}
        for path in dict.fromkeys(paths):
            located = parse_state_path(path)
            assert located is not None
            tracked = self._lookup(located[0])
            if tracked is not None and located[1] in tracked.states:
                wanted.setdefault(located[0], []).append(located[1])
        before = {path: self._state_before.pop(path) for path in paths if path in self._state_before}  # _defer
        reads = self._reads.many([state_path(t, p) for t, ps in wanted.items() for p in ps], watch_missing=True)
        self.targeted_reads += len(reads)
        events: list[LiveEvent] = []
        for name in sorted(wanted):
            tracked = self._lookup(name)
            assert tracked is not None
            states = dict(tracked.states)
            for partition in sorted(wanted[name]):
                path = state_path(name, partition)
                new = parsed(path, reads[path], parse_partition_state)
                events += diff_partition_state(name, partition, before.get(path, states[partition]), new)
                states[partition] = new
            self._store(replace(tracked, states=states))
        return events

    def _set_base(self, **changes: Any) -> None:
        with self._lock:
            self._base = replace(self._base, **changes)
