"""``kzc acl check`` against what real SCRAM clients are then able to do, on real secured one-broker clusters
(the ZooKeeper authorizer, super users admin and ANONYMOUS): the run's shared ``secured`` one, and one of this
module's own with ``allow.everyone.if.no.acl.found=true`` told to kzc with ``--authorizer-property``; and on the
plain sandbox (no authorizer), ``kzc acl list`` and ``kzc acl check`` say ACLs are not enforced.

Each round writes a seeded random ACL set through the broker (CreateAcls as the PLAINTEXT admin, a super user),
then for its two users compares ``kzc acl check`` (``--action produce``, ``--action consume``, ``--operation
Describe``, ``--operation Delete``) with a SCRAM client of that principal producing, consuming (in a group,
committing), describing the topic and deleting it; and the console's pane (``access_of``, what the console's
backend answers) with ``kzc acl check --operation`` for every row.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    NewTopic,
    ResourcePatternType,
    ResourceType,
    ScramCredentialInfo,
    ScramMechanism,
    UserScramCredentialUpsertion,
)

from core.config import UserConfig, resolve_settings
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.security.acls import access_of, list_acls
from core.zookeeper.kafka_root import open_kafka_session
from tests.cli_runner import run

SEED = 35
USERS = ("alice-acl", "bob-acl")  # their own on the shared secured cluster (test_security sets alice and bob)
ALICE = USERS[0]
PASSWORD = "pw-" + uuid.uuid4().hex
SUPERS = "super.users=User:admin;User:ANONYMOUS"
CLIENT_HOST = "127.0.0.1"  # where the test's clients connect from, as the broker sees them
AUTH_ERRORS = {KafkaError.TOPIC_AUTHORIZATION_FAILED, KafkaError.GROUP_AUTHORIZATION_FAILED,
               KafkaError.CLUSTER_AUTHORIZATION_FAILED}  # fmt: skip
TOPIC_OPS = (AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.DELETE, AclOperation.ALTER,
             AclOperation.ALL)  # fmt: skip
GROUP_OPS = (AclOperation.READ, AclOperation.DESCRIBE, AclOperation.ALL)


def _with_users(box: Sandbox) -> Sandbox:
    """``box`` once ``USERS`` log in with ``PASSWORD`` and it holds no ACL (the rounds count on theirs alone)."""
    admin = AdminClient({"bootstrap.servers": box.info().bootstrap_servers})
    upserts: list[Any] = [
        UserScramCredentialUpsertion(u, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), PASSWORD.encode())
        for u in USERS
    ]
    for future in admin.alter_user_scram_credentials(upserts).values():
        future.result(timeout=60)
    for user in USERS:  # the broker has read the credential
        wait_until(lambda u=user: _logs_in(box, u), 60, f"{user} to log in", interval=0.5)
    clear_acls(box)
    return box


@pytest.fixture(scope="module")
def acl_secured(secured: Sandbox) -> Sandbox:
    """The run's secured one-broker cluster (allow.everyone.if.no.acl.found=false) with this module's users."""
    return _with_users(secured)


@pytest.fixture(scope="module")
def open_by_default(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A one-broker secured sandbox of its own, with allow.everyone.if.no.acl.found=true."""
    config = {"allow.everyone.if.no.acl.found": "true"}
    box = Sandbox.up(
        tmp_path_factory.mktemp("acl-check-open"), brokers=1, security=True, broker_config=config, timeout=240
    )
    try:
        yield _with_users(box)
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


def _scram(box: Sandbox, user: str) -> dict[str, Any]:
    return {"bootstrap.servers": box.info().sasl_bootstrap_servers, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "SCRAM-SHA-256", "sasl.username": user, "sasl.password": PASSWORD}  # fmt: skip


def _logs_in(box: Sandbox, user: str) -> bool:
    admin = AdminClient(_scram(box, user))
    try:
        admin.list_topics(timeout=5)
        return True
    except KafkaException:
        return False


# ---- what a real client of the principal can do -------------------------------------------------------
def can_produce(box: Sandbox, user: str, topic: str) -> bool:
    results: list[KafkaError | None] = []
    producer = Producer({**_scram(box, user), "message.timeout.ms": 15000})
    producer.produce(topic, b"probe", on_delivery=lambda error, _m: results.append(error))
    assert producer.flush(30) == 0, "the delivery report never came"
    [error] = results
    assert error is None or error.code() in AUTH_ERRORS, error
    return error is None


