"""Topic create, expand and delete on a live cluster: plan (read, validate, preview), apply, follow.

``TopicOps`` ties the pieces together for one cluster: ``core.topics.facts`` reads, ``core.topics.planning``
validates and builds the plan, ``core.topics.write`` writes it (through the AdminClient when a
``--bootstrap-server`` is known, else through ZooKeeper as Kafka's ZooKeeper tools do) and
``core.topics.progress`` follows the controller. Where the brokers lack the API of a write (CreatePartitions
before 1.0; CreateTopics and DeleteTopics before 0.10.1), it goes through ZooKeeper, as Kafka's own tools of
that release did, and the plan says so (``core.brokers.capabilities.route``: the check "write path"). Every
``apply_*`` re-reads the cluster first and refuses in read-only mode or during a ZooKeeper-to-KRaft migration,
whatever the plan says; after writing it reads back ``/brokers/topics/<t>`` and fails loudly if the cluster
holds anything other than the plan.

``TopicOps.apply`` is the one plan -> audit -> apply sequence every surface uses (the command line, the
console): right before the write is sent it writes the audit intent line, with the before-state of what
an expand or delete changes (the topic znode and config znode as they were, topic id, versions); after it,
the outcome line. Callers that record more (the parsed arguments, a dry run, a refused option, a
cancelled confirmation) open the attempt themselves (``TopicOps.audit.attempt``) and pass it in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, suppress
from dataclasses import replace
from typing import Any, TypeVar, overload

from core.audit import Attempt, AuditLog
from core.brokers.admin import KafkaAdmin
from core.brokers.apiversions import CREATE_PARTITIONS, CREATE_TOPICS, DELETE_TOPICS, DESCRIBE_CONFIGS, Api
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, Route, write_route
from core.config import ConnectionSettings
from core.errors import ConcurrentChangeError, GuardError, KafkaRuleError, KzcError
from core.kafka.names import is_valid_topic_name, validate_topic_name
from core.kafka.znode_size import check_topic_znode_size
from core.kafka.znodes import ControllerInfo, TopicAssignment
from core.kafka.znodes.encode import add_partitions_to_raw, encode_new_topic
from core.kafka.znodes.paths import topic_path
from core.polling import DeadlineExceeded, wait_until
from core.topics.cluster_ops import ClusterOps, open_cluster_ops
from core.topics.facts import ClusterFacts
from core.topics.guard import Check, check_deletable, check_not_marked_for_deletion
from core.topics.plan import (
    Assignment,
    CreatePlan,
    CreateRequest,
    CreateResult,
    DeletePlan,
    DeleteRequest,
    DeleteResult,
    ExpandPlan,
    ExpandRequest,
    ExpandResult,
)
from core.topics.planning import (
    check_not_marked_for_deletion_on_expand,
    plan_create,
    plan_delete,
    plan_expand,
    select_topics,
    unknown_topic_fields,
)
from core.topics.progress import (
    DeleteProgress,
    OnlineProgress,
    deletion_progress,
    online_progress,
    wait_deleted,
    wait_online,
)
from core.topics.write import (
    create_via_admin,
    create_via_zookeeper,
    delete_via_admin,
    delete_via_zookeeper,
    expand_via_admin,
    expand_via_zookeeper,
)


class TopicOps(ClusterOps[KafkaAdmin]):
    """Plan, apply and follow topic operations on the cluster behind ``session`` (and ``admin``, if any; the
    arguments: ``ClusterOps``)."""

    def route(self, facts: ClusterFacts, api: Api, kafka_tool: str, via: str | None = None) -> Route:
        """The path of a write served by ``api``: the one ``--via`` decision (``write_route``; ``via`` forces a
        path, and the brokers are not asked with ``--via zookeeper``)."""
        caps = None if via == VIA_ZOOKEEPER else self.capabilities.get(facts.brokers)
        return write_route(caps, api, via, _ZK_TOOL, kafka_tool)

    def blocked(self, facts: ClusterFacts, via: str | None = None) -> str | None:
        """Why nothing may be applied now through ``via`` (read-only mode, migration), or None."""
        return self.read_only(facts, (via or self.via) == VIA_ADMIN)

    # ---- create ---------------------------------------------------------------------------------

    def plan_create(self, request: CreateRequest, via: str | None = None) -> CreatePlan:
        """Validate a create and compute its assignment; nothing is written.

        With an AdminClient, the brokers also validate the plan (``validate_only``: configs, policies),
        unless it cannot be applied anyway (``blocked``: read-only mode or a migration, which the plan then
        explains instead of a broker's answer). Without ``request.seed`` Kafka's random start is drawn anew
        for every plan, so apply the returned plan to get exactly its assignment.

        Raises:
            UsageError, KafkaRuleError, GuardError: see ``core.topics.planning.plan_create``.
        """
        facts = self.reader.facts()
        orphan = None
        # An invalid name is refused by plan_create, in Kafka's order; it must not become a path first.
        if request.topic not in facts.topic_names and is_valid_topic_name(request.topic):
            found = self.reader.topic_config(request.topic)
            orphan = found[1] if found else None
        path = self.route(facts, CREATE_TOPICS, _CREATE_TOOL, via)
        plan = plan_create(
            facts,
            request,
            via=path.via,
            blocked=self.blocked(facts, path.via),
            config_zk_version=orphan,
            znode_limit=self.settings.jute_maxbuffer,
        )
        plan = _with_path(plan, path)
        size = len(encode_new_topic(plan.assignment, plan.topic_znode_version))
        check_topic_znode_size(plan.topic, size, self.settings.jute_maxbuffer, "this assignment", exact=True)
        if self.admin is not None and plan.via == VIA_ADMIN and plan.blocked is None:
            self.admin.create_topic(plan.topic, [r for _, r in plan.assignment], dict(plan.config), validate_only=True)
            plan = _with_check(plan, Check("broker validation", "ok", "the brokers accept it (validate_only)"))
        return plan

    def apply_create(self, plan: CreatePlan, before_write: BeforeWrite | None = None) -> CreateResult:
        """Create the topic exactly as planned and read back what landed.

        Raises:
            ReadOnlyError: read-only mode or a migration (checked again now).
            KafkaRuleError: the topic appeared or was marked for deletion since the plan.
            ConcurrentChangeError: the ZooKeeper path lost a race (nothing written).
            KzcError: the cluster holds a different assignment than planned.
        """
        facts = self._writable_facts(plan.via)
        check_not_marked_for_deletion(facts, plan.topic)
        if plan.topic in facts.topic_names:
            raise KafkaRuleError(f"Topic '{plan.topic}' already exists.", "TopicExistsException")
        if before_write is not None:
            before_write({})
        if self.admin is not None and plan.via == VIA_ADMIN:
            create_via_admin(self.admin, plan)
        else:
            create_via_zookeeper(self.session, plan, facts)
        stored = self._stored(plan.topic, [p for p, _ in plan.assignment])
        _check_landed(plan.topic, plan.assignment, stored)
        return CreateResult(plan, stored)

    # ---- expand ---------------------------------------------------------------------------------

    def plan_expand(self, request: ExpandRequest, via: str | None = None) -> ExpandPlan:
        """Validate a partition increase and compute the new replicas; nothing is written.

        Raises:
            KafkaRuleError, GuardError: see ``core.topics.planning.plan_expand``.
        """
        validate_topic_name(request.topic)  # Kafka's message, before '..' becomes a path
        facts = self.reader.facts()
        live = self.reader.topic(request.topic)
        if request.keep_unknown_fields:
            path = Route(VIA_ZOOKEEPER, "--keep-unknown-fields: written through ZooKeeper, which keeps every byte")
        else:
            path = self.route(facts, CREATE_PARTITIONS, _EXPAND_TOOL, via)
        via = path.via
        plan = plan_expand(
            facts, live, request, via=via, blocked=self.blocked(facts, via), znode_limit=self.settings.jute_maxbuffer
        )
        plan = _with_path(plan, path)
        unknown = unknown_topic_fields(plan.topic_raw)
        if via == VIA_ADMIN and unknown:
            plan = replace(
                plan,
                warnings=(
                    *plan.warnings,
                    f"the broker rewrites /brokers/topics/{plan.topic} and drops its field(s) unknown to Kafka: "
                    f"{', '.join(unknown)}; add --keep-unknown-fields to write through ZooKeeper instead, which "
                    "keeps every byte",
                ),
            )
        size = len(add_partitions_to_raw(plan.topic_raw, plan.new_assignment))
        check_topic_znode_size(plan.topic, size, self.settings.jute_maxbuffer, "this expansion", exact=True)
        if self.admin is not None and via == VIA_ADMIN and plan.blocked is None:
            self.admin.create_partitions(
                plan.topic, plan.target_partitions, [r for _, r in plan.new_assignment], validate_only=True
            )
            plan = _with_check(plan, Check("broker validation", "ok", "the brokers accept it (validate_only)"))
        return plan

    def apply_expand(self, plan: ExpandPlan, before_write: BeforeWrite | None = None) -> ExpandResult:
        """Add the planned partitions; refuse if ``/brokers/topics/<t>`` changed since the plan.

        Raises:
            ReadOnlyError: read-only mode or a migration.
            GuardError: the topic was marked for deletion since the plan.
            ConcurrentChangeError: the topic znode changed since the plan (nothing written).
            KzcError: the cluster holds a different assignment than planned.
        """
        facts = self._writable_facts(plan.via)
        check_not_marked_for_deletion_on_expand(facts, plan.topic)
        if before_write is not None:
            before_write(self.before_state([plan.topic]))
        if self.admin is not None and plan.via == VIA_ADMIN:
            live = self.reader.topic(plan.topic)
            now = live.zk_version if live else "deleted"
            if now != plan.topic_zk_version:
                raise ConcurrentChangeError(
                    f"{topic_path(plan.topic)} changed since the plan was made (version "
                    f"{plan.topic_zk_version}, now {now}); nothing was written: make the plan again"
                )
            expand_via_admin(self.admin, plan)
        else:
            expand_via_zookeeper(self.session, plan)
        stored = self._stored(plan.topic, [p for p, _ in plan.new_assignment])
        _check_landed(plan.topic, plan.new_assignment, stored)
        return ExpandResult(plan, stored)

    # ---- delete ---------------------------------------------------------------------------------

    def plan_delete(self, request: DeleteRequest, via: str | None = None) -> DeletePlan:
        """Select and check the topics to delete; nothing is written.

        ``delete.topic.enable`` is read from the controller through the AdminClient when there is one;
        otherwise it is unknown and the plan says so.

        Raises:
            UsageError: bad selection or regex.
            GuardError: internal topic, already marked, ``delete.topic.enable=false``.
            KafkaRuleError: a topic does not exist.
        """
        facts = self.reader.facts()
        topics = select_topics(facts, request)
        live = self.reader.topics(t for t in topics if t in facts.topic_names)
        check_deletable(facts, topics, live)
        enabled, source = self.delete_topic_enable(facts)
        path = self.route(facts, DELETE_TOPICS, _DELETE_TOOL, via)
        plan = plan_delete(
            facts,
            request,
            topics,
            live,
            via=path.via,
            delete_topic_enable=enabled,
            delete_topic_enable_source=source,
            blocked=self.blocked(facts, path.via),
        )
        return _with_path(plan, path)

    def apply_delete(self, plan: DeletePlan, before_write: BeforeWrite | None = None) -> DeleteResult:
        """Mark the planned topics for deletion (AdminClient DeleteTopics, or the ZooKeeper markers).

        Raises:
            ReadOnlyError: read-only mode or a migration.
            GuardError, KafkaRuleError: a topic vanished, became internal-looking or was marked meanwhile.
        """
        facts = self._writable_facts(plan.via)
        check_deletable(facts, plan.topics)
        if before_write is not None:
            before_write(self.before_state(plan.topics))
        if self.admin is None or plan.via != VIA_ADMIN:
            delete_via_zookeeper(self.session, plan)
            return DeleteResult(plan, plan.topics)
        outcome = delete_via_admin(self.admin, plan)
        marked = tuple(t for t in plan.topics if outcome[t] is None)
        errors = tuple((t, str(e)) for t in plan.topics if (e := outcome[t]) is not None)
        refused = tuple(
            (t, e.kafka_exception if isinstance(e, KafkaRuleError) else type(e).__name__)
            for t in plan.topics
            if isinstance(e := outcome[t], KafkaRuleError | GuardError)
        )
        return DeleteResult(plan, marked, errors, refused)

    def delete_topic_enable(self, facts: ClusterFacts) -> tuple[bool | None, str]:
        """The controller's ``delete.topic.enable`` and where it came from (or why it is unknown)."""
        if self.admin is None:
            return None, "no --bootstrap-server: it is a static broker config, not readable through ZooKeeper"
        caps = self.capabilities.get(facts.brokers)
        lacking = None if caps is None else caps.lacking(DESCRIBE_CONFIGS)
        if lacking is not None:
            # Such a broker predates 0.11, and delete.topic.enable defaulted to false before 1.0.
            return None, f"{lacking}; it defaults to false on such a broker unless server.properties sets it"
        candidates = [facts.controller_id()] if facts.controller_id() is not None else []
        candidates += [b for b in sorted(facts.broker_ids) if b not in candidates]
        problems = []
        # Two tries: the controller, then one other broker (unreachable brokers cost a timeout each).
        for broker in candidates[:2]:
            assert broker is not None
            try:
                value = self.admin.broker_configs(broker, [_DELETE_TOPIC_ENABLE]).get(_DELETE_TOPIC_ENABLE)
            except KzcError as exc:
                problems.append(f"broker {broker}: {exc}")
                continue
            role = "the controller" if broker == facts.controller_id() else "a broker"
            if value is None:
                problems.append(f"broker {broker} did not list it")
                continue
            return value.strip().lower() == "true", f"read from broker {broker}, {role}"
        return None, "could not read it: " + ("; ".join(problems) or "no broker registered")

    # ---- the one plan -> audit -> apply sequence --------------------------------------------------

    @overload
    def apply(self, plan: CreatePlan, attempt: Attempt | None = None) -> CreateResult: ...
    @overload
    def apply(self, plan: ExpandPlan, attempt: Attempt | None = None) -> ExpandResult: ...
    @overload
    def apply(self, plan: DeletePlan, attempt: Attempt | None = None) -> DeleteResult: ...

    def apply(self, plan: Plan, attempt: Attempt | None = None) -> Result:
        """Apply ``plan``, audited: the intent line right before the write, the outcome line after.

        ``attempt`` is an audit attempt the caller opened (to record its own arguments); without one the
        attempt is opened here with the plan as its arguments. A delete the brokers refused for every
        topic is recorded as ``refused`` and raises; one they refused for some topics is ``applied``,
        with the refusals in ``errors``.

        Raises:
            ReadOnlyError, GuardError, KafkaRuleError, ConcurrentChangeError: refused (nothing written).
            KzcError: the write failed, or landed differently from the plan.
        """
        if attempt is None:
            with self.audit.attempt(f"topic {_operation(plan)}", plan_summary(plan)) as own:
                return self.apply(plan, own)
        operation = _operation(plan)

        def intent(before: dict[str, Any]) -> None:
            details: dict[str, Any] = {"via": plan.via, "path": path_reason(plan), "plan": plan_summary(plan)}
            if before:
                details["before"] = before
            attempt.intent(f"sending the {operation} via {plan.via}", **details)

        if isinstance(plan, CreatePlan):
            created = self.apply_create(plan, intent)
            attempt.applied(f"created topic {plan.topic}", **created.to_json())
            return created
        if isinstance(plan, ExpandPlan):
            expanded = self.apply_expand(plan, intent)
            attempt.applied(f"expanded {plan.topic} to {plan.target_partitions} partitions", **expanded.to_json())
            return expanded
        deleted = self.apply_delete(plan, intent)
        if deleted.marked:
            attempt.applied(f"marked {len(deleted.marked)} topic(s) for deletion", **deleted.to_json())
            return deleted
        message = "the brokers refused every deletion: " + "; ".join(f"{t}: {e}" for t, e in deleted.errors)
        refused = dict(deleted.refused)
        if refused and all(topic in refused for topic, _ in deleted.errors):
            attempt.refused(message, **deleted.to_json())
            raise KafkaRuleError(message, next(iter(refused.values())))
        raise KzcError(message)

    def before_state(self, topics: Sequence[str]) -> dict[str, Any]:
        """What ``topics`` look like now, for the audit log: topic and config znodes as stored, versions, id."""
        live = self.reader.topics(topics)
        state: dict[str, Any] = {}
        for topic in topics:
            entry: dict[str, Any] = {"topic_znode": None}
            if (found := live.get(topic)) is not None:
                entry["topic_znode"] = found.raw.decode("utf-8", "replace")
                entry["topic_znode_version"] = found.zk_version
                if isinstance(found.assignment, TopicAssignment):
                    entry["topic_id"] = found.assignment.topic_id
                    entry["partitions"] = found.assignment.partition_count
            config = self.reader.topic_config(topic)
            entry["config_znode"] = config[0].decode("utf-8", "replace") if config else None
            if config:
                entry["config_znode_version"] = config[1]
            state[topic] = entry
        return state

    # ---- progress -------------------------------------------------------------------------------

    def online_progress(self, topic: str, partitions: Sequence[int]) -> OnlineProgress:
        """One look: which of ``partitions`` have a leader."""
        return online_progress(self.reader, topic, partitions)

    def wait_online(
        self,
        topic: str,
        partitions: Sequence[int],
        timeout: float,
        on_change: Callable[[OnlineProgress], None] | None = None,
    ) -> OnlineProgress:
        """Wait until every partition has a leader (``ProgressTimeout`` with the reasons otherwise)."""
        return wait_online(self.reader, topic, partitions, timeout, on_change)

    def deletion_progress(self, topics: Sequence[str]) -> DeleteProgress:
        """One look: which topics are gone, and what holds the others (zk-layout §7.4)."""
        return deletion_progress(self.reader, topics)

    def wait_deleted(
        self, topics: Sequence[str], timeout: float, on_change: Callable[[DeleteProgress], None] | None = None
    ) -> DeleteProgress:
        """Wait until the controller removed every topic (``ProgressTimeout`` with the reasons otherwise)."""
        return wait_deleted(self.reader, topics, timeout, on_change)

    # ---- internals ------------------------------------------------------------------------------

    def _writable_facts(self, via: str) -> ClusterFacts:
        facts = self.writable_facts(via == VIA_ADMIN)
        if self.admin is not None:
            # A KRaft controller drops a forwarded request whose timeout is 0 ("event unable to start processing
            # because of TimeoutException") while the broker still answers success: give it time to run.
            kraft = isinstance(facts.controller, ControllerInfo) and facts.controller.is_kraft
            self.admin.operation_timeout = self.admin.timeout if kraft else 0.0
        return facts

    def _stored(self, topic: str, partitions: Sequence[int]) -> Assignment:
        if self.admin is not None:
            # During a ZooKeeper-to-KRaft migration the KRaft controller acknowledges once it committed the
            # change, and dual-writes ZooKeeper just after: give it a moment to land.
            def landed() -> bool:
                live = self.reader.topic(topic)
                return live is not None and (
                    not isinstance(live.assignment, TopicAssignment)
                    or set(partitions) <= set(live.assignment.partition_ids)
                )

            with suppress(DeadlineExceeded):
                wait_until(landed, _LAND_WAIT_S, f"{topic_path(topic)} to show the change", interval=0.1)
        live = self.reader.topic(topic)
        if live is None:
            raise KzcError(f"the write was acknowledged but /brokers/topics/{topic} does not exist")
        if not isinstance(live.assignment, TopicAssignment):
            raise KzcError(
                f"the write was acknowledged but /brokers/topics/{topic} is unreadable: {live.assignment.reason}"
            )
        return tuple((p, live.assignment.replicas(p)) for p in partitions)


def _check_landed(topic: str, planned: Assignment, stored: Assignment) -> None:
    if planned != stored:
        differ = [p for (p, want), (_, got) in zip(planned, stored, strict=True) if want != got]
        raise KzcError(
            f"{topic_path(topic)} holds a different assignment than the plan for partitions "
            f"{', '.join(map(str, differ))}: check the cluster (was the request forwarded to a KRaft controller?)"
        )


_LAND_WAIT_S = 10.0  # how long an acknowledged change through the brokers may take to show in ZooKeeper
_DELETE_TOPIC_ENABLE = "delete.topic.enable"  # the broker config that allows deletions (DescribeConfigs)

PlanT = TypeVar("PlanT", CreatePlan, ExpandPlan, DeletePlan)
Plan = CreatePlan | ExpandPlan | DeletePlan
Result = CreateResult | ExpandResult | DeleteResult
BeforeWrite = Callable[[dict[str, Any]], None]


def _operation(plan: Plan) -> str:
    if isinstance(plan, CreatePlan):
        return "create"
    return "expand" if isinstance(plan, ExpandPlan) else "delete"


def plan_summary(plan: Plan) -> dict[str, Any]:
    """The plan for an audit line (without the list of checks passed)."""
    data = plan.to_json()
    data.pop("checks", None)
    return data


def _with_check(plan: PlanT, check: Check) -> PlanT:
    return replace(plan, checks=(*plan.checks, check))


def _with_path(plan: PlanT, path: Route) -> PlanT:
    """The plan with the "write path" check first: which path and why."""
    return replace(plan, checks=(Check(WRITE_PATH, "ok", path.reason), *plan.checks))


WRITE_PATH = "write path"
# What Kafka's own tools did where the brokers lack the API (each release's TopicCommand / AdminUtils).
_CREATE_TOOL = "as kafka-topics --create --zookeeper did before 0.10.1 (/config/topics/<t>, then /brokers/topics/<t>)"
_EXPAND_TOOL = (
    "as kafka-topics --alter --zookeeper did before 1.0 (AdminUtils.addPartitions: /brokers/topics/<t> rewritten "
    "with the new partitions; kzc sets it at the version it read)"
)
_DELETE_TOOL = "as kafka-topics --delete --zookeeper did before 0.10.1 (/admin/delete_topics/<t>)"
_ZK_TOOL = "as kafka-topics --zookeeper wrote (deprecated in 2.2, removed in 3.0)"


def path_reason(plan: CreatePlan | ExpandPlan | DeletePlan) -> str | None:
    """Why the plan writes through ``plan.via`` (its "write path" check), for the dry run and the audit."""
    return next((c.detail for c in plan.checks if c.name == WRITE_PATH), None)


def open_topic_ops(
    settings: ConnectionSettings, admin_timeout: float = 15.0, audit: AuditLog | None = None
) -> AbstractContextManager[TopicOps]:
    """A ``TopicOps`` on a fresh ZooKeeper session, and an AdminClient checked reachable when bootstrap servers are
    set (``open_cluster_ops``)."""
    return open_cluster_ops(TopicOps, KafkaAdmin, settings, admin_timeout, audit, check_reachable=True)
