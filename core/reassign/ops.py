"""Reassignments on a live cluster: plan from ZooKeeper's truth, apply as ``kafka-reassign-partitions.sh``
(ZooKeeper path, Kafka 2.5 to 2.8) does, follow, remove the throttles.

Apply, in one ZooKeeper multi-op (all or nothing), in Kafka's order:
1. with ``--throttle``: each moving topic's ``leader.replication.throttled.replicas`` (every current
   replica) and ``follower.replication.throttled.replicas`` (every new replica), then each involved
   broker's ``leader.replication.throttled.rate`` and ``follower.replication.throttled.rate``, each a
   config change as ``AdminZkClient`` writes it (config znode + change notification);
2. ``/admin/reassign_partitions`` created with ``{"version":1,"partitions":[{"topic","partition",
   "replicas"}]}``.
The multi-op also checks that no moving topic's znode changed since the plan (so ``current`` is still
true) and, when configs are written, ``/controller``'s version (Kafka 3.7.1+'s fence).

Why ZooKeeper even with ``--bootstrap-server``: confluent-kafka 2.16 has no AlterPartitionReassignments,
and every ZooKeeper-mode controller (through 3.9) acts on ``/admin/reassign_partitions``, whose JSON is the
same in every release (``ZkUtils.formatAsReassignmentJson`` 0.10, ``ReassignPartitionsZNode`` 1.1+). Throttles
then go through IncrementalAlterConfigs (as the tool's AdminClient path sets them) before the znode is
written, where every broker serves it (2.3+); before, they are config changes in the multi-op, as the tool of
those releases wrote them (``ReassignPartitionsCommand`` through ``AdminZkClient``/``AdminUtils``).

Cancelling needs AlterPartitionReassignments (2.4+). Before 2.4 Kafka had no cancel at all, and kzc refuses
with what Kafka offered instead. Log sizes (bytes to move) are DescribeLogDirs, negotiated per broker
(``core.brokers.logdirs``); a broker before 1.0 has none and the sizes are unknown with that reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from typing import Any

from kazoo.exceptions import KazooException
from kazoo.handlers.threading import KazooTimeoutError

from core.audit import AuditLog
from core.brokers.apiversions import (
    ALTER_PARTITION_REASSIGNMENTS,
    DESCRIBE_CLIENT_QUOTAS,
    INCREMENTAL_ALTER_CONFIGS,
    NoVersion,
)
from core.brokers.capabilities import VIA_ADMIN, Route, wire_endpoint, write_route
from core.brokers.changes import ChangeAdmin
from core.brokers.logdirs import log_sizes
from core.brokers.reassignments import ERRORS, cancel_reassignments
from core.config import ConnectionSettings
from core.configs.ops import open_ops
from core.configs.zk import (
    BROKERS,
    TOPICS,
    StoredConfig,
    change_writes,
    controller_fence,
    execute,
    read_config,
)
from core.errors import ConnectError, GuardError, KafkaRuleError, KzcError, UsageError
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import BrokerRegistration, EntityConfig, Unreadable, parse_entity_config
from core.kafka.znodes.paths import REASSIGN_PARTITIONS, TOPIC_CONFIGS, config_path, topic_path
from core.reassign.file import check_partitions_and_brokers, parse_reassignment_file
from core.reassign.move_off import plan_move_off
from core.reassign.plan import (
    BROKER_THROTTLES,
    FOLLOWER_THROTTLED_RATE,
    LEADER_THROTTLED_RATE,
    TOPIC_THROTTLES,
    Move,
    ReassignPlan,
    balance_of,
    plan_onto,
    reassigning_brokers,
    topic_throttles,
    with_balance,
)
from core.reassign.progress import ReassignProgress, in_progress, read_progress, wait_done
from core.topics.cluster_ops import ClusterOps
from core.topics.facts import ClusterFacts
from core.topics.write import PlannedWrite

FILE = "file"
# ReassignPartitionsCommand.cannotExecuteBecauseOfExistingMessage (2.6 to 3.9), word for word.
EXISTING_REASSIGNMENT = (
    "Cannot execute because there is an existing partition assignment.  Use --additional to override this and "
    "create a new partition assignment in addition to the existing one. The --additional flag can also be used "
    "to change the throttle by resubmitting the current reassignment."
)

# What ReassignPartitionsCommand.executeAssignment printed up to 2.5 (0.10.2, 1.1.1, 2.3.0, 2.5.0), word for word.
EXISTING_REASSIGNMENT_BEFORE_2_6 = "There is an existing assignment running."

ZOOKEEPER_CANNOT_CANCEL = (
    "ZooKeeper offers no cancel: the controller finishes every partition it took from /admin/reassign_partitions "
    "(deleting the znode stops nothing). Kafka cancels only through AlterPartitionReassignments (KIP-455, "
    "brokers 2.4+): give --bootstrap-server. Without it: let the reassignment finish, then apply the rollback "
    '(the "current" replicas of each entry of the plan\'s file)'
)
# Before 2.4 nothing in Kafka cancels: kafka-reassign-partitions of 0.10 to 2.3 has no --cancel.
NO_CANCEL_BEFORE_2_4 = (
    "Kafka before 2.4 cannot cancel a reassignment: {lacking}. kafka-reassign-partitions of those releases has no "
    "--cancel, and the controller finishes every partition it took from /admin/reassign_partitions (deleting the "
    "znode stops nothing). What Kafka offered instead: let it finish (kzc reassign status), then apply the "
    'rollback, the "current" replicas of each entry of the plan\'s file (kzc reassign apply FILE)'
)
REASSIGN_PATH = (
    f"{REASSIGN_PARTITIONS}, as kafka-reassign-partitions --zookeeper writes it: every ZooKeeper-mode "
    "controller (0.10 to 3.9) acts on it, and confluent-kafka has no AlterPartitionReassignments"
)
THROTTLE_TOOL = "as kafka-reassign-partitions --throttle did before 2.3 (AdminZkClient config changes)"
THROTTLE_ZK_TOOL = "as kafka-reassign-partitions --zookeeper --throttle writes them (AdminZkClient config changes)"


@dataclass(frozen=True)
class Scope:
    """The partitions a plan looks at, read at one moment, with each topic znode's version."""

    facts: ClusterFacts
    assignment: dict[TopicPartition, tuple[int, ...]]
    versions: dict[str, int]


