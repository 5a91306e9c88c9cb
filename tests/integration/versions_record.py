"""What ``tests/integration/test_versions.py`` records, release by release, and the docs table written from it.

Each test of the versions module records, per release and command, what kzc did and through which path, as
kzc itself reported it (the ``via`` and ``path`` of its ``--json`` / ``--dry-run`` output, or its refusal).
Records are JSON lines appended to ``$KZC_VERSIONS_RECORD`` (nothing is kept when it is unset).
``python -m tests.integration.versions_record RECORD docs/versions.md`` writes the table (``make test-versions``);
nothing in the table is written by hand.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

RECORD_ENV = "KZC_VERSIONS_RECORD"

# The commands in the table's order, each with what it is in a few words.
COMMANDS: dict[str, str] = {
    "describe": "controller, brokers, topic and partition counts",
    "topic create --zookeeper": "create a topic, ZooKeeper only",
    "topic create --bootstrap-server": "create a topic, brokers given",
    "topic expand --zookeeper": "add partitions, ZooKeeper only",
    "topic expand --bootstrap-server": "add partitions, brokers given",
    "topic delete --zookeeper": "delete a topic, ZooKeeper only",
    "topic delete --bootstrap-server": "delete a topic, brokers given",
    "config set --zookeeper": "set a topic config, ZooKeeper only",
    "config set --bootstrap-server": "set a topic config, brokers given",
    "config show": "show a topic's configs (brokers given)",
    "config delete --zookeeper": "delete a topic config, ZooKeeper only",
    "config delete --bootstrap-server": "delete a topic config, brokers given",
    "reassign plan": "plan moving replicas off a broker, with the bytes to copy",
    "reassign apply": "apply it and follow it to the end",
    "reassign status": "progress of a reassignment",
    "reassign cancel": "cancel a reassignment in progress",
    "elect preferred": "preferred leader election",
    "elect unclean": "unclean leader election",
    "group lag": "a consumer group's lag (produced and committed with confluent-kafka)",
    "traffic": "messages and bytes in per partition, log dirs' growth (ListOffsets, DescribeLogDirs)",
    "check healthy": "kzc check on a healthy cluster",
    "check broker killed": "kzc check after a broker is killed",
    "migration": "ZooKeeper-to-KRaft migration readiness",
    "console": "the console opens and shows the counts",
    "broker logs": "no request of kzc's that a broker could not parse",
}


def reported_path(out: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """``(via, why)`` as kzc's JSON output reports them: ``via`` and ``path`` (configs, elections, reassignments)
    or the plan's "write path" check (topics); a dry run that lists only znode writes went through ZooKeeper."""
    via = out.get("via") if isinstance(out.get("via"), str) else None
    why = out.get("path") if isinstance(out.get("path"), str) else None
    if why is None:
        for check in out.get("checks", ()) or ():
            if isinstance(check, Mapping) and check.get("name") == "write path":
                why = check.get("detail")
    writes = [w for w in out.get("writes", ()) or () if isinstance(w, Mapping)]
    if via is None and writes and all(str(w.get("path", "")).startswith("/") for w in writes):
        via = "zookeeper"  # a dry run whose every write is a znode (reassignments)
    return via, why


def record(release: str, command: str, outcome: str, via: str | None = None, why: str | None = None) -> None:
    """Append one observation: ``outcome`` is ``ok``, ``refused`` (with kzc's reason as ``why``) or a short
    result (e.g. bytes unknown)."""
    if command not in COMMANDS:
        raise KeyError(f"unknown command {command!r} for the versions table")
    target = os.environ.get(RECORD_ENV)
    if not target:
        return
    line = {"release": release, "command": command, "outcome": outcome, "via": via, "why": why}
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


def read_records(path: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """``{release: {command: last record}}``."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.strip():
            entry = json.loads(raw)
            found.setdefault(entry["release"], {})[entry["command"]] = entry
    return found


def _release_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def _cell(entry: Mapping[str, Any] | None) -> str:
    if entry is None:
        return "not run"
    outcome, via = entry["outcome"], entry.get("via")
    return f"{outcome} ({via})" if via else outcome


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(records: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """The Markdown of docs/versions.md: one summary matrix, then each release's commands with kzc's reasons."""
    releases = sorted(records, key=_release_key)
    lines = [
        "# kzc on every Kafka release still on ZooKeeper",
        "",
        "Generated by `make test-versions` from what `tests/integration/test_versions.py` observed on real "
        "3-broker sandboxes of each release (`kzc sandbox up --kafka-version V`): each cell is the outcome and "
        "the path kzc reported itself (`via` of its `--json` / dry-run output: `admin` = the brokers' API, "
        "`zookeeper` = znodes written as that release's own tools did). Do not edit by hand.",
        "",
        "| command | " + " | ".join(releases) + " |",
        "|---|" + "---|" * len(releases),
    ]
    for command in COMMANDS:
        cells = [_cell(records[r].get(command)) for r in releases]
        if all(c == "not run" for c in cells):
            continue
        lines.append(f"| {command} | " + " | ".join(_escape(c) for c in cells) + " |")
    for release in releases:
        lines += [
            "",
            f"## Kafka {release}",
            "",
            "| command | what | outcome | path | why (kzc's words) |",
            "|---|---|---|---|---|",
        ]
        for command, what in COMMANDS.items():
            entry = records[release].get(command)
            if entry is None:
                continue
            lines.append(
                f"| {command} | {what} | {_escape(entry['outcome'])} | {entry.get('via') or '-'} | "
                f"{_escape(entry.get('why') or '-')} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: Iterable[str]) -> int:
    """``RECORD OUT``: write the table of the records in RECORD to OUT."""
    args = list(argv)
    if len(args) != 2:
        print("usage: python -m tests.integration.versions_record RECORD OUT", file=sys.stderr)
        return 2
    records = read_records(Path(args[0]))
    Path(args[1]).write_text(render(records), encoding="utf-8")
    print(f"{args[1]}: {len(records)} release(s): {', '.join(sorted(records, key=_release_key))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
