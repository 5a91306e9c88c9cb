"""``core.brokers.native_threads``: a kzc process leaves through ``os._exit`` while a librdkafka thread still runs
(exit's C cleanup under a running librdkafka thread killed the console with SIGSEGV on q), and normally otherwise:
the clients already closed are destroyed first. Each case runs in a process of its own (other tests' clients live
in pytest's)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = textwrap.dedent(
    """
    from confluent_kafka.admin import AdminClient

    from core.brokers.admin import KafkaAdmin
    from core.brokers.native_threads import exit_is_unsafe, librdkafka_threads
    from core.config import PLAINTEXT
    from core.connect import parse_bootstrap
    from core.polling import wait_until

    print(exit_is_unsafe())  # no client yet
    admins = [KafkaAdmin(parse_bootstrap("127.0.0.1:1"), security=PLAINTEXT, timeout=1.0) for _ in range(3)]
    for admin in admins:
        admin._client
    wait_until(lambda: librdkafka_threads() > 0, 30, "librdkafka's threads")
    for admin in admins:
        admin.close()  # handed to the closer, destroyed on its thread
    print(exit_is_unsafe())  # waits for those destroys: nothing left
    kept = AdminClient({"bootstrap.servers": "127.0.0.1:1"})  # a client nobody closed
    print(exit_is_unsafe(settle_s=0.5))
    """
)


def test_exit_is_unsafe_only_while_a_librdkafka_thread_runs_after_the_closed_clients_are_destroyed() -> None:
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "False", "True"], (done.stdout, done.stderr)
