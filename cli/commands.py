"""The table of subcommands: each names its module, which is imported only when its command is run.

``kzc --help`` lists every command from this table alone; ``kzc describe ...`` imports ``cli.describe_cmd``
and nothing of the other commands (their Spark engine, pyarrow, the check rules, the security plans cost a
second or more to import, paid by every ``watch -n1 kzc describe``). A command module exposes
``register(subparsers)``, which declares its commands with ``cli.options.add_command`` (whose one-line help
for a top-level command is the one in this table).
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _SubParsers = argparse._SubParsersAction


@dataclass(frozen=True)
class Command:
    """A top-level command: its word, the module whose ``register`` declares it, its one-line help."""

    name: str
    module: str
    help: str


# In the order `kzc --help` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("sandbox", "cli.sandbox_cmd", "run a real ZooKeeper and Kafka brokers on 127.0.0.1"),
    Command("watch", "cli.watch_cmd", "stream cluster changes (controller, brokers, topics, admin requests) live"),
    Command("assign", "cli.assign_cmd", "compute or check a replica assignment exactly as Kafka does"),
    Command("topic", "cli.topic_cmd", "create, expand or delete topics (preview, confirm, apply)"),
    Command(
        "describe",
        "cli.describe_cmd",
        "controller, brokers, topic and partition counts, pending admin work, unhealthy partitions",
    ),
    Command("zk", "cli.zk_cmd", "browse ZooKeeper: list children, show a znode decoded"),
    Command(
        "snapshot",
        "cli.snapshot_cmd",
        "write all cluster metadata in ZooKeeper to a JSON Lines file (works with brokers down)",
    ),
    Command("check", "cli.check_cmd", "run the cluster-wide consistency checks (docs/checks.md)"),
    Command("reassign", "cli.reassign_cmd", "move partition replicas between brokers (plan, apply, follow)"),
    Command("elect", "cli.elect_cmd", "leader elections: preferred (rebalance leaders) or unclean"),
    Command("config", "cli.config_cmd", "show or change topic configs (diff preview, confirm, apply)"),
    Command("groups", "cli.groups_cmd", "consumer groups with state, members, topics and lag"),
    Command("group", "cli.groups_cmd", "one consumer group's partitions and lag; 'group reset GROUP' resets offsets"),
    Command(
        "migration",
        "cli.migration_cmd",
        "the ZooKeeper-to-KRaft migration: phase, KRaft controller, broker modes, blockers, next step, rollback",
    ),
    Command(
        "changes",
        "cli.changes_cmd",
        "what changed: every change ZooKeeper can date (znode stats), newest first, in bursts",
    ),
    Command(
        "broker",
        "cli.broker_cmd",
        "one broker: kzc broker ID (what it leads and hosts, out-of-ISR and offline replicas, registration, "
        "session, log dirs and sizes); kzc broker stop-check ID [ID...] (is it safe to stop: exits 0 when safe, "
        "1 when not)",
    ),
    Command("tail", "cli.tail_cmd", "print a topic's messages (no consumer group, nothing committed); --follow"),
    Command("acl", "cli.acl_cmd", "list, add or remove ACLs of the ZooKeeper authorizer"),
    Command("quota", "cli.quota_cmd", "show or change client quotas (users, client ids, defaults)"),
    Command("user", "cli.user_cmd", "SCRAM users: list, set a password, delete credentials"),
    Command(
        "record",
        "cli.record_cmd",
        "record live events, periodic snapshots and traffic rates into a history store (Parquet)",
    ),
    Command("history", "cli.history_cmd", "questions over a history store recorded by kzc record"),
    Command("diff", "cli.diff_cmd", "what differs between two snapshots, moments of the history, or clusters"),
    Command(
        "fleet",
        "cli.fleet_cmd",
        "every cluster of the config file at once: state, brokers, release, partitions, ZooKeeper quorum, "
        "migration phase, last change, likely cause; worst first (exits 1 when one is down or unreadable)",
    ),
    Command("report", "cli.report_cmd", "the incident report of a window of the history store and the audit log"),
    Command(
        "metrics",
        "cli.metrics_cmd",
        "each broker's own metrics from its Prometheus JMX exporter (--metrics-url): bytes and messages per "
        "second, produce/fetch p99, idle percent, ISR shrinks/expands, under-replicated count beside ZooKeeper's",
    ),
    Command(
        "traffic",
        "cli.traffic_cmd",
        "messages and bytes in per second by topic, broker, partition or log dir (with growth and time until "
        "full), from two reads of the brokers' offsets and log dirs --window apart",
    ),
)
_BY_NAME = {command.name: command for command in COMMANDS}


def help_of(name: str) -> str:
    """The one-line help of top-level command ``name`` (KeyError: not in the table)."""
    return _BY_NAME[name].help


class Subcommands(_SubParsers):
    """kzc's top-level subparsers: every command is listed (and its word accepted) from ``COMMANDS``; its
    module is imported and its ``register`` run only when the command is parsed.

    Until then a command is a stub parser that argparse never runs: ``__call__`` (argparse's call once it has
    matched the command's word) replaces the stub with the real parser first, so parsing, errors and every
    ``--help`` are argparse's own.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stubs: set[str] = set()
        for command in COMMANDS:
            super().add_parser(command.name, help=command.help, add_help=False)
            self._stubs.add(command.name)

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if name in self._stubs:
            self._stubs.discard(name)
            del self._name_parser_map[name]
            kwargs.pop("help", None)  # listed already, with the table's help
        return super().add_parser(name, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        self.load(values[0])
        super().__call__(parser, namespace, values, option_string)

    def load(self, name: str) -> None:
        """Import the module of command ``name`` and register its commands (once)."""
        if name not in self._stubs:
            return
        importlib.import_module(_BY_NAME[name].module).register(self)
        if name in self._stubs:
            raise RuntimeError(f"{_BY_NAME[name].module}.register did not declare '{name}'")

    def load_all(self) -> None:
        """Register every command (the tests walk them all)."""
        for command in COMMANDS:
            self.load(command.name)


def add_subcommands(parser: argparse.ArgumentParser) -> Subcommands:
    """Give ``parser`` kzc's top-level commands, listed from ``COMMANDS``, each loaded when it is run."""
    return parser.add_subparsers(dest="command", metavar="COMMAND", action=Subcommands)  # type: ignore[return-value]


def runnable_commands(parser: argparse.ArgumentParser) -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every command a user can run (a parser with a handler), by its words: ``("reassign", "status")``.

    Tests walk it so that a new command cannot escape the rules every command keeps (wrong chroot, one-line
    errors, JSON on every path). It registers every command of the table first.
    """
    found: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(current: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        if current.get_default("handler") is not None:
            found[words] = current
        for action in current._actions:
            if isinstance(action, Subcommands):
                action.load_all()
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(child, (*words, name))

    walk(parser, ())
    return found