def can_consume(box: Sandbox, user: str, topic: str, group: str) -> bool:
    """A consumer in ``group`` sees the topic (Metadata: librdkafka only waits when it may not), reads its first
    message and commits it; refused at the first authorization error."""
    consumer = Consumer({**_scram(box, user), "group.id": group, "enable.auto.commit": False})
    try:
        error = consumer.list_topics(topic, timeout=15).topics[topic].error
        if error is not None:
            assert error.code() in AUTH_ERRORS, error
            return False
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])

        def outcome() -> list[bool]:
            message = consumer.poll(0.5)
            if message is None:
                return []
            error = message.error()
            if error is not None:
                return [False] if error.code() in AUTH_ERRORS else []
            try:
                consumer.commit(message=message, asynchronous=False)
            except KafkaException as exc:
                assert exc.args[0].code() in AUTH_ERRORS, exc
                return [False]
            return [True]

        [done] = wait_until(outcome, 30, f"{user}'s consumer to read or be refused")
        return done
    finally:
        consumer.close()


def can_describe(box: Sandbox, user: str, topic: str) -> bool:
    client = AdminClient(_scram(box, user))  # held while its request is out: a collected client aborts it
    metadata = client.list_topics(topic, timeout=15)
    error = metadata.topics[topic].error
    assert error is None or error.code() in AUTH_ERRORS, error
    return error is None


def can_delete(box: Sandbox, user: str, topic: str) -> bool:
    client = AdminClient(_scram(box, user))
    try:
        client.delete_topics([topic], operation_timeout=15)[topic].result(timeout=30)
    except KafkaException as exc:
        assert exc.args[0].code() in AUTH_ERRORS, exc
        return False
    return True


# ---- the cluster's side -------------------------------------------------------------------------------
def admin_of(box: Sandbox) -> AdminClient:
    return AdminClient({"bootstrap.servers": box.info().bootstrap_servers})


def make_topic(box: Sandbox, topic: str) -> None:
    """The topic (created again once a deletion of the same name is done) with one message."""
    admin = admin_of(box)

    def created() -> bool:
        try:
            admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(timeout=30)
            return True
        except KafkaException as exc:
            assert exc.args[0].code() in (KafkaError.TOPIC_ALREADY_EXISTS, KafkaError.UNKNOWN_TOPIC_OR_PART), exc
            return False

    wait_until(created, 60, f"{topic} to be created", interval=0.5)
    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers})
    producer.produce(topic, b"first")
    assert producer.flush(30) == 0


def random_acls(rng: random.Random, topic: str, group: str) -> list[AclBinding]:
    """Maybe a consumer's grants (Read on the group and Read or All on the topic), then 0-3 ACLs per principal
    (``USERS``, User:*) on the topic (literal, a prefix of it, the wildcard) or the
    group, mostly Allow, mostly from any host (else the clients' own address, or another)."""
    found = []
    for principal in (*(f"User:{u}" for u in USERS), "User:*"):
        if principal != "User:*" and rng.random() < 0.6:  # a consumer's grants, so that some consumers may
            read = rng.choice((AclOperation.READ, AclOperation.ALL))
            found += [AclBinding(ResourceType.GROUP, group, ResourcePatternType.LITERAL, principal, "*",
                                 AclOperation.READ, AclPermissionType.ALLOW),
                      AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, principal, "*",
                                 read, AclPermissionType.ALLOW)]  # fmt: skip
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            on_group = rng.random() < 0.3
            kind = ResourceType.GROUP if on_group else ResourceType.TOPIC
            name = group if on_group else topic
            pattern = ResourcePatternType.LITERAL
            shape = rng.random()
            if shape < 0.2:
                pattern, name = ResourcePatternType.PREFIXED, name[: rng.randrange(3, len(name))]
            elif shape < 0.3:
                name = "*"
            host = rng.choice(("*", "*", "*", "*", CLIENT_HOST, "10.9.9.9"))
            operation = rng.choice(GROUP_OPS if on_group else TOPIC_OPS)
            permission = AclPermissionType.DENY if rng.random() < 0.3 else AclPermissionType.ALLOW
            found.append(AclBinding(kind, name, pattern, principal, host, operation, permission))
    return list({(b.restype, b.name, b.resource_pattern_type, b.principal, b.host, b.operation,
                  b.permission_type): b for b in found}.values())  # fmt: skip


def write_acls(box: Sandbox, acls: list[AclBinding]) -> None:
    admin = admin_of(box)
    for future in admin.create_acls(acls).values() if acls else ():
        future.result(timeout=30)


def clear_acls(box: Sandbox) -> None:
    every = AclBindingFilter(
        ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY, AclPermissionType.ANY
    )
    admin = admin_of(box)
    for future in admin.delete_acls([every]).values():
        future.result(timeout=30)


