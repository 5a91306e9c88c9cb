"""The dry run names what it would do: a broker request through the AdminClient, or znode writes."""

from __future__ import annotations

from core.console.protocols import PlannedWrite
from tui.screens.plan_form import dry_run_text


def test_a_dry_run_through_the_brokers_names_the_request_not_znodes() -> None:
    text = dry_run_text((PlannedWrite("admin", "CreateTopics", '{"topic":"t"}'),))
    assert text.splitlines() == [
        "DRY RUN: nothing is sent. This request would go to the brokers (AdminClient):",
        "CreateTopics",
        '    {"topic":"t"}',
    ]


def test_a_zookeeper_dry_run_lists_each_znode_write_with_its_expected_version() -> None:
    writes = (PlannedWrite("set", "/brokers/topics/t", '{"version":3}', 4),)
    text = dry_run_text(writes, ("a warning",))
    assert text.splitlines() == [
        "DRY RUN: nothing is written. These znodes would be written in one ZooKeeper multi-op:",
        "set /brokers/topics/t (if version is 4)",
        '    {"version":3}',
        "a warning",
    ]
