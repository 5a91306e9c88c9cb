"""Kafka's rules for dynamic broker configs written through ZooKeeper, release by release.

- Kafka 0.10.1 to 1.0: the only dynamic broker configs are the replication throttle rates
  (``DynamicConfig.Broker``: ``leader.replication.throttled.rate``, ``follower.replication.throttled.rate``);
  ``DynamicConfig.validate`` refuses any other name: "requirement failed: Unknown Dynamic Configuration
  '<name>'.".
- Kafka 1.1 and later (KIP-226): many broker configs are dynamic, but ``kafka-configs --zookeeper`` writes only
  ``BrokerConfigsUpdatableUsingZooKeeperWhileBrokerRunning`` (the two throttle rates and
  ``replica.alter.log.dirs.io.max.bytes.per.second``) while the broker runs, or, at the cluster default,
  while any broker runs: every other key must go through the brokers (``--bootstrap-server``), which validate
  it (``DynamicBrokerConfig.validateConfigs``: dynamic or not, per-broker only or cluster-wide) and encrypt
  password configs with ``password.encoder.secret`` before storing them. kzc refuses with ConfigCommand's
  message rather than write a plaintext password or an unchecked key.
- With no broker running (the only case ``kafka-configs --zookeeper`` writes other keys, checked in its order):
  per-broker keys at the default, then password configs, are refused as below.
- Password configs (``DynamicBrokerConfig.isPasswordConfig``: keys ending in a PASSWORD-typed name) are stored
  encrypted with the brokers' ``password.encoder.secret``; ``kafka-configs --zookeeper`` refuses them without
  that secret ("password.encoder.secret must be specified to update ..."). kzc never holds that secret, so
  it refuses them on the ZooKeeper path and says the brokers must write them.
- Some dynamic configs exist only per broker (``DynamicBrokerConfig.PerBrokerConfigs``: the SSL keystore and
  truststore, the listeners, and ``listener.name.<l>.<config>`` but the cluster-level listener configs);
  ``validateConfigs`` refuses them at the default: "Cannot update these configs at default cluster level,
  broker id must be specified: Set(...)".
- The rates are ``ConfigDef`` LONGs ``atLeast(0)``: "Invalid value <v> for configuration <k>: Not a number
  of type LONG" / "...: Value must be at least 0".
"""

from __future__ import annotations

from collections.abc import Iterable

from core.errors import KafkaRuleError

LEADER_THROTTLED_RATE = "leader.replication.throttled.rate"
FOLLOWER_THROTTLED_RATE = "follower.replication.throttled.rate"
ALTER_LOG_DIRS_RATE = "replica.alter.log.dirs.io.max.bytes.per.second"
THROTTLE_RATES_BEFORE_1_1 = (LEADER_THROTTLED_RATE, FOLLOWER_THROTTLED_RATE)
UPDATABLE_WHILE_RUNNING = (LEADER_THROTTLED_RATE, FOLLOWER_THROTTLED_RATE, ALTER_LOG_DIRS_RATE)
# The PASSWORD-typed broker configs (KafkaConfig / SslConfigs / SaslConfigs); a key ending in one is a
# password config (``DynamicBrokerConfig.isPasswordConfig``), listener-prefixed ones included.
PASSWORD_CONFIGS = (
    "ssl.key.password",
    "ssl.keystore.password",
    "ssl.truststore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.truststore.certificates",
    "sasl.jaas.config",
    "sasl.login.callback.handler.class.password",
    "delegation.token.secret.key",
    "delegation.token.master.key",
)
# DynamicBrokerConfig.PerBrokerConfigs: SslConfigs.RECONFIGURABLE_CONFIGS and the listener configs, less the
# cluster-level ones (ClusterLevelListenerConfigs).
PER_BROKER_CONFIGS = (
    "ssl.keystore.type",
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.key.password",
    "ssl.truststore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
    "ssl.truststore.certificates",
    "advertised.listeners",
    "listeners",
    "listener.security.protocol.map",
)
CLUSTER_LEVEL_LISTENER_CONFIGS = ("max.connections", "max.connection.creation.rate", "num.network.threads")
_INFO = (
    "Broker configuration updates using ZooKeeper are supported for bootstrapping before brokers are started to "
    "enable encrypted password configs to be stored in ZooKeeper."
)


def scala_set(keys: Iterable[str]) -> str:
    """A set of names as Scala prints one: ``Set(a, b)``."""
    return f"Set({', '.join(keys)})"