def encode_reassignment(moves: Sequence[Move]) -> bytes:
    """``ReassignPartitionsZNode.encode``: ``{"version":1,"partitions":[{"topic","partition","replicas"}]}``."""
    partitions = [{"topic": m.topic, "partition": m.partition, "replicas": list(m.target)} for m in moves]
    return json.dumps({"version": 1, "partitions": partitions}, separators=(",", ":")).encode()


def throttle_configs(
    moves: Sequence[Move],
    rate: int,
    topic_configs: Mapping[str, StoredConfig],
    broker_configs: Mapping[int, StoredConfig],
) -> tuple[dict[str, dict[str, str]], dict[int, dict[str, str]]]:
    """The topic and broker overrides after ``modifyTopicThrottles`` / ``modifyBrokerThrottles``."""
    topics = {}
    for topic, values in topic_throttles(moves).items():
        topics[topic] = {**topic_configs[topic].as_dict(), **values}
    brokers = {}
    for broker in reassigning_brokers(moves):
        brokers[broker] = {
            **broker_configs[broker].as_dict(),
            LEADER_THROTTLED_RATE: str(rate),
            FOLLOWER_THROTTLED_RATE: str(rate),
        }
    return topics, brokers


class ReassignOps(ClusterOps[ChangeAdmin]):
    """Plan, apply, follow and cancel reassignments on the cluster behind ``session`` (and ``admin``)."""

    def throttle_route(self, facts: ClusterFacts) -> Route:
        """The path of the throttles, config changes taking the one decision (``write_route``):
        IncrementalAlterConfigs (2.3+ brokers), else config changes in ZooKeeper. The reassignment itself has
        one path (``/admin/reassign_partitions``, see the module), so ``kzc reassign`` has no ``--via``."""
        caps = self.capabilities.get(facts.brokers)
        return write_route(caps, INCREMENTAL_ALTER_CONFIGS, None, THROTTLE_ZK_TOOL, THROTTLE_TOOL)

    def path_reason(self, throttle: int | None, facts: ClusterFacts) -> str:
        """Which path the writes of ``apply`` take and why, for the dry run and the audit line."""
        if throttle is None:
            return REASSIGN_PATH
        return f"{REASSIGN_PATH}; throttles: {self.throttle_route(facts).reason}"

    # ---- reading ---------------------------------------------------------------------------------

    def scope(self, topics: Sequence[str] = (), regex: str | None = None) -> Scope:
        """Every partition of the named topics, of those matching ``regex``, or of every topic.

        Raises:
            UsageError: both names and a regex, or a bad regex; KafkaRuleError: a named topic is missing.
            GuardError: a topic znode is unreadable.
        """
        facts = self.reader.facts()
        if topics and regex is not None:
            raise UsageError("give --topic or --regex, not both")
        if regex is not None:
            try:
                pattern = re.compile(regex)
            except re.error as exc:
                raise UsageError(f"invalid --regex '{regex}': {exc}") from exc
            names = sorted(t for t in facts.topic_names if pattern.fullmatch(t))
        elif topics:
            missing = [t for t in topics if t not in facts.topic_names]
            if missing:
                raise KafkaRuleError(f"Topic '{missing[0]}' does not exist.", "UnknownTopicOrPartitionException")
            names = sorted(set(topics))
        else:
            names = sorted(facts.topic_names)
        assignment: dict[TopicPartition, tuple[int, ...]] = {}
        versions: dict[str, int] = {}
        for name, live in self.reader.topics(names).items():
            if isinstance(live.assignment, Unreadable):
                raise GuardError(f"{live.assignment.path} is unreadable ({live.assignment.reason}): kzc cannot plan it")
            versions[name] = live.zk_version
            for partition, replicas in live.assignment.partitions:
                assignment[(name, partition)] = tuple(replicas)
        return Scope(facts, assignment, versions)

    # ---- planning --------------------------------------------------------------------------------

    def plan_move_off(
        self, brokers: Sequence[int], topics: Sequence[str] = (), regex: str | None = None
    ) -> ReassignPlan:
        """Minimal movement off ``brokers`` over the scope (``core.reassign.move_off.plan_move_off``)."""
        scope = self.scope(topics, regex)
        plan = plan_move_off(scope.assignment, scope.facts.broker_metas(), brokers)
        return self._pinned(plan, scope)

    def plan_onto(
        self,
        brokers: Sequence[int],
        topics: Sequence[str] = (),
        regex: str | None = None,
        seed: int | None = None,
        rack_aware: bool = True,
    ) -> ReassignPlan:
        """Kafka's ``--generate`` over ``brokers`` (``core.reassign.plan.plan_onto``)."""
        scope = self.scope(topics, regex)
        plan = plan_onto(scope.assignment, scope.facts.broker_metas(), brokers, rack_aware, seed)
        return self._pinned(plan, scope)

    def plan_file(self, text: str) -> ReassignPlan:
        """A reassignment file (Kafka's format) as a plan: Kafka's checks, ``current`` read now.

        Raises:
            KafkaRuleError: the file's checks, unknown partitions or brokers (Kafka's messages).
            ConcurrentChangeError: is not raised here; apply checks the topic versions.
        """
        parsed = parse_reassignment_file(text)
        scope = self.scope(sorted({k[0] for k, _ in parsed.targets if k[0] in self.reader.facts().topic_names}))
        check_partitions_and_brokers(parsed.targets, scope.assignment, scope.facts.broker_ids)
        stale = [f"{t}-{p}" for (t, p), current in parsed.current.items() if scope.assignment.get((t, p)) != current]
        if stale:
            raise GuardError(
                f'the file\'s "current" no longer matches ZooKeeper for {", ".join(stale[:10])}: the cluster changed '
                "since the plan was made; make it again"
            )
        moves = tuple(Move(t, p, scope.assignment[(t, p)], tuple(r)) for (t, p), r in parsed.targets)
        final = dict(scope.assignment)
        for move in moves:
            final[move.key] = move.target
        targets = tuple(sorted(scope.facts.broker_ids))
        plan = ReassignPlan(
            mode=FILE,
            brokers=(),
            targets=targets,
            moves=moves,
            before=balance_of(scope.assignment, targets),
            after=balance_of(final, targets),
            partitions_considered=len(scope.assignment),
        )
        return self._pinned(plan, scope)

    def _pinned(self, plan: ReassignPlan, scope: Scope) -> ReassignPlan:
        moving = sorted({m.topic for m in plan.moves})
        plan = replace(plan, topic_versions=tuple((t, scope.versions[t]) for t in moving))
        plan = with_balance(plan, scope.assignment, scope.facts.broker_ids)
        return self._with_bytes(plan, scope.facts)

    def _with_bytes(self, plan: ReassignPlan, facts: ClusterFacts) -> ReassignPlan:
        """The plan with the bytes its new replicas copy: each moving partition's largest log among its
        current replicas (DescribeLogDirs to each broker holding one, ``core.brokers.logdirs``) times its new
        replicas; or why that is unknown."""
        if not plan.moves:
            return replace(plan, bytes_to_move=0)
        if self.admin is None:
            return replace(plan, bytes_unknown="give --bootstrap-server: kzc then asks each broker (DescribeLogDirs)")
        wanted: dict[int, dict[str, list[int]]] = {}
        for move in plan.moves:
            for broker in move.current:
                wanted.setdefault(broker, {}).setdefault(move.topic, []).append(move.partition)
        sizes: dict[TopicPartition, int] = {}
        problems = []
        for broker, partitions in sorted(wanted.items()):
            security = self.settings.kafka_security
            endpoint = wire_endpoint(facts.brokers.get(broker), security)
            if endpoint is None:
                problems.append(
                    f"broker {broker}: not registered, or no {security.protocol} listener (kzc's own DescribeLogDirs "
                    "request needs one)"
                )
                continue
            try:
                host = endpoint.host or "127.0.0.1"
                found = log_sizes(host, endpoint.port, partitions, self.admin.timeout, f"broker {broker}", security)
            except NoVersion as exc:
                problems.append(str(exc))
                continue
            except (OSError, ValueError) as exc:
                problems.append(f"broker {broker}: {exc}")
                continue
            for key, size in found.items():
                sizes[key] = max(size, sizes.get(key, 0))
        missing = [m for m in plan.moves if m.key not in sizes]
        if missing:
            shown = ", ".join(f"{m.topic}-{m.partition}" for m in missing[:5])
            why = "; ".join(problems[:3]) or "no broker reported them"
            return replace(plan, bytes_unknown=f"no log size for {len(missing)} partition(s) ({shown}): {why}")
        return replace(plan, bytes_to_move=sum(sizes[m.key] * len(m.adding) for m in plan.moves))

    # ---- applying --------------------------------------------------------------------------------

    def check_applicable(self, plan: ReassignPlan) -> ClusterFacts:
        """The refusals before any write, in Kafka's order, plus kzc's.

        Raises:
            ReadOnlyError: read-only mode or a migration.
            GuardError: nothing to move.
            KafkaRuleError: unknown partitions or brokers (Kafka's messages), or a reassignment in
                progress (``cannotExecuteBecauseOfExistingMessage``).
        """
        facts = self.writable_facts()
        if not plan.moves:
            raise GuardError("the plan moves nothing")
        live = self.reader.topics(sorted({m.topic for m in plan.moves}))
        existing = {
            (name, p): tuple(r)
            for name, t in live.items()
            if not isinstance(t.assignment, Unreadable)
            for p, r in t.assignment.partitions
        }
        check_partitions_and_brokers([(m.key, m.target) for m in plan.moves], existing, facts.broker_ids)
        assignments = [t.assignment for t in live.values() if not isinstance(t.assignment, Unreadable)]
        if facts.reassignment is not None or in_progress(facts, assignments):
            raise self._existing(facts)
        return facts

    def _existing(self, facts: ClusterFacts) -> KafkaRuleError:
        """Kafka's refusal of a second reassignment, in the words of the tool of the brokers' release: the
        rewritten tool came with 2.6, whose brokers are the first with DescribeClientQuotas."""
        caps = self.capabilities.get(facts.brokers)
        if caps is not None and caps.lacking(DESCRIBE_CLIENT_QUOTAS) is not None:
            return KafkaRuleError(EXISTING_REASSIGNMENT_BEFORE_2_6, "AdminOperationException")
        return KafkaRuleError(EXISTING_REASSIGNMENT, "TerseReassignmentFailureException")

    def planned_writes(self, plan: ReassignPlan, throttle: int | None, facts: ClusterFacts) -> tuple[PlannedWrite, ...]:
        """What ``apply`` writes, in order (the dry run prints exactly this).

        With an AdminClient the throttles are IncrementalAlterConfigs requests (``admin`` entries) sent
        before the multi-op; on the ZooKeeper path they are config changes inside it.
        """
        writes: list[PlannedWrite] = [
            PlannedWrite("check", topic_path(t), b"", version) for t, version in plan.topic_versions
        ]
        if throttle is not None:
            topics, brokers = self._throttle_targets(plan, throttle)
            if self.throttle_route(facts).via == VIA_ADMIN:
                for topic in topics:
                    values = topic_throttles(plan.moves)[topic]
                    writes.append(_admin_write(TOPICS, topic, values))
                for broker in brokers:
                    rates = {LEADER_THROTTLED_RATE: str(throttle), FOLLOWER_THROTTLED_RATE: str(throttle)}
                    writes.append(_admin_write(BROKERS, str(broker), rates))
            else:
                fence = controller_fence(facts, f"{TOPICS} {plan.moves[0].topic}")
                if fence is not None:
                    writes.append(fence)
                for topic, config in topics.items():
                    writes += change_writes(read_config(self.session, TOPICS, topic), config)
                for broker, config in brokers.items():
                    writes += change_writes(read_config(self.session, BROKERS, str(broker)), config)
        writes.append(PlannedWrite("create", REASSIGN_PARTITIONS, encode_reassignment(plan.moves)))
        return tuple(writes)

    def _throttle_targets(
        self, plan: ReassignPlan, throttle: int
    ) -> tuple[dict[str, dict[str, str]], dict[int, dict[str, str]]]:
        topic_configs = {t: read_config(self.session, TOPICS, t) for t in sorted({m.topic for m in plan.moves})}
        broker_configs = {b: read_config(self.session, BROKERS, str(b)) for b in reassigning_brokers(plan.moves)}
        return throttle_configs(plan.moves, throttle, topic_configs, broker_configs)

    def apply(self, plan: ReassignPlan, throttle: int | None = None) -> tuple[PlannedWrite, ...]:
        """Start the reassignment exactly as planned; returns the writes made.

        Raises:
            ReadOnlyError, GuardError, KafkaRuleError: see ``check_applicable``; a reassignment that
                appeared meanwhile (the znode exists) is refused with Kafka's message.
            ConcurrentChangeError: a moving topic or a config changed since it was read.
        """
        if throttle is not None and throttle < 0:
            raise UsageError("--throttle must be at least 0 bytes per second")
        facts = self.check_applicable(plan)
        writes = self.planned_writes(plan, throttle, facts)
        if self.admin is not None:  # the throttles' IncrementalAlterConfigs, when planned_writes chose them
            for write in writes:
                if write.op == "admin":
                    arguments = json.loads(write.data)
                    self.admin.alter_config(arguments["type"], arguments["name"], arguments["set"])
        try:
            execute(self.session, [w for w in writes if w.op != "admin"], "starting the reassignment")
        except KafkaRuleError as exc:
            if REASSIGN_PARTITIONS in str(exc):
                raise self._existing(facts) from exc
            raise
        return writes

    # ---- cancelling ------------------------------------------------------------------------------

    def cancellable(self) -> ReassignProgress:
        """The partitions a cancel would revert (everything being reassigned now).

        Raises:
            GuardError: no ``--bootstrap-server``: ZooKeeper offers no cancel; brokers before 2.4: Kafka had
                no cancel (each with what Kafka allows instead).
        """
        if self.admin is None:
            raise GuardError(ZOOKEEPER_CANNOT_CANCEL)
        caps = self.capabilities.get(self.reader.facts().brokers)
        lacking = None if caps is None else caps.lacking(ALTER_PARTITION_REASSIGNMENTS)
        if lacking is not None:
            raise GuardError(NO_CANCEL_BEFORE_2_4.format(lacking=lacking))
        return self.progress()

    def cancel(self, progress: ReassignProgress, timeout: float = 30.0) -> dict[TopicPartition, str | None]:
        """AlterPartitionReassignments with null replicas for every moving partition, sent to the
        controller (``core.brokers.reassignments``); each partition's error or None.

        Raises:
            ReadOnlyError, GuardError: read-only, no controller, no PLAINTEXT listener on it.
            ConnectError: the controller did not answer. KzcError: it refused the whole request.
        """
        facts = self.writable_facts()
        keys = [(p.topic, p.partition) for p in progress.moving]
        if not keys:
            raise GuardError("None of the specified partition reassignments are active.")
        controller = facts.controller_id()
        registration = facts.brokers.get(controller) if controller is not None else None
        if not isinstance(registration, BrokerRegistration):
            raise GuardError("no active controller (or its registration is unreadable): nothing can cancel now")
        security = self.settings.kafka_security
        endpoint = wire_endpoint(registration, security)
        if endpoint is None:
            raise GuardError(
                f"controller {controller} has no {security.protocol} listener (kafka_security_protocol), which kzc's "
                "own AlterPartitionReassignments request needs: use kafka-reassign-partitions.sh --bootstrap-server B "
                "--cancel --reassignment-json-file FILE"
            )
        try:
            who = f"the controller (broker {controller})"
            answer = cancel_reassignments(endpoint.host or "127.0.0.1", endpoint.port, keys, timeout, who, security)
        except NoVersion as exc:
            raise GuardError(NO_CANCEL_BEFORE_2_4.format(lacking=exc)) from None
        except (OSError, ValueError) as exc:
            raise ConnectError(f"controller {controller} ({endpoint}) did not answer the cancellation: {exc}") from exc
        code, message = answer.error
        if code != 0:
            raise KzcError(f"the controller refused the cancellation: {ERRORS.get(code, code)} {message or ''}".strip())
        return {
            key: None if c == 0 else f"{ERRORS.get(c, c)}: {m or ''}".strip()
            for key, (c, m) in answer.partitions.items()
        }

    # ---- following -------------------------------------------------------------------------------

    def progress(self, plan: ReassignPlan | None = None) -> ReassignProgress:
        """One look at the plan's partitions (None: whatever is being reassigned now)."""
        return self.progress_of(None if plan is None else {m.key: m.target for m in plan.moves})

    def progress_of(self, targets: Mapping[TopicPartition, Sequence[int]] | None) -> ReassignProgress:
        """One look at ``targets`` (partition -> target replicas; None: whatever is being reassigned now, and
        the throttles left on any topic, as ``apply`` listed them)."""
        if targets is None:
            return read_progress(self.reader, None, lambda: self.throttles_left(self.throttled_topics()))
        topics = sorted({t for t, _ in targets})
        return read_progress(self.reader, targets, lambda: self.throttles_left(topics))

    def throttled_topics(self, batch: int = 1000) -> list[str]:
        """Topics whose config holds a reassignment throttle: every ``/config/topics`` znode, read pipelined
        ``batch`` at a time (a reassignment that finished is no longer in ZooKeeper; its throttles are)."""
        found = []
        names = sorted(self.session.read_children(TOPIC_CONFIGS) or [])
        for start in range(0, len(names), batch):
            chunk = names[start : start + batch]
            pending = [(name, self.session.client.get_async(config_path(TOPICS, name))) for name in chunk]
            for name, result in pending:
                try:
                    data, _ = result.get(timeout=self.settings.session_timeout)
                except (KazooException, KazooTimeoutError):
                    continue  # gone, or unreadable: read_config says so when it matters
                value = parse_entity_config(config_path(TOPICS, name), data or b"")
                if isinstance(value, EntityConfig) and any(k in value.as_dict() for k in TOPIC_THROTTLES):
                    found.append(name)
        return found

    def wait(
        self, plan: ReassignPlan, timeout: float, on_change: Callable[[ReassignProgress], None] | None = None
    ) -> ReassignProgress:
        """Follow the plan's partitions until each is done (``ReassignTimeout`` otherwise)."""
        return wait_done(lambda: self.progress(plan), timeout, on_change)

    def throttles_left(self, topics: Sequence[str] | None = None) -> list[str]:
        """Reassignment throttles still set on the registered brokers and on ``topics`` (None: none)."""
        left = []
        for broker in sorted(self.reader.facts().broker_ids):
            stored = read_config(self.session, BROKERS, str(broker)).as_dict()
            left += [f"broker {broker} {k}={stored[k]}" for k in BROKER_THROTTLES if k in stored]
        for topic in topics or ():
            stored = read_config(self.session, TOPICS, topic).as_dict()
            left += [f"topic {topic} {k}={stored[k]}" for k in TOPIC_THROTTLES if k in stored]
        return left

    def clear_throttles(self, topics: Sequence[str]) -> list[str]:
        """``clearAllThrottles`` (ZooKeeper path, as ``--verify`` runs it once everything is done): the three
        throttle rates off every registered broker, the throttled-replica lists off ``topics``. Each entity is
        its own config change (as Kafka makes them); returns the entities changed.

        Raises:
            ReadOnlyError: read-only mode or a migration.
        """
        facts = self.writable_facts()
        changed = []
        entities: list[tuple[str, str, tuple[str, ...]]] = [
            (BROKERS, str(b), BROKER_THROTTLES) for b in sorted(facts.broker_ids)
        ]
        entities += [(TOPICS, t, TOPIC_THROTTLES) for t in topics]
        for entity_type, name, keys in entities:
            stored = read_config(self.session, entity_type, name)
            present = [k for k in keys if k in stored.as_dict()]
            if not present:
                continue
            if self.admin is not None and self.throttle_route(facts).via == VIA_ADMIN:
                self.admin.alter_config(entity_type, name, {}, present)
            else:
                config = {k: v for k, v in stored.as_dict().items() if k not in keys}
                fence = controller_fence(facts, f"{entity_type} {name}")
                execute(
                    self.session,
                    [*(() if fence is None else (fence,)), *change_writes(stored, config)],
                    f"removing the throttles of {entity_type} {name}",
                )
            changed.append(f"{entity_type}/{name}")
        return changed


def _admin_write(entity_type: str, name: str, values: Mapping[str, str]) -> PlannedWrite:
    arguments: dict[str, Any] = {"type": entity_type, "name": name, "set": dict(values)}
    return PlannedWrite("admin", "IncrementalAlterConfigs", json.dumps(arguments, separators=(",", ":")).encode())


def open_reassign_ops(
    settings: ConnectionSettings, admin_timeout: float = 15.0, audit: AuditLog | None = None
) -> AbstractContextManager[ReassignOps]:
    """A ``ReassignOps`` on a fresh session (``core.configs.ops.open_ops``)."""
    return open_ops(ReassignOps, settings, admin_timeout, audit)