def kzc(capsys: pytest.CaptureFixture[str], box: Sandbox, *argv: str) -> tuple[int, Any, str]:
    info = box.info()
    return run(capsys, *argv, "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers)


def check(capsys: pytest.CaptureFixture[str], box: Sandbox, props: list[str], principal: str, *what: str,
          host: str = CLIENT_HOST) -> dict[str, Any]:  # fmt: skip
    flags = [f for p in props for f in ("--authorizer-property", p)]
    code, out, err = kzc(capsys, box, "acl", "check", "--principal", principal, *what, "--host", host, "--json", *flags)
    assert code == 0 and isinstance(out, dict), (out, err)
    return out


@dataclass
class Tally:
    """Every case compared, what the clients could do per kind, and each mismatch with its ACLs and kzc's reason."""

    outcomes: dict[str, set[bool]] = field(default_factory=dict)
    cases: int = 0
    mismatches: list[str] = field(default_factory=list)

    def add(self, what: str, said: dict[str, Any], real: bool, acls: list[AclBinding]) -> None:
        self.cases += 1
        self.outcomes.setdefault(what.split()[-1], set()).add(real)
        if said["allowed"] != real:
            self.mismatches.append(
                f"{what}: kzc {said['allowed']} ({said['decided_by']}), the client {real}; "
                f"ACLs {[str(a) for a in acls]}"
            )


def rounds(capsys: pytest.CaptureFixture[str], box: Sandbox, props: list[str], count: int, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    for n in range(count):
        topic, group = f"acl-{seed}-{n}-{uuid.uuid4().hex[:6]}", f"grp-{seed}-{n}"
        make_topic(box, topic)
        acls = random_acls(rng, topic, group)
        write_acls(box, acls)
        try:
            for user in USERS:
                principal = f"User:{user}"
                said = check(capsys, box, props, principal, "--action", "produce", "--topic", topic)
                tally.add(f"{user} produce", said, can_produce(box, user, topic), acls)
                said = check(capsys, box, props, principal, "--action", "consume", "--topic", topic, "--group", group)
                tally.add(f"{user} consume", said, can_consume(box, user, topic, group), acls)
                said = check(capsys, box, props, principal, "--operation", "Describe", "--topic", topic)
                tally.add(f"{user} describe", said, can_describe(box, user, topic), acls)
            pane_agrees(capsys, box, props, topic)
            for user in USERS:
                said = check(capsys, box, props, f"User:{user}", "--operation", "Delete", "--topic", topic)
                deleted = can_delete(box, user, topic)
                tally.add(f"{user} delete", said, deleted, acls)
                if deleted:
                    make_topic(box, topic)
        finally:
            clear_acls(box)
    return tally


def pane_agrees(capsys: pytest.CaptureFixture[str], box: Sandbox, props: list[str], topic: str) -> None:
    """Every row of the console's pane (``access_of`` over ``list_acls``, what ``ZkBackend.topic_access``
    answers) is what ``kzc acl check --operation`` says for that principal, host and operation."""
    info = box.info()
    settings = resolve_settings(UserConfig(), zookeeper=info.zookeeper, bootstrap_server=info.bootstrap_servers)
    pairs = tuple((key, value) for key, _, value in (p.partition("=") for p in props))
    settings = replace(settings, authorizer_properties=pairs)
    with open_kafka_session(settings) as session:
        access = access_of(list_acls(session, settings), "Topic", topic)
    assert any(r[0] == "User:*" for r in access.rows) and any(r[0] == "User:admin" for r in access.rows)
    for principal, host, verdict, operations in access.rows:
        for operation in operations:
            said = check(capsys, box, props, principal, "--operation", operation, "--topic", topic, host=host)
            assert said["allowed"] == (verdict == "allowed"), (principal, host, operation, verdict, said)


def test_acl_check_agrees_with_real_scram_clients(acl_secured: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    tally = rounds(capsys, acl_secured, [SUPERS], 6, SEED)
    assert not tally.mismatches, "\n".join(tally.mismatches)
    # Meaningful: 48 cases, and each of produce, consume, describe, delete both allowed and refused.
    assert tally.cases == 6 * 2 * 4, tally
    assert tally.outcomes == {kind: {True, False} for kind in ("produce", "consume", "describe", "delete")}, tally


def test_allow_everyone_if_no_acl_found_told_to_kzc(
    open_by_default: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    props = [SUPERS, "allow.everyone.if.no.acl.found=true"]
    tally = rounds(capsys, open_by_default, props, 3, SEED + 1)
    assert not tally.mismatches, "\n".join(tally.mismatches)
    assert tally.cases == 3 * 2 * 4, tally
    # No ACL at all on a fresh topic: everyone may; kzc says which rule decided.
    topic = f"free-{uuid.uuid4().hex[:6]}"
    make_topic(open_by_default, topic)
    said = check(capsys, open_by_default, props, f"User:{ALICE}", "--operation", "Describe", "--topic", topic)
    assert said["allowed"] and "allow.everyone.if.no.acl.found=true" in said["decided_by"], said
    assert can_describe(open_by_default, ALICE, topic)
    # Left at Kafka's default, kzc answers false and says the answer rests on the default.
    said = check(capsys, open_by_default, [SUPERS], f"User:{ALICE}", "--operation", "Describe", "--topic", topic)
    assert not said["allowed"] and any("Kafka's default: false" in c for c in said["caveats"]), said


def test_an_all_allow_beside_a_describe_deny_refuses_every_producer(
    acl_secured: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = f"all-{uuid.uuid4().hex[:6]}"
    make_topic(acl_secured, topic)
    write_acls(acl_secured, [
        AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, f"User:{ALICE}", "*", AclOperation.ALL,
                   AclPermissionType.ALLOW),
        AclBinding(ResourceType.TOPIC, topic, ResourcePatternType.LITERAL, f"User:{ALICE}", "*", AclOperation.DESCRIBE,
                   AclPermissionType.DENY),
    ])  # fmt: skip
    try:
        write = check(capsys, acl_secured, [SUPERS], f"User:{ALICE}", "--operation", "Write", "--topic", topic)
        produce = check(capsys, acl_secured, [SUPERS], f"User:{ALICE}", "--action", "produce", "--topic", topic)
        assert write["allowed"] and not produce["allowed"], (write, produce)
        describe = next(s for s in produce["operations"] if s["operation"] == "Describe")
        assert not describe["allowed"] and "denied by Topic:" in describe["decided_by"], produce
        assert not can_produce(acl_secured, ALICE, topic)
    finally:
        clear_acls(acl_secured)


def test_acl_list_names_the_authorizer_and_the_assumed_defaults(
    acl_secured: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kzc(capsys, acl_secured, "acl", "list", "--json")
    assert code == 0, err
    assert out["path"] == "DescribeAcls" and out["authorizer"]["enforced"] is True, out
    assert out["authorizer"]["brokers"][0]["authorizer_class_name"] == "kafka.security.authorizer.AclAuthorizer"
    assert out["authorizer"]["properties"]["defaults_assumed"] == ["super.users", "allow.everyone.if.no.acl.found"]
    code, out, err = kzc(capsys, acl_secured, "acl", "list", "--authorizer-property", SUPERS)
    assert code == 0 and "authorizer kafka.security.authorizer.AclAuthorizer on broker 1" in out, (out, err)


def test_without_an_authorizer_acls_are_said_not_enforced(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: an ACL written through ZooKeeper on brokers without an authorizer is listed as not
    enforced (never "no ACLs"), and every check is allowed by that rule."""
    topic = f"noauth-{uuid.uuid4().hex[:6]}"
    code, _, err = kzc(capsys, sandbox, "acl", "add", "--via", "zookeeper", "--principal", "User:alice",
                       "--operation", "Read", "--topic", topic, "--yes")  # fmt: skip
    assert code == 0, err
    code, out, err = kzc(capsys, sandbox, "acl", "list", "--topic", topic)
    assert code == 0, err
    assert "no authorizer: ACLs are not enforced on brokers 1, 2, 3" in out, out
    assert "SecurityDisabledException" in out and "User:alice Read" in out and "no ACLs" not in out, out
    code, out, err = kzc(capsys, sandbox, "acl", "list", "--topic", topic, "--json")
    assert code == 0 and out["authorizer"]["enforced"] is False, out
    assert [b["security_disabled"] is not None for b in out["authorizer"]["brokers"]] == [True] * 3, out
    code, out, err = kzc(
        capsys, sandbox, "acl", "check", "--principal", "User:bob", "--action", "produce", "--topic", topic, "--json"
    )
    assert code == 0, err
    assert out["allowed"] is True and "no authorizer: ACLs are not enforced" in out["decided_by"], out
    code, out, err = kzc(
        capsys, sandbox, "acl", "check", "--principal", "User:bob", "--operation", "Delete", "--topic", topic
    )
    assert code == 0 and out.startswith("ALLOWED") and "no authorizer" in out, out
