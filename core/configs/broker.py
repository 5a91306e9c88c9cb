"""Per-broker and cluster-default dynamic broker configs: ``/config/brokers/<id>`` and ``/config/brokers/<default>``.

The path, with a ``--bootstrap-server`` (``broker_route``):

- every registered broker serves IncrementalAlterConfigs (2.3+): through it. A broker id goes through the
  AdminClient; the cluster default (an empty BROKER resource name, which librdkafka refuses to send) through
  kzc's own request (``core.brokers.alter_configs``) to a broker with a PLAINTEXT listener.
- brokers 1.1 to 2.2: AlterConfigs with the resource's whole dynamic set, as ``kafka-configs
  --bootstrap-server`` of those releases did (``ConfigCommand.alterBrokerConfig``), sent by kzc to the broker
  itself (the default: to any broker). A password config already set cannot be sent back (ZooKeeper holds it
  encrypted): as Kafka's tool, kzc then asks for every one of them ("All sensitive broker config entries must
  be specified for --alter").

The broker then applies ``DynamicBrokerConfig``'s validation itself (which keys are dynamic, per-broker only or
cluster-wide, password configs encrypted with ``password.encoder.secret``) and kzc previews with
``validate_only``. Otherwise (no ``--bootstrap-server``, brokers before 1.1, no broker kzc's request reaches)
ZooKeeper, as ``kafka-configs --zookeeper`` of the cluster's release writes (``core.kafka.broker_config_rules``:
only the replication throttle rates while brokers run; no password config; no per-broker key at the default),
with the same two writes as a topic config (``core.configs.zk.change_writes``: the config at the version read
and the ``/config/changes`` notification), fenced on ``/controller``.

No secret is shown: values of password-like keys are masked in the preview, the JSON and the audit.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.brokers.alter_configs import alter_broker_whole_set, incremental_alter_broker
from core.brokers.apiversions import ALTER_CONFIGS, DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS, Api
from core.brokers.capabilities import (
    VIA_ADMIN,
    VIA_ZOOKEEPER,
    Capabilities,
    Route,
    read_capabilities,
    wire_endpoint,
    write_route,
)
from core.brokers.changes import ChangeAdmin, ConfigValue
from core.config import PLAINTEXT, KafkaSecurity
from core.configs.plan import ConfigChange, parse_changes
from core.configs.zk import BROKER_DEFAULT, BROKERS, StoredConfig, change_writes, controller_fence, execute, read_config
from core.errors import ConcurrentChangeError, KafkaRuleError, KzcError, UsageError
from core.kafka.broker_config_rules import check_default_keys, check_zookeeper_update, is_password_config
from core.kafka.znodes.paths import broker_config_path
from core.topics.cluster_ops import ClusterOps
from core.topics.facts import ClusterFacts
from core.topics.write import PlannedWrite

BROKER_CONFIG_TOOL = (
    "as kafka-configs --zookeeper did (AdminZkClient.changeBrokerConfig: /config/brokers/<id>, then a "
    "/config/changes notification; kzc sets the config at the version it read)"
)
INCREMENTAL = "IncrementalAlterConfigs"
WHOLE_SET = "AlterConfigs"
ADMIN_TIMEOUT = 15.0
_SECRET_MARKS = ("password", "secret", "jaas.config", "credentials")


def is_secret(key: str) -> bool:
    """Whether ``key``'s value is a secret kzc never shows (password configs and the like)."""
    return any(mark in key.lower() for mark in _SECRET_MARKS)


def masked(config: Mapping[str, str | None]) -> dict[str, str | None]:
    """``config`` with every secret value replaced by ``(secret)``."""
    return {k: ("(secret)" if v is not None and is_secret(k) else v) for k, v in config.items()}


def entity_label(entity: str) -> str:
    """``broker 1`` or ``the cluster default``."""
    return "the cluster default" if entity == BROKER_DEFAULT else f"broker {entity}"


