"""The registry of subcommands: each command module exposes ``register(subparsers)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli import assign_cmd, check_cmd, describe_cmd, sandbox_cmd, snapshot_cmd, topic_cmd, watch_cmd, zk_cmd
from cli.migration_cmd import register as register_migration

REGISTRY: list[Callable[[Any], None]] = [sandbox_cmd.register, watch_cmd.register]
REGISTRY += [assign_cmd.register, topic_cmd.register]
REGISTRY += [describe_cmd.register, zk_cmd.register, snapshot_cmd.register, check_cmd.register]
REGISTRY += [register_migration]
