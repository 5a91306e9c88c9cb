"""ACLs of the ZooKeeper authorizer, their change events, and the znodes kzc reads only generically:
delegation tokens and the old Scala consumer's data (zk-layout §2.12, §1)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.kafka.znodes.base import (
    Malformed,
    Row,
    as_object,
    describe,
    load_json,
    load_object,
    opt_int,
    parser,
    req_int,
    req_str,
    utf8_text,
)


@dataclass(frozen=True, slots=True)
class AclEntry:
    """One ACL: ``principal`` (``User:alice``) is allowed or denied ``operation`` from ``host``."""

    principal: str
    permission_type: str
    operation: str
    host: str


@dataclass(frozen=True, slots=True)
class AclResource:
    """``/kafka-acl/<Type>/<name>`` or ``/kafka-acl-extended/<pattern>/<Type>/<name>``: the ACLs of one
    resource pattern. ``version`` is ``None`` for empty data, which Kafka reads as no ACLs."""

    version: int | None
    acls: tuple[AclEntry, ...]


@parser
def parse_acl_resource(path: str, data: bytes) -> AclResource:
    """Parse the ACLs of a resource as Kafka's ``AclEntry.fromBytes`` (version must be 1)."""
    if not data:
        return AclResource(version=None, acls=())
    obj = load_object(data)
    version = req_int(obj, "version")
    if version != 1:
        raise Malformed(f"ACL version {version} is not the version 1 Kafka reads")
    if "acls" not in obj:
        raise Malformed('required field "acls" is missing')
    items = obj["acls"]
    if type(items) is not list:
        raise Malformed(f'"acls" is {describe(items)}, expected an array')
    acls = []
    for index, item in enumerate(items):
        entry = as_object(item, f"ACL {index}")
        principal = req_str(entry, "principal")
        if ":" not in principal:
            raise Malformed(f"ACL {index}: principal {principal[:60]!r} is not in the form Type:name")
        acls.append(
            AclEntry(
                principal,
                req_str(entry, "permissionType"),
                req_str(entry, "operation"),
                req_str(entry, "host"),
            )
        )
    return AclResource(version=version, acls=tuple(acls))


@dataclass(frozen=True, slots=True)
class AclChangeEvent:
    """An ACL change event: the resource whose ACLs brokers must reload.

    Literal patterns (``/kafka-acl-changes``) are the text ``Type:name``, ``version`` ``None``; other
    patterns (``/kafka-acl-extended-changes``, 2.0+) are JSON with version 1.
    """

    version: int | None
    resource_type: str
    name: str
    pattern_type: str


@parser
def parse_acl_change(path: str, data: bytes) -> AclChangeEvent:
    """Parse an ACL change event; the parent znode tells the literal from the extended form."""
    if path.rstrip("/").split("/")[-2:-1] == ["kafka-acl-extended-changes"]:
        obj = load_object(data)
        version = req_int(obj, "version")
        if version > 1:
            raise Malformed(f"Acl change event received for unsupported version: {version}")
        return AclChangeEvent(version, req_str(obj, "resourceType"), req_str(obj, "name"), req_str(obj, "patternType"))
    text = utf8_text(data)
    resource_type, colon, name = text.partition(":")
    if not colon:
        raise Malformed(f"expected a string in format ResourceType:ResourceName but got {text[:80]!r}")
    return AclChangeEvent(None, resource_type, name, "LITERAL")


@dataclass(frozen=True, slots=True)
class GenericKafkaData:
    """A Kafka znode kzc shows but does not model: delegation tokens (1.1+) and their change events, and
    the old consumer's ``/consumers`` data. ``fields`` holds the top-level members of a JSON object,
    each value as compact JSON; it is empty when the data is not a JSON object."""

    text: str
    version: int | None
    fields: tuple[tuple[str, str], ...]


@parser
def parse_generic(path: str, data: bytes) -> GenericKafkaData:
    """Read UTF-8 data, and its top-level fields when it is a JSON object."""
    text = utf8_text(data)
    try:
        value = load_json(data)
    except Malformed:
        return GenericKafkaData(text=text, version=None, fields=())
    if type(value) is not dict:
        return GenericKafkaData(text=text, version=None, fields=())
    fields = tuple((key, json.dumps(item, ensure_ascii=False)) for key, item in value.items())
    version = value.get("version")
    return GenericKafkaData(text=text, version=version if type(version) is int else None, fields=fields)


@parser
def parse_delegation_token(path: str, data: bytes) -> GenericKafkaData:
    """A delegation token: a JSON object with an integer ``version`` (3 since 2.x), read generically."""
    obj = load_object(data)
    version = opt_int(obj, "version")
    if version is None:
        raise Malformed('required field "version" is missing')
    fields = tuple((key, json.dumps(item, ensure_ascii=False)) for key, item in obj.items())
    return GenericKafkaData(text=data.decode("utf-8"), version=version, fields=fields)


# --- explain -----------------------------------------------------------------------------------------

_MAX_ROWS = 500


def explain_acl_resource(value: AclResource) -> list[Row]:
    """Meaning of the ACLs of a resource."""
    if value.version is None:
        return [("acls", "none", "empty data: Kafka reads it as no ACLs")]
    rows: list[Row] = [
        ("version", str(value.version), "ACL format version (always 1)"),
        ("acls", str(len(value.acls)), "ACLs on this resource pattern"),
    ]
    for acl in value.acls[:_MAX_ROWS]:
        host = "any host" if acl.host == "*" else f"host {acl.host}"
        principal = "any principal" if acl.principal == "User:*" else acl.principal
        rows.append(
            (
                "acl",
                f"{acl.permission_type} {acl.operation}",
                f"{acl.permission_type} {principal} to {acl.operation} from {host}",
            )
        )
    if len(value.acls) > _MAX_ROWS:
        rows.append(("...", f"{len(value.acls) - _MAX_ROWS} more", "ACLs not shown"))
    return rows


def explain_acl_change(value: AclChangeEvent) -> list[Row]:
    """Meaning of an ACL change event."""
    version = "absent" if value.version is None else str(value.version)
    return [
        (
            "version",
            version,
            "literal pattern: plain Type:name text" if value.version is None else "extended pattern event (2.0+)",
        ),
        ("resourceType", value.resource_type, "type of the resource whose ACLs changed"),
        ("name", value.name, "resource name or prefix; brokers reload its ACLs"),
        (
            "patternType",
            value.pattern_type,
            "LITERAL matches the name exactly, PREFIXED any name starting with it",
        ),
    ]


_TOKEN_FIELDS = {
    "owner": "principal that owns the token",
    "tokenRequester": "principal that requested it (v3)",
    "renewers": "principals allowed to renew it",
    "issueTimestamp": "when it was issued (ms)",
    "maxTimestamp": "it cannot be renewed past this time (ms)",
    "expiryTimestamp": "it expires at this time unless renewed (ms)",
    "tokenId": "token id",
}


def explain_generic(value: GenericKafkaData) -> list[Row]:
    """Meaning of data kzc reads generically: each JSON field, or the text."""
    if not value.fields:
        return [("data", value.text[:200], "Kafka data shown as text")]
    return [(key, text[:200], _TOKEN_FIELDS.get(key, "field")) for key, text in value.fields]
