"""The ``:`` command palette, k9s style: ``topics``, ``brokers``, ``cluster``, ``zk /some/path``, ``topic
NAME``, ``create``, ``expand NAME``, ``delete NAME`` or ``delete /regex/``, ``checks``, ``groups``, ``timeline``,
``security``, ``context NAME``, ``theme NAME``, ``help``, ``quit``. Commands that take an argument complete it
(topic names, contexts, themes) from what the console knows."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Protocol, cast

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Provider, SearchIcon
from textual.message import Message

from tui.messages import (
    CreateTopicRequested,
    DeleteTopicsRequested,
    ExpandTopicRequested,
    ScreenChosen,
    TopicChosen,
    ZnodeChosen,
)

_MAX_COMPLETIONS = 15


class PaletteTarget(Protocol):
    """What the palette needs of the console (the app provides it; navigation goes by message)."""

    @property
    def read_only(self) -> bool: ...
    def topic_names(self) -> list[str]: ...
    def context_names(self) -> list[str]: ...
    def theme_names(self) -> list[str]: ...
    def switch_context(self, name: str) -> None: ...
    def use_theme(self, name: str) -> None: ...
    def action_help(self) -> None: ...
    def exit(self) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    @property
    def at_moment(self) -> bool: ...
    def action_step_moment(self, direction: int) -> None: ...
    def action_shift_moment(self, minutes: int) -> None: ...
    def jump_moment(self, text: str) -> None: ...


class KzcCommands(Provider):
    """Console commands for Textual's command palette."""

    @property
    def target(self) -> PaletteTarget:
        """The console app, as the palette sees it."""
        return cast(PaletteTarget, self.app)

    def _post(self, message: Message) -> Callable[[], object]:
        return partial(self.target.post_message, message)

    def _static(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.target
        post = self._post
        commands: list[tuple[str, Callable[[], object], str]] = [
            ("cluster", post(ScreenChosen("cluster")), "controller, brokers, pending work, health, events"),
            ("brokers", post(ScreenChosen("cluster", focus="brokers")), "the brokers table"),
            ("topics", post(ScreenChosen("topics")), "every topic, filterable"),
            ("zk /", post(ZnodeChosen("/")), "browse ZooKeeper (zk /some/path jumps there)"),
            ("zk health", post(ScreenChosen("zk-health")), "ZooKeeper's own health: servers, quorum, alarms"),
            ("checks", post(ScreenChosen("checks")), "run the consistency checks"),
            ("groups", post(ScreenChosen("groups")), "consumer groups and their lag"),
            ("timeline", post(ScreenChosen("timeline")), "what changed: every change ZooKeeper dates, live ones"),
            ("security", post(ScreenChosen("security")), "ACLs, quotas and SCRAM users (read-only; also A)"),
            ("help", app.action_help, "every key binding"),
            ("quit", app.exit, "leave kzc"),
        ]
        if not app.read_only:
            commands.insert(3, ("create", post(CreateTopicRequested()), "create a topic with a previewed assignment"))
        if app.at_moment:  # kzc --at: move through the recording
            commands += [
                ("previous change", partial(app.action_step_moment, -1), "the previous recorded change ([)"),
                ("next change", partial(app.action_step_moment, 1), "the next recorded change (])"),
                ("minute back", partial(app.action_shift_moment, -1), "a minute earlier ({)"),
                ("minute on", partial(app.action_shift_moment, 1), "a minute later (})"),
            ]
        return commands

    def _dynamic(self, query: str) -> Iterator[tuple[str, Callable[[], object], str]]:
        app = self.target
        post = self._post
        verb, _, argument = query.strip().partition(" ")
        argument = argument.strip()
        verb = verb.lower()
        topics = app.topic_names()
        if verb == "zk" and argument.startswith("/"):
            yield f"zk {argument}", post(ZnodeChosen(argument)), "open this znode"
        elif verb == "topic":
            for name in _complete(topics, argument):
                yield f"topic {name}", post(TopicChosen(name)), "topic detail"
        elif verb == "expand" and not app.read_only:
            for name in _complete(topics, argument):
                yield f"expand {name}", post(ExpandTopicRequested(name)), "add partitions"
        elif verb == "delete" and not app.read_only:
            if len(argument) > 2 and argument.startswith("/") and argument.endswith("/"):
                regex = argument[1:-1]
                yield f"delete /{regex}/", post(DeleteTopicsRequested(regex=regex)), "delete every topic matching"
            else:
                for name in _complete(topics, argument):
                    yield f"delete {name}", post(DeleteTopicsRequested(topics=(name,))), "delete this topic"
        elif verb == "context":
            for name in _complete(app.context_names(), argument):
                yield f"context {name}", partial(app.switch_context, name), "switch to this cluster"
        elif verb == "at" and argument and app.at_moment:
            yield f"at {argument}", partial(app.jump_moment, argument), "the cluster at this moment (UTC, -45m, ISO)"
        elif verb == "theme":
            for name in _complete(app.theme_names(), argument):
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
        verb = query.strip().partition(" ")[0].lower()
        if self.target.read_only and verb and any(m.startswith(verb) for m in ("create", "expand", "delete")):
            text = f"{query.strip()}: not available in read-only mode (started with --read-only)"
            yield Hit(0.5, text, lambda: None, text=text, help="read-only mode refuses every change")

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


class KzcPalette(CommandPalette):
    """Textual's palette with a plain ``:`` for its icon: its emoji (🔎) is a box in many SSH terminals."""

    def on_mount(self) -> None:
        for icon in self.query(SearchIcon):
            icon.icon = ":"
