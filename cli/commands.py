"""The registry of subcommands: each command module exposes ``register(subparsers)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli import (
    assign_cmd,
    broker_cmd,
    check_cmd,
    config_cmd,
    describe_cmd,
    elect_cmd,
    groups_cmd,
    migration_cmd,
    reassign_cmd,
    sandbox_cmd,
    snapshot_cmd,
    topic_cmd,
    watch_cmd,
    zk_cmd,
)

REGISTRY: list[Callable[[Any], None]] = [sandbox_cmd.register, watch_cmd.register]
REGISTRY += [assign_cmd.register, topic_cmd.register]
REGISTRY += [describe_cmd.register, zk_cmd.register, snapshot_cmd.register, check_cmd.register]
REGISTRY += [reassign_cmd.register, elect_cmd.register, config_cmd.register, groups_cmd.register]
REGISTRY += [migration_cmd.register, broker_cmd.register]
