"""The registry of subcommands: each command module exposes ``register(subparsers)``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from cli import (
    acl_cmd,
    assign_cmd,
    broker_cmd,
    changes_cmd,
    check_cmd,
    config_cmd,
    describe_cmd,
    diff_cmd,
    elect_cmd,
    fleet_cmd,
    groups_cmd,
    history_cmd,
    migration_cmd,
    quota_cmd,
    reassign_cmd,
    record_cmd,
    sandbox_cmd,
    snapshot_cmd,
    tail_cmd,
    topic_cmd,
    user_cmd,
    watch_cmd,
    zk_cmd,
)

REGISTRY: list[Callable[[Any], None]] = [sandbox_cmd.register, watch_cmd.register]
REGISTRY += [assign_cmd.register, topic_cmd.register]
REGISTRY += [describe_cmd.register, zk_cmd.register, snapshot_cmd.register, check_cmd.register]
REGISTRY += [reassign_cmd.register, elect_cmd.register, config_cmd.register, groups_cmd.register]
REGISTRY += [migration_cmd.register, changes_cmd.register, broker_cmd.register]
REGISTRY += [tail_cmd.register, acl_cmd.register, quota_cmd.register, user_cmd.register]
REGISTRY += [record_cmd.register, history_cmd.register, diff_cmd.register, fleet_cmd.register]


def runnable_commands(parser: argparse.ArgumentParser) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command a user can run (a parser with a handler), by its words: ``("reassign", "status")``.

    Tests walk it so that a new command cannot escape the rules every command keeps (wrong chroot, one-line
    errors, JSON on every path).
    """
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(current: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        if current.get_default("handler") is not None:
            found[words] = current
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, (*words, name))

    walk(parser, ())
    return found
