"""The one readable sentence of each finding, rendered from its check id, location and evidence.

Both engines pass their evidence through ``describe``, so a finding reads the same whichever engine
produced it. The evidence keys each check provides are listed in ``docs/checks.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from core.kafka.znodes.paths import CLUSTER_ID, CONTROLLER_EPOCH

Ev = Mapping[str, object]


def _ids(values: object) -> str:
    # Kafka's compact array style, e.g. [1,2,3].
    if isinstance(values, Sequence) and not isinstance(values, str):
        return "[" + ",".join(str(v) for v in values) + "]"
    return str(values)


def _names(values: object) -> str:
    if isinstance(values, Sequence) and not isinstance(values, str):
        return ", ".join(f"'{v}'" for v in values)
    return str(values)


def _tp(topic: str | None, partition: int | None) -> str:
    return f"{topic}-{partition}"


def _count(n: object, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _offline_note(ev: Ev) -> str:
    offline = ev.get("offline_replicas")
    note = f"; replicas on unregistered brokers: {_ids(offline)}" if offline else ""
    return note + ("; the topic is queued for deletion" if ev.get("queued_for_deletion") else "")


Renderer = Callable[[str | None, int | None, int | None, str, Ev], str]


def _no_controller(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    registered = ev.get("registered_brokers", ())
    return (
        "No active controller: /controller is missing, so nothing elects leaders, updates ISRs, reassigns or "
        f"deletes ({_count(len(registered) if isinstance(registered, Sequence) else 0, 'broker')} registered)."
    )


def _controller_not_registered(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"The controller is broker {b}, which is not registered in /brokers/ids "
        f"(registered: {_ids(ev.get('registered_brokers', ()))}): its session is gone or the znode is stale."
    )


def _broker_registration_invalid(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    problems = ev.get("problems", ())
    text = "; ".join(str(x) for x in problems) if isinstance(problems, Sequence) else str(problems)
    return f"Broker {b}'s registration is invalid: {text}."


def _rack_violation(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    if t is None:
        return (
            f"Only some brokers have a rack (without: {_ids(ev.get('brokers_without_rack'))}, with: "
            f"{_ids(ev.get('brokers_with_rack'))}): rack-aware admin operations (Enforced mode) fail."
        )
    return (
        f"Partition {_tp(t, p)} has replicas {_ids(ev.get('replicas'))} on racks {_names(ev.get('replica_racks'))}: "
        f"{ev.get('distinct_racks')} distinct rack(s) where rack-aware placement gives {ev.get('expected_racks')}."
    )


def _unreadable_znode(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return f"Znode {path} is not in Kafka's format: {ev.get('reason')}."


def _topic_name_invalid(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return f"Kafka rejects this topic name: {ev.get('reason')}."


def _topic_name_collision(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Topic '{t}' collides with {_names(ev.get('colliding_with'))}: the names are equal once '.' and '_' are "
        "treated alike, so their metric names clash."
    )


def _non_contiguous(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    parts = []
    if ev.get("missing"):
        parts.append(f"missing {_ids(ev['missing'])}")
    if ev.get("unexpected"):
        parts.append(f"unexpected {_ids(ev['unexpected'])}")
    return (
        f"Topic '{t}' has {_count(ev.get('partition_count'), 'partition')} whose ids are not 0..N-1 "
        f"({', '.join(parts)})."
    )


def _inconsistent_rf(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    rf0 = ev.get("partition_0_replication_factor")
    tail = f"; Kafka's tools use partition 0's ({rf0}) for new partitions" if rf0 is not None else ""
    return f"Topic '{t}' mixes replication factors {_ids(ev.get('replication_factors'))}{tail}."


def _duplicate_replica(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Partition {_tp(t, p)} lists broker(s) {_ids(ev.get('duplicates'))} more than once in its replicas "
        f"{_ids(ev.get('replicas'))}."
    )


def _state_missing(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Partition {_tp(t, p)} (replicas {_ids(ev.get('replicas'))}) has no state znode: no leader was ever "
        f"elected for it{_offline_note(ev)}."
    )


def _orphan_state(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Partition {_tp(t, p)} has a state znode but topic '{t}' is assigned "
        f"{_count(ev.get('partition_count'), 'partition')}: a leftover of a restored delete or a manual edit."
    )


def _empty_isr(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Partition {_tp(t, p)} has an empty ISR (leader {ev.get('leader')}, replicas {_ids(ev.get('replicas'))}): "
        "no replica can be elected cleanly."
    )


def _leader_not_in_isr(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return f"Partition {_tp(t, p)} is led by broker {ev.get('leader')}, which is not in its ISR {_ids(ev.get('isr'))}."


def _isr_not_subset(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Partition {_tp(t, p)} has ISR {_ids(ev.get('isr'))} with broker(s) {_ids(ev.get('not_replicas'))} that "
        f"are not among its replicas {_ids(ev.get('replicas'))}."
    )


def _epoch_ahead(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Partition {_tp(t, p)} was written by controller epoch {ev.get('state_controller_epoch')}, ahead of "
        f"{CONTROLLER_EPOCH} {ev.get('controller_epoch')}: the state was edited by hand or /controller_epoch reset."
    )


def _offline(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    leader = ev.get("leader")
    if leader is None:
        why = "it has no readable state znode, so no leader"
    elif isinstance(leader, int) and leader < 0:
        why = f"it has no leader (leader {leader})"
    else:
        why = f"its leader, broker {leader}, is not registered"
    return f"Partition {_tp(t, p)} is offline: {why}; ISR {_ids(ev.get('isr'))}{_offline_note(ev)}."


def _under_min_isr(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    if ev.get("has_live_leader") is False:
        return f"Partition {_tp(t, p)} has no live leader: producers with acks=all fail{_offline_note(ev)}."
    isr = ev.get("isr", ())
    n = len(isr) if isinstance(isr, Sequence) else 0
    return (
        f"Partition {_tp(t, p)} has {n} in-sync replica(s) {_ids(isr)}, fewer than min.insync.replicas="
        f"{ev.get('min_insync_replicas')} ({ev.get('min_isr_source')}): producers with acks=all fail"
        f"{_offline_note(ev)}."
    )


def _under_replicated(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    isr = ev.get("isr", ())
    n = len(isr) if isinstance(isr, Sequence) else 0
    return (
        f"Partition {_tp(t, p)} is under-replicated: {n} of {ev.get('replication_factor')} replicas in sync "
        f"(ISR {_ids(isr)}, replicas {_ids(ev.get('replicas'))}){_offline_note(ev)}."
    )


def _unknown_broker(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Partition {_tp(t, p)} has a replica on broker {b}, which is not registered "
        f"(replicas {_ids(ev.get('replicas'))}): that replica is offline."
    )


def _leader_imbalance(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    elsewhere, total = ev.get("led_elsewhere"), ev.get("preferred_partitions")
    return (
        f"Broker {b} is the preferred leader of {_count(total, 'partition')} but {elsewhere} are led elsewhere, "
        f"above leader.imbalance.per.broker.percentage={ev.get('threshold_percent')}: a preferred replica "
        "election would move them back."
    )


def _preferred_not_leader(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    if ev.get("preferred_live") and ev.get("preferred_in_isr"):
        electable = "it is live and in the ISR, so a preferred election would move leadership back"
    elif not ev.get("preferred_live"):
        electable = "it is not registered"
    else:
        electable = "it is not in the ISR"
    return f"Partition {_tp(t, p)} is led by broker {ev.get('leader')}, not its preferred leader {b}: {electable}."


_DELETION_REASONS = {
    "no_controller": "there is no controller",
    "assignment_unreadable": "its topic znode is unreadable, for the controller too",
    "offline_replicas": "replicas are on unregistered brokers",
    "reassignment": "a reassignment of its partitions is in progress",
    "old_marker": "it has been queued for more than 15 minutes (delete.topic.enable=false or a failed StopReplica)",
}


def _deletion_stuck(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    reasons = ev.get("reasons", ())
    text = " and ".join(_DELETION_REASONS.get(str(r), str(r)) for r in reasons) if isinstance(reasons, Sequence) else ""
    return f"Deletion of topic '{t}' cannot progress: {text}{_offline_note(ev)}."


def _deletion_pending(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return f"Topic '{t}' is queued for deletion; nothing visible blocks it."


def _stale_marker(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"Topic '{t}' is queued for deletion but does not exist: the controller removes this marker on its next event."
    )


def _orphan_config(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return f"Config of topic '{t}' exists without the topic: a failed create or an interrupted delete left it."


def _reassignment(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    parts = []
    if ev.get("adding"):
        parts.append(f"adding {_ids(ev['adding'])}")
    if ev.get("removing"):
        parts.append(f"removing {_ids(ev['removing'])}")
    if ev.get("requested"):
        parts.append(f"requested {_ids(ev['requested'])}")
    return f"Partition {_tp(t, p)} is being reassigned (replicas {_ids(ev.get('replicas'))}: {', '.join(parts)})."


def _invalid_reassignment(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    problems = ev.get("problems", ())
    text = "; ".join(str(x) for x in problems) if isinstance(problems, Sequence) else str(problems)
    return f"Reassignment of {_tp(t, p)} in {path} cannot complete: {text}."


def _backlog(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    since = "the newest one" if ev.get("measured_from") == "newest" else "the snapshot"
    return (
        f"{ev.get('stale')} of {ev.get('total')} notifications under {path} are more than 15 minutes older than "
        f"{since} (oldest by {ev.get('oldest_age_s')} s): nobody consumes them."
    )


def _mismatch(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    differs = ev.get("differs", ())
    if t is None:
        return (
            f"Brokers report live brokers {_ids(ev.get('served_brokers'))} while /brokers/ids holds "
            f"{_ids(ev.get('zk_brokers'))}."
        )
    if differs == ("topic",):
        where = (
            "ZooKeeper has it but no broker serves it"
            if ev.get("side") == "zookeeper"
            else "brokers serve it but ZooKeeper has no such topic"
        )
        return f"Topic '{t}': {where}."
    parts = []
    for name in differs if isinstance(differs, Sequence) else ():
        parts.append(
            f"{name} {_ids(ev.get('zk_' + str(name)))} in ZooKeeper, {_ids(ev.get('served_' + str(name)))} served"
        )
    return f"Partition {_tp(t, p)} differs: {'; '.join(parts)}."


def _migration_cluster_id(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return (
        f"{CLUSTER_ID} is {ev.get('reason', 'missing')}: the KRaft controllers need this cluster's id to be "
        "formatted with (kafka-storage format -t)."
    )


def _migration_protocol(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    if ev.get("ibp") is not None:
        seen = f"reports inter.broker.protocol.version={ev['ibp']}"
    else:
        seen = f"registers with a v{ev.get('version')} registration (inter.broker.protocol.version below 2.7-IV0)"
    return f"Broker {b} {seen}: migration mode needs 3.4 or higher, equal to the controllers' metadata.version."


def _migration_reassignment(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    where = "requested in /admin/reassign_partitions" if ev.get("requested") else "in flight"
    return f"Topic '{t}' has a reassignment {where} (partitions {_ids(ev.get('partitions', ()))}): finish it first."


def _migration_deletion(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return f"Topic '{t}' is queued for deletion ({path}): let the deletion finish before migrating."


def _migration_leaderless(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    return f"{_tp(t, p)} has no leader (-1, ISR {_ids(ev.get('isr', ()))}): it would stay offline in KRaft."


def _migration_tokens(t: str | None, p: int | None, b: int | None, path: str, ev: Ev) -> str:
    if ev.get("tokens") is None:
        return (
            f"{path} could not be counted ({ev.get('reason', 'unreadable')}): delegation tokens migrate only from "
            "Kafka 3.6 at metadata.version 3.6-IV2 or higher."
        )
    return (
        f"{path} holds {ev['tokens']} delegation token(s): they migrate only from Kafka 3.6 at metadata.version "
        "3.6-IV2 or higher; on 3.4-3.5 (or a lower metadata.version) they are lost and their clients fail."
    )


_RENDERERS: dict[str, Renderer] = {
    "no_controller": _no_controller,
    "controller_not_registered": _controller_not_registered,
    "broker_registration_invalid": _broker_registration_invalid,
    "rack_violation": _rack_violation,
    "unreadable_znode": _unreadable_znode,
    "topic_name_invalid": _topic_name_invalid,
    "topic_name_collision": _topic_name_collision,
    "non_contiguous_partitions": _non_contiguous,
    "inconsistent_replication_factor": _inconsistent_rf,
    "duplicate_replica": _duplicate_replica,
    "partition_state_missing": _state_missing,
    "orphan_partition_state": _orphan_state,
    "empty_isr": _empty_isr,
    "leader_not_in_isr": _leader_not_in_isr,
    "isr_not_subset_of_replicas": _isr_not_subset,
    "controller_epoch_ahead": _epoch_ahead,
    "offline_partition": _offline,
    "under_min_isr": _under_min_isr,
    "under_replicated": _under_replicated,
    "replica_on_unknown_broker": _unknown_broker,
    "leader_imbalance": _leader_imbalance,
    "preferred_leader_not_leader": _preferred_not_leader,
    "deletion_stuck": _deletion_stuck,
    "deletion_pending": _deletion_pending,
    "stale_deletion_marker": _stale_marker,
    "orphan_topic_config": _orphan_config,
    "reassignment_in_progress": _reassignment,
    "invalid_reassignment_request": _invalid_reassignment,
    "notification_backlog": _backlog,
    "metadata_mismatch": _mismatch,
    "migration_cluster_id_missing": _migration_cluster_id,
    "migration_protocol_too_old": _migration_protocol,
    "migration_reassignment_pending": _migration_reassignment,
    "migration_deletion_pending": _migration_deletion,
    "migration_leaderless_partition": _migration_leaderless,
    "migration_delegation_tokens": _migration_tokens,
}


def describe(check: str, topic: str | None, partition: int | None, broker: int | None, path: str, evidence: Ev) -> str:
    """The detail sentence of a finding.

    Raises:
        KeyError: ``check`` is not in the catalog.
    """
    return _RENDERERS[check](topic, partition, broker, path, evidence)
