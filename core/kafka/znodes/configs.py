"""Dynamic configuration: ``/config/<type>/<name>`` and the change notifications
``/config/changes/config_change_<seq>`` in their 0.8.x, v1 and v2 forms (zk-layout §2.9)."""

from __future__ import annotations

from dataclasses import dataclass

from core.kafka.znodes.base import (
    Malformed,
    Row,
    as_object,
    as_str,
    describe,
    load_json,
    load_object,
    parser,
    req_str,
    req_version,
)

# Entity types a broker handles notifications for (ConfigType.all in 3.9; "ips" from 2.8).
CONFIG_ENTITY_TYPES = ("topics", "clients", "users", "brokers", "ips")


@dataclass(frozen=True, slots=True)
class EntityConfig:
    """``/config/<type>/<name>``: the dynamic config overrides of one entity, as ``(key, value)`` strings."""

    version: int
    config: tuple[tuple[str, str], ...]

    def as_dict(self) -> dict[str, str]:
        """The overrides as a new dict."""
        return dict(self.config)


@parser
def parse_entity_config(path: str, data: bytes) -> EntityConfig:
    """Parse an entity config; every value must be a string (Kafka's ``v.to[String]``).

    Kafka reads unparseable data or a missing ``config`` as "no overrides"; kzc reports it as
    ``Unreadable`` because Kafka always writes ``{"version":1,"config":{...}}``.
    """
    obj = load_object(data)
    version = req_version(obj)
    if "config" not in obj:
        raise Malformed('required field "config" is missing')
    entries = as_object(obj["config"], '"config"')
    return EntityConfig(
        version=version,
        config=tuple((key, as_str(value, f'config "{key}"')) for key, value in entries.items()),
    )


@dataclass(frozen=True, slots=True)
class ConfigChangeNotification:
    """``/config/changes/config_change_<seq>``: a config changed; brokers re-read it.

    All fields are filled for every form: v2 (0.10.1+) ``entity_path`` is split at the first ``/`` into
    ``entity_type`` and (sanitised) ``entity_name``; v1 (0.9 to 0.10.0) builds ``entity_path`` from its
    two fields; ``version`` 0 stands for the 0.8.1 to 0.8.2 form, a bare JSON string naming a topic.
    """

    version: int
    entity_type: str
    entity_name: str
    entity_path: str


@parser
def parse_config_change(path: str, data: bytes) -> ConfigChangeNotification:
    """Parse a config change notification with the checks of Kafka's ``ConfigChangedNotificationHandler``."""
    value = load_json(data)
    if type(value) is str:
        return ConfigChangeNotification(
            version=0, entity_type="topics", entity_name=value, entity_path=f"topics/{value}"
        )
    obj = as_object(value, "the data")
    version = req_version(obj)
    if version == 1:
        entity_type = obj.get("entity_type")
        if entity_type not in ("topics", "clients"):
            raise Malformed(
                "Version 1 config change notification must have 'entity_type' set to "
                f"'clients' or 'topics' (got {describe(entity_type)})"
            )
        name = obj.get("entity_name")
        if type(name) is not str:
            raise Malformed("Version 1 config change notification does not specify 'entity_name'")
        return ConfigChangeNotification(version, str(entity_type), name, f"{entity_type}/{name}")
    if version == 2:
        entity_path = req_str(obj, "entity_path")
        entity_type, slash, name = entity_path.partition("/")
        if not slash or entity_type not in CONFIG_ENTITY_TYPES:
            raise Malformed(
                "Version 2 config change notification must have 'entity_path' starting with one of "
                + ", ".join(f"'{t}/'" for t in CONFIG_ENTITY_TYPES)
            )
        return ConfigChangeNotification(version, entity_type, name, entity_path)
    raise Malformed(f"Config change notification has unsupported version '{version}', supported versions are 1 and 2.")


# --- explain -----------------------------------------------------------------------------------------

# A few overrides operators meet most; anything else is explained generically.
_KNOWN_KEYS = {
    "retention.ms": "how long messages are kept (-1: forever)",
    "retention.bytes": "size limit per partition before old segments are deleted (-1: none)",
    "cleanup.policy": "delete old segments, compact by key, or both",
    "min.insync.replicas": "in-sync replicas needed for acks=all writes",
    "segment.bytes": "log segment size",
    "segment.ms": "time before a segment is rolled",
    "max.message.bytes": "largest record batch accepted",
    "unclean.leader.election.enable": "allow an out-of-sync replica to become leader (data loss)",
    "message.timestamp.type": "CreateTime or LogAppendTime",
    "compression.type": "compression of stored batches",
    "leader.replication.throttled.replicas": "replicas whose leader-side replication is throttled",
    "follower.replication.throttled.replicas": "replicas whose follower-side replication is throttled",
    "leader.replication.throttled.rate": "broker throttle for leader-side replication (bytes/s)",
    "follower.replication.throttled.rate": "broker throttle for follower-side replication (bytes/s)",
    "producer_byte_rate": "produce quota (bytes/s)",
    "consumer_byte_rate": "fetch quota (bytes/s)",
    "request_percentage": "request-handler time quota (percent)",
    "controller_mutation_rate": "topic/partition creation-deletion quota (mutations/s)",
    "connection_creation_rate": "connection creation quota (per second)",
}


def _config_value(key: str, value: str) -> tuple[str, str]:
    # Credentials are stored here in the clear (SCRAM) or encrypted (broker passwords): never display them.
    if key.startswith("SCRAM-SHA-"):
        iterations = next((part for part in value.split(",") if part.startswith("iterations=")), "")
        return f"(hidden) {iterations}".strip(), f"{key} credential of this user (salted hashes, hidden)"
    if "password" in key.lower():
        return "(hidden)", "password, encrypted with the brokers' password.encoder.secret"
    return value, _KNOWN_KEYS.get(key, f"dynamic override of {key}")


def explain_entity_config(value: EntityConfig) -> list[Row]:
    """Meaning of an entity config."""
    rows: list[Row] = [("version", str(value.version), "format version (always 1)")]
    if not value.config:
        rows.append(("config", "{}", "no overrides: defaults apply"))
    for key, text in value.config:
        shown, meaning = _config_value(key, text)
        rows.append((key, shown, meaning))
    return rows


def explain_config_change(value: ConfigChangeNotification) -> list[Row]:
    """Meaning of a config change notification."""
    form = {
        0: "0.8.1 to 0.8.2 form: a JSON string naming a topic (Kafka 0.9+ rejects it)",
        1: "v1 (0.9 to 0.10.0): entity_type + entity_name",
        2: "v2 (0.10.1+): entity_path",
    }.get(value.version, "unknown version")
    return [
        ("version", str(value.version), form),
        (
            "entity_path",
            value.entity_path,
            "brokers re-read /config/"
            + value.entity_path
            + "; notifications older than 15 minutes are purged (a backlog means nobody consumes them)",
        ),
        ("entity_type", value.entity_type, "kind of entity whose config changed"),
        ("entity_name", value.entity_name, "its (URL-encoded) name; <default> is the default entity"),
    ]