def validate_rate(key: str, value: str) -> None:
    """A throttle rate as ``ConfigDef`` parses a LONG ``atLeast(0)``.

    Raises:
        KafkaRuleError: Kafka's ``ConfigException`` message.
    """
    try:
        number = int(value.strip())
    except ValueError:
        raise KafkaRuleError(
            f"Invalid value {value} for configuration {key}: Not a number of type LONG", "ConfigException"
        ) from None
    if not -(2**63) <= number < 2**63:
        raise KafkaRuleError(
            f"Invalid value {value} for configuration {key}: Not a number of type LONG", "ConfigException"
        )
    if number < 0:
        raise KafkaRuleError(
            f"Invalid value {value} for configuration {key}: Value must be at least 0", "ConfigException"
        )


def is_password_config(key: str) -> bool:
    """``DynamicBrokerConfig.isPasswordConfig``: the key ends in a PASSWORD-typed config name."""
    return any(key.endswith(name) for name in PASSWORD_CONFIGS)


def per_broker_keys(keys: Iterable[str]) -> list[str]:
    """Those of ``keys`` that exist only per broker (``DynamicBrokerConfig.perBrokerConfigs``)."""
    found = []
    for key in keys:
        if key in PER_BROKER_CONFIGS:
            found.append(key)
        elif key.startswith("listener.name.") and key.count(".") >= 3:
            base = key.split(".", 3)[3]
            if base not in CLUSTER_LEVEL_LISTENER_CONFIGS:
                found.append(key)
    return found


def check_default_keys(keys: Iterable[str]) -> None:
    """The cluster default takes no per-broker config (``DynamicBrokerConfig.validateConfigs``).

    Raises:
        KafkaRuleError: Kafka's ``ConfigException`` message.
    """
    per_broker = per_broker_keys(keys)
    if per_broker:
        raise KafkaRuleError(
            "Cannot update these configs at default cluster level, broker id must be specified: "
            + scala_set(per_broker),
            "ConfigException",
        )


def check_zookeeper_update(
    updates: Iterable[tuple[str, str]], entity: str, running: Iterable[int], before_1_1: bool, why: str | None = None
) -> None:
    """Whether ``kafka-configs --zookeeper`` of the cluster's release would write ``updates`` to
    ``/config/brokers/<entity>`` (``<default>``: the cluster default) with ``running`` brokers registered.

    Raises:
        KafkaRuleError: the release's own refusal (see the module), or a rate's ``ConfigException``.
    """
    pairs = list(updates)
    if before_1_1:
        for key, _ in pairs:
            if key not in THROTTLE_RATES_BEFORE_1_1:
                raise KafkaRuleError(
                    f"requirement failed: Unknown Dynamic Configuration '{key}'. (Kafka before 1.1 has no dynamic "
                    f"broker configs but {' and '.join(THROTTLE_RATES_BEFORE_1_1)})",
                    "IllegalArgumentException",
                )
    others = [k for k, _ in pairs if k not in UPDATABLE_WHILE_RUNNING]
    if others:
        message = f"--bootstrap-server option must be specified to update broker configs {scala_set(others)}."
        live = sorted(running)
        after = f" ({why})" if why else ""
        if entity != "<default>" and entity.isdigit() and int(entity) in live:
            raise KafkaRuleError(
                f"requirement failed: {message} when broker {entity} is running. {_INFO}{after}",
                "IllegalArgumentException",
            )
        if entity == "<default>" and live:
            raise KafkaRuleError(
                f"requirement failed: {message} for default cluster if any broker is running. {_INFO}{after}",
                "IllegalArgumentException",
            )
        # No broker runs: ConfigCommand.preProcessBrokerConfigs validates, then needs the encoder secret.
        if entity == "<default>":
            check_default_keys(others)
        passwords = [k for k in others if is_password_config(k)]
        if passwords:
            raise KafkaRuleError(
                f"requirement failed: password.encoder.secret must be specified to update {scala_set(passwords)}. "
                "(password configs are stored encrypted with the brokers' password.encoder.secret, which kzc "
                "never holds: they go through the brokers, --bootstrap-server, never into ZooKeeper from kzc)",
                "IllegalArgumentException",
            )
        raise KafkaRuleError(
            f"{message} kzc writes only {scala_set(UPDATABLE_WHILE_RUNNING)} through ZooKeeper: other dynamic broker "
            "configs of a stopped broker need the validation and password encryption of that release's "
            "kafka-configs --zookeeper",
            "IllegalArgumentException",
        )
    for key, value in pairs:
        validate_rate(key, value)
