"""A thin wrapper over confluent_kafka's ``AdminClient`` for topic admin: explicit assignments, timeouts,
and Kafka's errors as ``KzcError`` carrying Kafka's own message. Its subclasses add the other families of
requests over the same client: ``core.brokers.group_admin`` (consumer groups and offsets) and
``core.brokers.changes`` (configs and leader elections).

Every call blocks until the brokers answer or ``timeout`` passes, whatever happens in between: a request
that could not reach the controller (it died, or moved) is sent again through a fresh client, whose
metadata names the new controller, until the deadline. Such a request was never delivered, so sending it
again cannot apply it twice. ``check_reachable`` fails fast, with the real cause (a name that does not
resolve, a refused connection), when no bootstrap server can be reached at all. Requests go out with
``operation_timeout=0``: the broker answers as soon as it has written to ZooKeeper and kzc follows the
controller's progress itself (``core.topics.progress``), so a stuck deletion never turns into a timeout
error after the write succeeded. During a ZooKeeper-to-KRaft migration the caller sets ``operation_timeout``:
a KRaft controller drops a forwarded request with timeout 0 while the broker answers success.
librdkafka's own log lines go to the ``kzc.kafka`` logger, never to the terminal.

One ``KafkaAdmin`` may serve several threads at once (the console reads groups, offsets and configs in
parallel): no lock is held across a network call, and each call is bounded by ``timeout``. A client that
let a call run past its own deadline is wedged: the next call goes through a fresh client. librdkafka
clients are destroyed on one thread of their own (``kzc-kafka-closer``), never while a thread is inside
a call on them and never by Python's garbage collector: a client destroyed from a librdkafka thread
(a result callback that triggers a collection) aborts the process, and one cleared by the cyclic
collector before it is destroyed (its thread-local state gone) can crash it.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from functools import partial
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient
from confluent_kafka.admin._config import ConfigResource  # re-exported by confluent_kafka.admin, untyped there
from confluent_kafka.cimpl import NewPartitions, NewTopic

from core.brokers.client_config import REFUSAL_FINAL_S, HandshakeRefusals, kafka_client_config
from core.config import KafkaSecurity
from core.connect import HostPort, bootstrap_string
from core.errors import ConnectError, KafkaRuleError, KzcError

_LOG = logging.getLogger("kzc.kafka")
_LOG.addHandler(logging.NullHandler())
_LOG.propagate = False

# Kafka error codes that mean "Kafka's rules said no" (exit 2), with the Java exception Kafka raises.
_RULE_ERRORS = {
    KafkaError.TOPIC_ALREADY_EXISTS: "TopicExistsException",
    KafkaError.INVALID_PARTITIONS: "InvalidPartitionsException",
    KafkaError.INVALID_REPLICATION_FACTOR: "InvalidReplicationFactorException",
    KafkaError.INVALID_REPLICA_ASSIGNMENT: "InvalidReplicaAssignmentException",
    KafkaError.INVALID_CONFIG: "InvalidConfigurationException",
    KafkaError.TOPIC_EXCEPTION: "InvalidTopicException",
    KafkaError.REASSIGNMENT_IN_PROGRESS: "ReassignmentInProgressException",
    KafkaError.UNKNOWN_TOPIC_OR_PART: "UnknownTopicOrPartitionException",
    KafkaError.TOPIC_DELETION_DISABLED: "TopicDeletionDisabledException",
    KafkaError.POLICY_VIOLATION: "PolicyViolationException",
    KafkaError.INVALID_REQUEST: "InvalidRequestException",
    KafkaError.TOPIC_AUTHORIZATION_FAILED: "TopicAuthorizationException",
    KafkaError.CLUSTER_AUTHORIZATION_FAILED: "ClusterAuthorizationException",
    KafkaError.NON_EMPTY_GROUP: "GroupNotEmptyException",
    KafkaError.UNKNOWN_MEMBER_ID: "UnknownMemberIdException",
    KafkaError.REBALANCE_IN_PROGRESS: "RebalanceInProgressException",
    KafkaError.GROUP_AUTHORIZATION_FAILED: "GroupAuthorizationException",
    KafkaError.INVALID_GROUP_ID: "InvalidGroupIdException",
}
# Errors that mean the brokers could not be reached or did not answer in time.
_CONNECT_ERRORS = {
    KafkaError._TIMED_OUT,
    KafkaError._TRANSPORT,
    KafkaError._ALL_BROKERS_DOWN,
    KafkaError._RESOLVE,
    KafkaError._SSL,
    KafkaError._AUTHENTICATION,
    KafkaError.REQUEST_TIMED_OUT,
    KafkaError.NOT_CONTROLLER,
    KafkaError._DESTROY,
}


# Errors after which a client is replaced: its metadata or connections may be what keeps it from answering.
# A long-lived client keeps sending to a partition's old leader epoch (FENCED_LEADER_EPOCH) until its periodic
# metadata refresh, minutes later, while a fresh client asks the new leader at once.
WEDGED = {
    KafkaError._TIMED_OUT,
    KafkaError._ALL_BROKERS_DOWN,
    KafkaError.REQUEST_TIMED_OUT,
    KafkaError._DESTROY,
    KafkaError.FENCED_LEADER_EPOCH,
    KafkaError.UNKNOWN_LEADER_EPOCH,
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.NOT_COORDINATOR,
    KafkaError.COORDINATOR_NOT_AVAILABLE,
}

_ATTEMPT_S = 5.0  # an attempt that cannot reach the controller is sent again after this long
_MARGIN_S = 3.0  # how long past its request timeout a future may stay unresolved before its client is wedged
_REFUSAL_POLL_S = 0.5  # how often a waiting call looks for a refused login
EXIT_DRAIN_S = 5.0  # at exit, how long the clients already closed may take to be destroyed (drain_closer)


class _Undelivered(ConnectError):
    """The request never reached a controller: it may be sent again; ``error`` is what to report."""

    def __init__(self, error: ConnectError) -> None:
        super().__init__(str(error))
        self.error = error


class _Client:
    """One librdkafka client and the threads inside a call on it (guarded by its ``KafkaAdmin``'s lock)."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.client = AdminClient(dict(config))
        with _ALIVE_LOCK:
            _ALIVE.add(id(self.client))
        self.inside = 0  # threads in a call on ``client`` right now
        self.retired = False  # replaced: destroyed once no thread is inside

    def __del__(self) -> None:
        # Whichever thread drops the last reference (or the garbage collector), the client is destroyed on
        # the closer thread, never here: this may be a librdkafka thread.
        client = getattr(self, "client", None)  # None: the constructor failed
        if client is not None:
            _CLOSER.put(client)


def _close_clients() -> None:
    """The closer thread: destroy each client handed over, one at a time (an event: set it, all before it done)."""
    while True:
        client = _CLOSER.get()
        if isinstance(client, threading.Event):
            client.set()
            continue
        try:
            client.__exit__(None, None, None)  # rd_kafka_destroy; later calls on it raise, never crash
        except Exception as exc:  # a failed destroy must not end the closer
            _LOG.warning("destroying an AdminClient failed: %r", exc)
        with _ALIVE_LOCK:
            _ALIVE.discard(id(client))
        del client


def clients_alive() -> int:
    """How many AdminClients kzc made are not destroyed yet (closed ones still queued for the closer count)."""
    with _ALIVE_LOCK:
        return len(_ALIVE)


def drain_closer(timeout: float = EXIT_DRAIN_S) -> bool:
    """Wait until every client handed to the closer so far is destroyed (at most ``timeout``); whether they are.

    Run at exit: a destroy still under way as the interpreter shuts down has librdkafka's threads call back into
    Python (the failed requests' results) after it stopped, and the process dies of SIGSEGV (the console did, on q,
    right after a broker came back)."""
    done = threading.Event()
    _CLOSER.put(done)
    return done.wait(timeout)


_ALIVE: set[int] = set()  # id() of every AdminClient made and not yet destroyed
_ALIVE_LOCK = threading.Lock()
_CLOSER: queue.SimpleQueue[AdminClient | threading.Event] = queue.SimpleQueue()
threading.Thread(target=_close_clients, name="kzc-kafka-closer", daemon=True).start()
atexit.register(drain_closer)


class KafkaAdmin:
    """Topic admin requests through the brokers of one cluster.

    Args:
        bootstrap_servers: the brokers to bootstrap from (``--bootstrap-server``).
        security: how to authenticate and encrypt to them (``ConnectionSettings.kafka_security``).
        timeout: seconds each request may take, broker lookup included.
    """

    def __init__(
        self, bootstrap_servers: Sequence[HostPort], *, security: KafkaSecurity, timeout: float = 30.0
    ) -> None:
        self.servers = tuple(bootstrap_servers)
        self.security = security  # also what kzc's own requests beside this client speak (CapabilityCache)
        self.bootstrap = bootstrap_string(self.servers)
        self.timeout = timeout
        self.operation_timeout = 0.0  # seconds; > 0 when a KRaft controller owns the metadata (see above)
        # The brokers' refusal of kzc's SASL or TLS handshake reaches only the error callback (served by
        # ``poll``); the request itself just times out. Kept here, apart from any client (no reference cycle).
        self._refusals = HandshakeRefusals()
        self._config = kafka_client_config(
            self.servers,
            security,
            {
                "error_cb": self._refusals,
                "logger": _LOG,
                "socket.connection.setup.timeout.ms": int(min(max(timeout, 1.0), 30.0) * 1000),  # librdkafka: >= 1 s
            },
        )
        self._lock = threading.Lock()  # guards _current and the counts; never held across a network call
        self._current: _Client | None = _Client(self._config)  # None: a fresh one is made by the next call
        self._local = threading.local()  # the client of this thread's call in progress / last call
        self.renewed = 0  # clients retired because they were wedged or could not reach the controller

    @property
    def _client(self) -> AdminClient:
        """The client of this thread's call in progress (``_call``), else the current one."""
        holder: _Client | None = getattr(self._local, "inside", None)
        if holder is None:
            with self._lock:
                holder = self._current_client()
        return holder.client

    def _current_client(self) -> _Client:
        """The current client, made when there is none (with ``_lock`` held)."""
        if self._current is None:
            self._current = _Client(self._config)
        return self._current

    def close(self) -> None:
        """Destroy the client (on the closer thread, once no call is inside it); a later call makes a new one."""
        with self._lock:
            current = self._current
        if current is not None:
            self._renew(current, "closed")

    def check_reachable(self, timeout: float = 5.0) -> None:
        """Fail fast unless some bootstrap server accepts a TCP connection.

        Raises:
            ConnectError: every bootstrap server failed, each with its cause (name lookup, refused, no answer).
        """
        problems = []
        limit = min(timeout, self.timeout)
        for server in self.servers:
            try:
                with socket.create_connection((server.host, server.port), timeout=limit):
                    return
            except socket.gaierror as exc:
                problems.append(f"{server}: the host name cannot be resolved ({exc.strerror or exc})")
            except TimeoutError:
                problems.append(f"{server}: no answer within {limit:g} s")
            except OSError as exc:
                problems.append(f"{server}: {exc.strerror or exc}")
        raise ConnectError(f"cannot reach any Kafka bootstrap server ({'; '.join(problems)}): check --bootstrap-server")

    def create_topic(
        self,
        topic: str,
        assignment: Sequence[Sequence[int]],
        config: Mapping[str, str],
        *,
        validate_only: bool = False,
    ) -> None:
        """CreateTopics with an explicit replica list per partition (partition ``i`` is ``assignment[i]``).

        Raises:
            KafkaRuleError: the broker refused (topic exists, invalid config...), with Kafka's message.
            ConnectError: no broker answered within the timeout.
        """
        new_topic = NewTopic(
            topic,
            num_partitions=len(assignment),
            replica_assignment=[list(r) for r in assignment],
            config=dict(config),
        )
        self._until_delivered(
            f"create topic {topic}",
            lambda client, timeout: client.create_topics(
                [new_topic],
                operation_timeout=self.operation_timeout,
                request_timeout=timeout,
                validate_only=validate_only,
            )[topic],
        )

    def create_partitions(
        self,
        topic: str,
        new_total: int,
        new_assignment: Sequence[Sequence[int]],
        *,
        validate_only: bool = False,
    ) -> None:
        """CreatePartitions up to ``new_total`` with an explicit replica list per new partition.

        Raises:
            KafkaRuleError: the broker refused (reassignment in progress, count mismatch...).
            ConnectError: no broker answered within the timeout.
        """
        request = NewPartitions(topic, new_total, replica_assignment=[list(r) for r in new_assignment])
        self._until_delivered(
            f"add partitions to {topic}",
            lambda client, timeout: client.create_partitions(
                [request],
                operation_timeout=self.operation_timeout,
                request_timeout=timeout,
                validate_only=validate_only,
            )[topic],
        )

    def delete_topics(self, topics: Iterable[str]) -> dict[str, KzcError | None]:
        """DeleteTopics; returns each topic's error (``None`` = marked for deletion by the broker).

        Raises:
            ConnectError: no broker answered within the timeout (for every topic).
        """
        names = list(topics)
        pending = list(names)
        outcome: dict[str, KzcError | None] = {}
        deadline = time.monotonic() + self.timeout
        while pending:
            futures = self._call(
                "delete topics",
                partial(
                    self._client.delete_topics,
                    list(pending),
                    operation_timeout=self.operation_timeout,
                    request_timeout=self._attempt_timeout(deadline),
                ),
            )
            undelivered = []
            for name in pending:
                try:
                    self._result(futures[name], f"delete topic {name}")
                    outcome[name] = None
                except _Undelivered as exc:
                    if time.monotonic() >= deadline:
                        raise self._cause(exc) from exc
                    undelivered.append(name)
                except ConnectError:
                    raise
                except KzcError as exc:
                    outcome[name] = exc
            if undelivered:
                self._reconnect()
            pending = undelivered
        return outcome

    def topic_partitions(self, topic: str) -> list[int]:
        """The partition ids of ``topic`` as the brokers' metadata has them.

        Raises:
            KafkaRuleError: the brokers do not know the topic (Kafka's UnknownTopicOrPartitionException).
            ConnectError: no broker answered within the timeout.
        """
        metadata = self._call(
            "describe topic", lambda: self._client.list_topics(topic=topic, timeout=min(self.timeout, 10.0))
        )
        found = metadata.topics.get(topic)
        if found is None or found.error is not None or not found.partitions:
            raise KafkaRuleError("This server does not host this topic-partition.", "UnknownTopicOrPartitionException")
        return sorted(found.partitions)

    def broker_configs(self, broker_id: int, names: Iterable[str]) -> dict[str, str]:
        """The values of the broker configs ``names`` on ``broker_id`` (DescribeConfigs); absent ones are left out.

        Raises:
            KzcError: the broker could not be asked (down, not reachable, not authorised).
        """
        resource = ConfigResource(ConfigResource.Type.BROKER, str(broker_id))
        futures = self._call(
            "describe broker config",
            # Informational (delete.topic.enable, min.insync.replicas...) and asked of one broker, maybe a dead
            # controller whose /controller has not expired yet: a short wait, then the caller asks another broker.
            lambda: self._client.describe_configs([resource], request_timeout=min(self.timeout, _ATTEMPT_S)),
        )
        entries = self._result(futures[resource], f"describe the config of broker {broker_id}")
        wanted = set(names)
        if not isinstance(entries, dict):
            return {}
        return {k: str(e.value) for k, e in entries.items() if k in wanted and e.value is not None}

    def served_broker_ids(self) -> frozenset[int]:
        """The brokers the cluster serves (DescribeCluster): ZooKeeper-mode, migrating and KRaft brokers alike.

        Raises:
            KzcError: no broker answered.
        """
        future = self._call(
            "describe cluster", lambda: self._client.describe_cluster(request_timeout=min(self.timeout, _ATTEMPT_S))
        )
        result = self._result(future, "describe the cluster")
        return frozenset(int(node.id) for node in result.nodes)

    def _until_delivered(self, what: str, send: Callable[[AdminClient, float], Future[Any]]) -> Any:
        """Send until the controller receives the request or the timeout passes; its result."""
        deadline = time.monotonic() + self.timeout
        while True:
            future = self._call(what, lambda: send(self._client, self._attempt_timeout(deadline)))
            try:
                return self._result(future, what)
            except _Undelivered as exc:
                if time.monotonic() >= deadline:
                    raise self._cause(exc) from exc
                self._reconnect()

    def _cause(self, undelivered: _Undelivered) -> ConnectError:
        """Why no controller got the request: no broker reachable at all, or none acting as controller."""
        try:
            self.check_reachable(timeout=2.0)
        except ConnectError as unreachable:
            return unreachable
        return undelivered.error

    def _attempt_timeout(self, deadline: float) -> float:
        """One attempt's share of the time left: short enough to try again after a controller move."""
        left = max(deadline - time.monotonic(), 0.5)
        return min(left, max(_ATTEMPT_S, self.timeout / 6))

    def _reconnect(self) -> None:
        """A fresh client: its first metadata request names the current controller."""
        holder: _Client | None = getattr(self._local, "last", None) or self._current
        if holder is not None:
            self._renew(holder, "the controller did not receive the request")

    def _renew(self, holder: _Client, why: str) -> None:
        """Replace ``holder`` by a fresh client unless that already happened; it is destroyed once idle."""
        with self._lock:
            if holder.retired:
                return
            holder.retired = True
            if self._current is holder:
                self._current = None
                self.renewed += 1
            idle = holder.inside == 0
        _LOG.info("the next call to %s goes through a fresh AdminClient: %s", self.bootstrap, why)
        if idle:
            _CLOSER.put(holder.client)

    def _call(self, what: str, request: Any) -> Any:
        """Run ``request`` (it calls ``self._client``) with this thread counted inside the current client."""
        with self._lock:
            holder = self._current_client()
            holder.inside += 1
        self._local.inside = self._local.last = holder
        try:
            return request()
        except KafkaException as exc:
            raise self._error(exc.args[0] if exc.args else None, what) from exc
        except (ValueError, TypeError) as exc:
            raise KzcError(f"kzc could not build the {what} request: {exc}") from exc
        except RuntimeError as exc:  # the client was destroyed under this call: the next one uses a fresh one
            raise ConnectError(f"cannot {what}: {exc}") from exc
        finally:
            self._local.inside = None
            with self._lock:
                holder.inside -= 1
                close = holder.retired and holder.inside == 0
            if close:
                _CLOSER.put(holder.client)

    def _result(self, future: Future[Any], what: str) -> Any:
        try:
            return self._wait(future, what)
        except KafkaException as exc:
            error = self._error(exc.args[0] if exc.args else None, what)
            if isinstance(exc.args[0] if exc.args else None, KafkaError) and exc.args[0].code() in WEDGED:
                self._wedged(f"{what}: {exc.args[0].str()}")
            raise error from exc
        except TimeoutError as exc:
            refused = self._refusal()
            self._wedged(f"{what} unanswered past its deadline")
            if refused is not None:
                raise ConnectError(f"cannot {what}: the Kafka brokers at {self.bootstrap} {refused}") from exc
            raise ConnectError(
                f"Kafka brokers {self.bootstrap} did not answer to {what} within {self.timeout:g} s"
            ) from exc

    def _wait(self, future: Future[Any], what: str) -> Any:
        """The future's result. The request timeout bounds it, and the margin covers librdkafka's own scheduling;
        a refusal of kzc's login or TLS handshake that lasts ends the wait early: librdkafka only retries it."""
        start = time.monotonic()
        deadline = start + self.timeout + _MARGIN_S
        while True:
            left = deadline - time.monotonic()
            try:
                return future.result(timeout=max(0.0, min(_REFUSAL_POLL_S, left)))
            except TimeoutError:
                if left <= _REFUSAL_POLL_S:
                    raise
                if time.monotonic() - start >= REFUSAL_FINAL_S and (refused := self._refusal()) is not None:
                    raise ConnectError(f"cannot {what}: the Kafka brokers at {self.bootstrap} {refused}") from None

    def _wedged(self, why: str) -> None:
        """The client of this thread's last call let a request time out: the next calls use a fresh one."""
        holder: _Client | None = getattr(self._local, "last", None)
        if holder is not None:
            self._renew(holder, why)

    def _error(self, error: object, what: str) -> KzcError:
        if not isinstance(error, KafkaError):
            return KzcError(f"{what} failed: {error}")
        code, message = error.code(), error.str()
        if code == KafkaError.NOT_CONTROLLER or (code == KafkaError._TIMED_OUT and "waiting for controller" in message):
            return _Undelivered(
                ConnectError(
                    f"cannot {what}: the brokers at {self.bootstrap} are reachable, but no controller received the "
                    f"request within {self.timeout:g} s ({message}); the controller is down or being elected: "
                    "see /controller in ZooKeeper (kzc describe)"
                )
            )
        if code in _RULE_ERRORS:
            return KafkaRuleError(message, _RULE_ERRORS[code])
        if code in _CONNECT_ERRORS:
            if (refused := self._refusal()) is not None:
                return ConnectError(f"cannot {what}: the Kafka brokers at {self.bootstrap} {refused}")
            return ConnectError(
                f"cannot {what} through Kafka brokers {self.bootstrap}: {message} "
                "(check --bootstrap-server and that the brokers are up)"
            )
        return KzcError(f"{what} failed: {message} ({error.name()})")

    def _refusal(self) -> str | None:
        """Why the brokers refused kzc's SASL or TLS handshake lately, in words (None: they did not)."""
        holder: _Client | None = getattr(self._local, "last", None)  # this thread's last call, even if retired
        with contextlib.suppress(Exception):  # a destroyed client: nothing more to learn
            (holder.client if holder is not None else self._client).poll(0)  # serves the error callback here
        return self._refusals.sentence()
