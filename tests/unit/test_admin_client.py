"""The AdminClient's lifetime (core.brokers.admin), with real librdkafka clients and no broker: a client is
destroyed only once no thread is inside a call on it, on kzc's closer thread, never by the garbage collector on
a librdkafka thread (which aborts the process: the crash the console once died of)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from concurrent.futures import Future
from pathlib import Path

import pytest
from confluent_kafka import KafkaError
from confluent_kafka.admin import AdminClient

from core.brokers.admin import KafkaAdmin, drain_closer
from core.brokers.group_admin import GroupAdmin
from core.config import PLAINTEXT
from core.connect import parse_bootstrap
from core.errors import ConnectError
from core.polling import wait_until

ROOT = Path(__file__).resolve().parents[2]
NOBODY = parse_bootstrap("127.0.0.1:1")  # refused at once: librdkafka clients start and fail fast


def closed(client: object) -> bool:
    """Whether ``client`` was destroyed (a call on a destroyed client raises RuntimeError, never crashes)."""
    try:
        client.list_topics(timeout=0.01)  # type: ignore[attr-defined]
    except RuntimeError:
        return True
    except Exception:  # the broker is unreachable: the client is alive
        return False
    return False


def test_a_replaced_client_is_destroyed_only_once_no_call_is_inside_it() -> None:
    admin = KafkaAdmin(NOBODY, security=PLAINTEXT, timeout=1.0)
    inside, release = threading.Event(), threading.Event()
    seen: list[object] = []

    def blocking_call() -> None:
        def request() -> None:
            seen.append(admin._client)
            inside.set()
            release.wait(10)

        admin._call("a slow call", request)

    caller = threading.Thread(target=blocking_call)
    caller.start()
    assert inside.wait(10)
    admin.close()  # as when the client is found wedged by another thread
    old = seen[0]
    assert admin._client is not old and not closed(old)
    release.set()
    caller.join(10)
    wait_until(lambda: closed(old), 10, "the old client to be destroyed once its last call returned")
    assert not closed(admin._client)


def test_a_call_that_times_out_replaces_the_client() -> None:
    admin = GroupAdmin(NOBODY, security=PLAINTEXT, timeout=0.5)  # the wrapper's renewal, through a group request
    first = admin._client
    with pytest.raises(ConnectError):
        admin.list_consumer_groups()
    assert admin.renewed == 1 and admin._client is not first
    wait_until(lambda: closed(first), 10, "the timed-out client to be destroyed")


def test_a_client_collected_on_a_librdkafka_thread_does_not_abort_the_process() -> None:
    """A KafkaAdmin left in a reference cycle with a request in flight; the request's result callback (on the
    client's own librdkafka thread) runs the cyclic garbage collector. A bare AdminClient aborts the process
    here (``rd_kafka_destroy() called from librdkafka owned thread``, SIGABRT)."""
    script = textwrap.dedent(
        """
        import gc, sys, threading
        from confluent_kafka import TopicPartition
        from confluent_kafka.admin._listoffsets import OffsetSpec
        from core.brokers.admin import KafkaAdmin, drain_closer
        from core.config import PLAINTEXT
        from core.connect import parse_bootstrap

        for _ in range(2):
            admin = KafkaAdmin(parse_bootstrap("127.0.0.1:1"), security=PLAINTEXT, timeout=0.5)
            request = {TopicPartition("t", 0): OffsetSpec.latest()}
            futures = admin._call("list offsets", lambda: admin._client.list_offsets(request, request_timeout=0.5))
            collected = threading.Event()

            def collect(_, collected=collected):  # runs on the client's librdkafka thread
                gc.collect()
                collected.set()

            for future in futures.values():
                future.add_done_callback(collect)
            cycle = {"admin": admin}
            cycle["self"] = cycle
            del cycle, admin, futures
            if not collected.wait(30):  # the request times out after 0.5 s; its callback then collects the cycle
                sys.exit("the request's callback never ran")
        print("alive")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip()) == (0, "alive"), done.stderr[-2000:]


@pytest.mark.timeout(60)
def test_a_refused_login_ends_a_wait_long_before_the_request_timeout() -> None:
    """librdkafka only retries a refused SASL login, so the request would wait out its whole timeout (here 600 s,
    beyond this test's own 60 s limit); the refusal is said once it has lasted ``REFUSAL_FINAL_S``."""
    admin = KafkaAdmin(NOBODY, security=PLAINTEXT, timeout=600.0)
    try:
        admin._refusals(KafkaError(KafkaError._AUTHENTICATION, "SASL authentication error: Authentication failed"))
        never: Future[object] = Future()
        with pytest.raises(ConnectError, match="refused kzc's authentication"):
            admin._result(never, "list consumer groups")
    finally:
        admin.close()


def test_at_exit_every_client_already_closed_is_destroyed_before_the_interpreter_stops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """kzc closes its clients and exits at once: ``drain_closer`` (run at exit) returns only once the destroys handed
    to the closer are done (librdkafka's threads call back into Python as a client is destroyed; a console died of
    SIGSEGV on q while one was under way)."""
    destroyed: list[object] = []
    real_exit = AdminClient.__exit__

    def exit_and_record(client: AdminClient, *exc: object) -> None:
        real_exit(client, *exc)
        destroyed.append(client)

    monkeypatch.setattr(AdminClient, "__exit__", exit_and_record)
    admins = [KafkaAdmin(NOBODY, security=PLAINTEXT, timeout=1.0) for _ in range(5)]
    clients = [admin._client for admin in admins]
    for admin in admins:
        admin.close()
    assert drain_closer(30)
    assert all(any(client is gone for gone in destroyed) for client in clients)