@dataclass(frozen=True)
class BrokerConfigRequest:
    """Set ``updates`` and delete ``deletes`` on broker ``entity`` (an id, or ``<default>``)."""

    entity: str
    updates: tuple[tuple[str, str], ...] = ()
    deletes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The arguments as the audit log records them (secrets masked)."""
        return {"broker": self.entity, "set": masked(dict(self.updates)), "delete": list(self.deletes)}


def parse_broker_request(entity: str, items: Sequence[str], deletes: Sequence[str]) -> BrokerConfigRequest:
    """``KEY=VALUE`` items and keys to delete for a broker id or ``<default>``.

    Raises:
        UsageError: not a broker id, nothing to change, an item without ``=``, a key both set and deleted.
    """
    if entity != BROKER_DEFAULT and not entity.isdigit():
        raise UsageError(f"--broker takes a broker id, got '{entity}'")
    updates, keys = parse_changes(items, deletes, "give KEY=VALUE to set or keys to delete", is_secret)
    return BrokerConfigRequest(entity, updates, keys)


@dataclass(frozen=True)
class BrokerConfigPlan:
    """A checked broker config change: overrides before (with the znode version) and after, the diff, the path."""

    request: BrokerConfigRequest
    before: StoredConfig
    after: tuple[tuple[str, str], ...]
    changes: tuple[ConfigChange, ...]
    via: str
    blocked: str | None = None
    via_reason: str | None = None
    method: str = INCREMENTAL  # on the admin path: IncrementalAlterConfigs or AlterConfigs (the whole set)
    target: tuple[int, str, int] | None = None  # the broker kzc's own request goes to (id, host, port)

    @property
    def entity(self) -> str:
        """The broker id or ``<default>``."""
        return self.request.entity

    @property
    def confirmation(self) -> str:
        """What the user types to confirm: the broker id, or ``default``."""
        return "default" if self.entity == BROKER_DEFAULT else self.entity

    def to_json(self) -> dict[str, Any]:
        """``{"broker", "before", "after", "changes", "via", "path", "zk_version", "blocked"}`` (secrets masked)."""
        return {
            "broker": self.entity,
            "before": masked(dict(self.before.config)),
            "after": masked(dict(self.after)),
            "changes": [_masked_change(c).to_json() for c in self.changes],
            "via": self.via,
            "path": self.via_reason,
            "zk_version": self.before.zk_version,
            "blocked": self.blocked,
            "request": self.method if self.via == VIA_ADMIN else None,
            "sent_to": None if self.target is None else self.target[0],
        }

    def describe(self) -> list[str]:
        """The diff as terminal lines."""
        if self.via != VIA_ADMIN:
            via = "ZooKeeper"
        elif self.target is None:
            via = f"the AdminClient ({self.method})"
        else:
            via = f"{self.method} to broker {self.target[0]} (kzc's own request)"
        head = f"Dynamic config of {entity_label(self.entity)} ({broker_config_path(self.entity)}), via {via}:"
        lines = [head, *(_masked_change(c).describe() for c in self.changes)] if self.changes else [head, "  no change"]
        if self.via_reason:
            lines.append(f"  path: {self.via_reason}")
        if self.blocked:
            lines.append(f"  BLOCKED: {self.blocked}")
        return lines


def _masked_change(change: ConfigChange) -> ConfigChange:
    if not is_secret(change.key):
        return change
    before = None if change.before is None else "(secret)"
    after = None if change.after is None else "(secret)"
    return ConfigChange(change.key, before, after)


def plan_broker_change(
    request: BrokerConfigRequest,
    before: StoredConfig,
    via: str,
    running: Sequence[int],
    before_1_1: bool,
    blocked: str | None = None,
    via_reason: str | None = None,
    method: str = INCREMENTAL,
    target: tuple[int, str, int] | None = None,
) -> BrokerConfigPlan:
    """Check and diff a broker config change (ZooKeeper: the release's own rules; AdminClient: the broker's).

    Raises:
        KafkaRuleError: "Invalid config(s): ..." for keys to delete that are not set; the ZooKeeper path's
            refusal (``core.kafka.broker_config_rules.check_zookeeper_update``).
    """
    current = before.as_dict()
    missing = [k for k in request.deletes if k not in current]
    if missing:
        raise KafkaRuleError(f"Invalid config(s): {','.join(missing)}", "InvalidConfigurationException")
    if via == VIA_ZOOKEEPER:
        check_zookeeper_update(request.updates, request.entity, running, before_1_1, via_reason)
    elif request.entity == BROKER_DEFAULT:
        check_default_keys(k for k, _ in request.updates)
    if via == VIA_ADMIN and method == WHOLE_SET:
        # The whole set is sent back: a password config ZooKeeper holds encrypted cannot be (ConfigCommand).
        kept = sorted(k for k in current if is_password_config(k) and k not in dict(request.updates))
        kept = [k for k in kept if k not in request.deletes]
        if kept:
            raise KafkaRuleError(
                f"All sensitive broker config entries must be specified for --alter, missing entries: {set(kept)} "
                "(AlterConfigs replaces the whole set and ZooKeeper holds them encrypted)",
                "InvalidConfigException",
            )
    after = dict(current)
    after.update(request.updates)
    for key in request.deletes:
        after.pop(key, None)
    changes = tuple(
        ConfigChange(k, current.get(k), after.get(k))
        for k in sorted(set(current) | set(after))
        if current.get(k) != after.get(k)
    )
    return BrokerConfigPlan(
        request, before, tuple(sorted(after.items())), changes, via, blocked, via_reason, method, target
    )


def broker_planned_writes(plan: BrokerConfigPlan, facts: ClusterFacts) -> tuple[PlannedWrite, ...]:
    """What applying ``plan`` sends: the IncrementalAlterConfigs request, or the fence, config and notification."""
    if plan.via == VIA_ADMIN:
        arguments = _admin_arguments(plan)
        if plan.method == WHOLE_SET:
            shown: dict[str, Any] = {"resource": arguments["resource"], "config": masked(dict(plan.after))}
        else:
            shown = {**arguments, "set": masked(arguments["set"])}
        if plan.target is not None:
            shown["broker"] = plan.target[0]
        return (PlannedWrite("admin", plan.method, json.dumps(shown, separators=(",", ":")).encode()),)
    fence = controller_fence(facts, f"{BROKERS} {plan.entity}")
    return (*(() if fence is None else (fence,)), *change_writes(plan.before, dict(plan.after)))


def _admin_arguments(plan: BrokerConfigPlan) -> dict[str, Any]:
    return {
        "resource": {"type": "BROKER", "name": _resource_name(plan.entity)},
        "set": {c.key: c.after for c in plan.changes if c.after is not None},
        "delete": [c.key for c in plan.changes if c.after is None],
    }


def broker_route(
    capabilities: Capabilities | None,
    entity: str,
    brokers: Mapping[int, Any],
    security: KafkaSecurity = PLAINTEXT,
    via: str | None = None,
) -> tuple[Route, str, tuple[int, str, int] | None]:
    """The path of a change of broker ``entity``'s dynamic config (see the module; ``write_route``, the one
    ``--via`` decision): the route, the request (IncrementalAlterConfigs or AlterConfigs) and the broker kzc's
    own request goes to, on its listener of ``security``'s protocol (None: the AdminClient, or ZooKeeper).
    ``capabilities`` None: no ``--bootstrap-server``; ``via`` (``--via``) forces a path.

    Raises:
        UsageError: ``--via admin`` where the brokers' path cannot be taken (the reason).
    """

    def decided(api: Api = INCREMENTAL_ALTER_CONFIGS, unsendable: str | None = None) -> Route:
        return write_route(capabilities, api, via, BROKER_CONFIG_TOOL, BROKER_CONFIG_TOOL, unsendable)

    if capabilities is None or via == VIA_ZOOKEEPER:
        return decided(), INCREMENTAL, None
    incremental = capabilities.lacking(INCREMENTAL_ALTER_CONFIGS)
    if incremental is None and entity != BROKER_DEFAULT:  # through the AdminClient
        return decided(), INCREMENTAL, None
    if incremental is None:
        method, api = INCREMENTAL, INCREMENTAL_ALTER_CONFIGS
        why = "every broker serves IncrementalAlterConfigs (Kafka 2.3+)"
    elif capabilities.lacking(DESCRIBE_CONFIGS, (1, 32767)) is None and capabilities.lacking(ALTER_CONFIGS) is None:
        method, api = WHOLE_SET, ALTER_CONFIGS
        why = (
            f"{incremental}; brokers 1.1+ take dynamic configs through AlterConfigs with the whole set, as "
            "kafka-configs --bootstrap-server of 1.1 to 2.2 sent them"
        )
    else:
        lacking = capabilities.lacking(DESCRIBE_CONFIGS, (1, 32767)) or incremental
        unsendable = f"{lacking}: brokers before 1.1 have no dynamic broker configs but the throttle rates"
        return decided(ALTER_CONFIGS, unsendable), INCREMENTAL, None
    wanted = [int(entity)] if entity != BROKER_DEFAULT else [b.broker for b in capabilities.brokers]
    targets = ((b, wire_endpoint(brokers.get(b), security)) for b in wanted)
    broker, endpoint = next(((b, e) for b, e in targets if e is not None), (None, None))
    if broker is None or endpoint is None:
        unsendable = f"{why}, but no broker to send kzc's own request to has a {security.protocol} listener"
        return decided(api, unsendable), INCREMENTAL, None
    name = "the cluster default (an empty BROKER resource name, which librdkafka refuses to send)"
    what = name if entity == BROKER_DEFAULT else f"broker {entity}'s config"
    reason = f"{why}: {what} sent to broker {broker} by kzc's own {method} request"
    return Route(VIA_ADMIN, reason), method, (broker, endpoint.host or "127.0.0.1", endpoint.port)


def _resource_name(entity: str) -> str:
    """The BROKER resource name: the id, or ``""`` for the cluster default (as Kafka's AdminClient names it)."""
    return "" if entity == BROKER_DEFAULT else entity


class BrokerConfigOps(ClusterOps[ChangeAdmin]):
    """Show, plan and apply dynamic broker configs on the cluster behind ``session`` (and ``admin``)."""

    def broker_apis(self, facts: ClusterFacts) -> Capabilities:
        """The registered brokers' ApiVersions, read now (kzc's own request: no ``--bootstrap-server`` needed, where
        the ``capabilities`` every ops holds asks only with one)."""
        return read_capabilities(facts.brokers, 5.0, self.settings.kafka_security)

    def describe(self, entity: str) -> tuple[list[ConfigValue] | None, str | None]:
        """What the broker reports for ``entity`` (DescribeConfigs on the BROKER resource), or why it cannot."""
        if self.admin is None:
            return None, "the static values and sources need --bootstrap-server (DescribeConfigs)"
        lacking = self.broker_apis(self.reader.facts()).lacking(DESCRIBE_CONFIGS)
        if lacking is not None:
            return None, f"the brokers cannot report their configs: {lacking}"
        return self.admin.describe_config(BROKERS, _resource_name(entity)), None

    def plan(self, request: BrokerConfigRequest, via: str | None = None) -> BrokerConfigPlan:
        """Read, check and diff; on the brokers' path the broker validates too (``validate_only``). ``via``
        (``--via``) forces the path (``broker_route``).

        Raises:
            KafkaRuleError: see ``plan_broker_change``; the broker's refusal.
            UsageError: ``--via admin`` where the brokers' path cannot be taken.
        """
        facts = self.reader.facts()
        before = read_config(self.session, BROKERS, request.entity)
        blocked = self.read_only(facts)
        caps = self.broker_apis(facts)
        before_1_1 = caps.lacking(DESCRIBE_CONFIGS, (1, 32767)) is not None
        path, method, target = broker_route(
            caps if self.admin is not None else None, request.entity, facts.brokers, self.settings.kafka_security, via
        )
        plan = plan_broker_change(
            request, before, path.via, sorted(facts.brokers), before_1_1, blocked, path.reason, method, target
        )
        if self.admin is not None and plan.via == VIA_ADMIN and blocked is None and plan.changes:
            self._send(plan, validate_only=True)
        return plan

    def _send(self, plan: BrokerConfigPlan, validate_only: bool = False) -> None:
        """The admin path's request: the AdminClient's IncrementalAlterConfigs, or kzc's own request."""
        arguments = _admin_arguments(plan)
        name = _resource_name(plan.entity)
        if plan.target is None:
            assert self.admin is not None
            self.admin.alter_config(BROKERS, name, arguments["set"], arguments["delete"], validate_only=validate_only)
            return
        broker, host, port = plan.target
        who = f"broker {broker}"
        security = self.settings.kafka_security
        if plan.method == WHOLE_SET:
            alter_broker_whole_set(host, port, ADMIN_TIMEOUT, name, dict(plan.after), validate_only, who, security)
        else:
            incremental_alter_broker(
                host, port, ADMIN_TIMEOUT, name, arguments["set"], arguments["delete"], validate_only, who, security
            )

    def apply(self, plan: BrokerConfigPlan) -> StoredConfig:
        """Write ``plan``; returns what ZooKeeper holds afterwards.

        Raises:
            ReadOnlyError: read-only mode or a migration. ConcurrentChangeError: the znode changed since the plan.
            KzcError: ZooKeeper holds other keys than planned afterwards.
        """
        facts = self.writable_facts()
        path = broker_config_path(plan.entity)
        now = read_config(self.session, BROKERS, plan.entity)
        if now.zk_version != plan.before.zk_version:
            raise ConcurrentChangeError(
                f"{path} changed since the plan was made (version {plan.before.zk_version}, now {now.zk_version}); "
                "nothing was written: make the plan again"
            )
        if self.admin is not None and plan.via == VIA_ADMIN:
            self._send(plan)
        else:
            execute(
                self.session, broker_planned_writes(plan, facts), f"the config change of {entity_label(plan.entity)}"
            )
        stored = read_config(self.session, BROKERS, plan.entity)
        # The broker stores password configs encrypted: compare keys, and the values of everything else.
        expected = {k: v for k, v in plan.after if not is_secret(k)}
        got = {k: v for k, v in stored.config if not is_secret(k)}
        if got != expected or set(stored.as_dict()) != {k for k, _ in plan.after}:
            raise KzcError(f"{path} holds other configs than planned after the write: check the cluster")
        return stored


@dataclass(frozen=True)
class BrokerConfigRow:
    """One config of a broker as the console lists it: where its value comes from (``source``)."""

    name: str
    value: str | None
    source: str

    def to_json(self) -> dict[str, str | None]:
        """``{"name", "value", "source"}``."""
        return {"name": self.name, "value": self.value, "source": self.source}


@dataclass(frozen=True)
class BrokerConfigsView:
    """A broker's dynamic configs from ZooKeeper (its own and the cluster default, secrets masked) and, where
    the brokers report them, every non-default config with its source; ``note`` says why those are missing."""

    broker: int
    rows: tuple[BrokerConfigRow, ...]
    note: str | None = None


def broker_configs_view(
    broker: int, own: StoredConfig, default: StoredConfig, described: Sequence[ConfigValue] | None, note: str | None
) -> BrokerConfigsView:
    """The rows: the brokers' own report when there is one (it names every source: ``DYNAMIC_BROKER_CONFIG``,
    ``DYNAMIC_DEFAULT_BROKER_CONFIG``, ``STATIC_BROKER_CONFIG``...), else the ZooKeeper overrides."""
    if described is not None:
        rows = [
            BrokerConfigRow(v.name, "(secret)" if v.sensitive or is_secret(v.name) else v.value, v.source)
            for v in described
            if not v.is_default
        ]
        return BrokerConfigsView(broker, tuple(sorted(rows, key=lambda r: (r.source, r.name))), note)
    rows = [BrokerConfigRow(k, v, "DYNAMIC_BROKER_CONFIG") for k, v in masked(own.as_dict()).items()]
    rows += [BrokerConfigRow(k, v, "DYNAMIC_DEFAULT_BROKER_CONFIG") for k, v in masked(default.as_dict()).items()]
    return BrokerConfigsView(broker, tuple(rows), note)


def read_broker_configs(ops: BrokerConfigOps, broker: int) -> BrokerConfigsView:
    """``broker``'s configs now: ZooKeeper's overrides, and DescribeConfigs where the brokers serve it."""
    own = read_config(ops.session, BROKERS, str(broker))
    default = read_config(ops.session, BROKERS, BROKER_DEFAULT)
    try:
        described, note = ops.describe(str(broker))
    except KzcError as exc:
        described, note = None, f"the broker did not report its configs: {exc}"
    return broker_configs_view(broker, own, default, described, note)
