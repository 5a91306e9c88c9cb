"""Moving between screens (a part of ``KzcApp``): k9s-like, a main screen that is already open is
returned to (the screens above it close), details open on top, Esc goes back."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

from core.topics.plan import DeleteRequest
from tui.screens.base import KzcScreen
from tui.screens.checks import ChecksScreen
from tui.screens.cluster import ClusterScreen
from tui.screens.create_topic import CreateTopicScreen
from tui.screens.delete import DeleteScreen
from tui.screens.expand import ExpandScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.screens.topics import TopicsScreen
from tui.screens.zk_browser import ZkBrowserScreen

ROOT_DEPTH = 2  # Textual's default screen + the cluster screen


class Navigation(App[None]):
    """Screen navigation of ``KzcApp``."""

    @property
    def read_only(self) -> bool:
        """Whether mutations are hidden and refused (``KzcApp`` asks its backend)."""
        raise NotImplementedError

    def action_open(self, what: str) -> None:
        """Open a main screen by name (``cluster``, ``topics``, ``zk``, ``checks``)."""
        openers: dict[str, Callable[[], None]] = {
            "cluster": self.open_cluster,
            "topics": self.open_topics,
            "zk": lambda: self.open_znode("/"),
            "checks": self.open_checks,
        }
        openers[what]()

    def show_screen(self, screen_type: type[KzcScreen], factory: Callable[[], KzcScreen]) -> KzcScreen:
        """Go back to an open screen of this type, else open a new one on top."""
        stack = self.screen_stack
        for index in range(len(stack) - 1, -1, -1):
            found = stack[index]
            if isinstance(found, screen_type):
                for _ in range(len(stack) - 1 - index):
                    self.pop_screen()
                return found
        screen = factory()
        self.push_screen(screen)
        return screen

    def open_cluster(self, focus: str | None = None) -> None:
        """The cluster screen (``focus``: ``brokers`` to land on the brokers table)."""
        screen = self.show_screen(ClusterScreen, ClusterScreen)
        if focus:
            self.call_after_refresh(lambda: screen.query_one(f"#{focus}").focus())

    def open_topics(self) -> None:
        """The topics screen."""
        self.show_screen(TopicsScreen, TopicsScreen)

    def open_topic(self, topic: str) -> None:
        """The detail of one topic."""
        self.push_screen(TopicDetailScreen(topic))

    def open_znode(self, path: str) -> None:
        """The ZooKeeper browser, at ``path``."""
        screen = self.show_screen(ZkBrowserScreen, lambda: ZkBrowserScreen(path))
        if isinstance(screen, ZkBrowserScreen):
            screen.jump(path)

    def open_checks(self) -> None:
        """The consistency checks screen."""
        self.show_screen(ChecksScreen, ChecksScreen)

    def refuse_read_only(self, what: str) -> bool:
        """True (and say so) when read-only mode refuses ``what``."""
        if self.read_only:
            self.notify(f"read-only mode: {what} is not available", severity="warning")
        return self.read_only

    def open_create(self) -> None:
        """The create-topic form."""
        if not self.refuse_read_only("creating topics"):
            self.push_screen(CreateTopicScreen())

    def open_expand(self, topic: str) -> None:
        """The add-partitions form of ``topic``."""
        if not self.refuse_read_only("adding partitions"):
            self.push_screen(ExpandScreen(topic))

    def open_delete(self, topics: tuple[str, ...] = (), regex: str | None = None) -> None:
        """The delete flow for explicit topics or every topic matching ``regex``."""
        if not self.refuse_read_only("deleting topics"):
            self.push_screen(DeleteScreen(DeleteRequest(topics=topics, regex=regex)))

    async def action_back(self) -> None:
        """Esc: back to the previous screen (the cluster screen is the root)."""
        if len(self.screen_stack) > ROOT_DEPTH:
            self.pop_screen()

    def pop_to_root(self) -> None:
        """Close every screen above the cluster screen."""
        while len(self.screen_stack) > ROOT_DEPTH:
            self.pop_screen()
