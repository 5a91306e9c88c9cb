"""The ``:`` command palette, k9s style: ``topics``, ``brokers``, ``cluster``, ``zk /some/path``, ``topic
NAME``, ``create``, ``expand NAME``, ``delete NAME`` or ``delete /regex/``, ``checks``, ``context NAME``,
``theme NAME``, ``help``, ``quit``. Commands that take an argument complete it (topic names, contexts,
themes) from what the console knows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from tui.app import KzcApp

_MAX_COMPLETIONS = 15


class KzcCommands(Provider):
    """Console commands for Textual's command palette."""

    @property
    def kzc(self) -> KzcApp:
        """The console app."""
        return cast("KzcApp", self.app)

    def _static(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.kzc
        commands: list[tuple[str, Callable[[], object], str]] = [
            ("cluster", app.open_cluster, "controller, brokers, pending work, health, events"),
            ("brokers", partial(app.open_cluster, focus="brokers"), "the brokers table"),
            ("topics", app.open_topics, "every topic, filterable"),
            ("zk /", partial(app.open_znode, "/"), "browse ZooKeeper (zk /some/path jumps there)"),
            ("checks", app.open_checks, "run the consistency checks"),
            ("help", app.action_help, "every key binding"),
            ("quit", app.exit, "leave kzc"),
        ]
        if not app.read_only:
            commands.insert(3, ("create", app.open_create, "create a topic with a previewed assignment"))
        return commands

    def _dynamic(self, query: str) -> Iterator[tuple[str, Callable[[], object], str]]:
        app = self.kzc
        verb, _, argument = query.strip().partition(" ")
        argument = argument.strip()
        verb = verb.lower()
        topics = sorted(app.view.snapshot.topics) if app.view is not None else []
        if verb == "zk" and argument.startswith("/"):
            yield f"zk {argument}", partial(app.open_znode, argument), "open this znode"
        elif verb == "topic":
            for name in _complete(topics, argument):
                yield f"topic {name}", partial(app.open_topic, name), "topic detail"
        elif verb == "expand" and not app.read_only:
            for name in _complete(topics, argument):
                yield f"expand {name}", partial(app.open_expand, name), "add partitions"
        elif verb == "delete" and not app.read_only:
            if len(argument) > 2 and argument.startswith("/") and argument.endswith("/"):
                regex = argument[1:-1]
                yield f"delete /{regex}/", partial(app.open_delete, regex=regex), "delete every topic matching"
            else:
                for name in _complete(topics, argument):
                    yield f"delete {name}", partial(app.open_delete, topics=(name,)), "delete this topic"
        elif verb == "context":
            for name in _complete(sorted(app.user_config.contexts), argument):
                yield f"context {name}", partial(app.switch_context, name), "switch to this cluster"
        elif verb == "theme":
            for name in _complete(sorted(app.theme_set.themes), argument):
                yield f"theme {name}", partial(app.use_theme, name), "switch theme"

    async def search(self, query: str) -> Hits:
        """Commands matching ``query``; argument commands complete their argument."""
        matcher = self.matcher(query)
        for text, command, help_text in self._static():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), command, text=text, help=help_text)
        for text, command, help_text in self._dynamic(query):
            yield Hit(1.0, text, command, text=text, help=help_text)

    async def discover(self) -> Hits:
        """The main commands, shown before anything is typed."""
        for text, command, help_text in self._static():
            yield DiscoveryHit(text, command, text=text, help=help_text)
        hints = ["topic NAME", "zk /PATH", "delete NAME | delete /REGEX/", "context NAME", "theme NAME"]
        for hint in hints:
            yield DiscoveryHit(hint, lambda: None, text=hint, help="type it with an argument")


def _complete(names: list[str], prefix: str) -> list[str]:
    """Names starting with ``prefix`` first, then those containing it (case-insensitive)."""
    lowered = prefix.lower()
    starts = [n for n in names if n.lower().startswith(lowered)]
    contains = [n for n in names if lowered in n.lower() and not n.lower().startswith(lowered)]
    return (starts + contains)[:_MAX_COMPLETIONS]
