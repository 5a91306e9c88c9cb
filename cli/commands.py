"""The registry of subcommands: each command module exposes ``register(subparsers)``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli import sandbox_cmd, watch_cmd

REGISTRY: list[Callable[[Any], None]] = [sandbox_cmd.register, watch_cmd.register]
