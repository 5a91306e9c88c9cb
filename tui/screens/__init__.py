"""One screen per module; ``SCREEN_CLASSES`` lists every place bindings live, for the help screen."""

from __future__ import annotations

from textual.dom import DOMNode

from tui.dialogs.jump import JumpDialog
from tui.screens.base import KzcScreen
from tui.screens.broker import BrokerScreen
from tui.screens.checks import ChecksScreen
from tui.screens.cluster import ClusterScreen, HealthCounter
from tui.screens.config_edit import BrokerConfigEditScreen, ConfigEditScreen
from tui.screens.create_topic import CreateTopicScreen
from tui.screens.delete import DeleteScreen
from tui.screens.elect_preferred import ElectPreferredScreen
from tui.screens.expand import ExpandScreen
from tui.screens.fleet import FleetScreen
from tui.screens.groups import GroupDetailScreen, GroupsScreen
from tui.screens.help import HelpScreen
from tui.screens.messages import MessageScreen, MessagesScreen
from tui.screens.move_off import MoveOffScreen
from tui.screens.partitions import PartitionsScreen
from tui.screens.security import SecurityScreen
from tui.screens.security_forms import SecurityFormScreen
from tui.screens.stop_check import StopCheckScreen
from tui.screens.timeline import TimelineScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.screens.topics import TopicsScreen
from tui.screens.zk_browser import ZkBrowserScreen
from tui.screens.zk_health import ZkHealthScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.virtual_table import VirtualTable

SCREEN_CLASSES: list[tuple[str, type[DOMNode]]] = [
    ("every screen", KzcScreen),
    ("cluster", ClusterScreen),
    ("fleet", FleetScreen),
    ("health counter", HealthCounter),
    ("partitions", PartitionsScreen),
    ("topics", TopicsScreen),
    ("topic detail", TopicDetailScreen),
    ("zookeeper", ZkBrowserScreen),
    ("zookeeper health", ZkHealthScreen),
    ("security", SecurityScreen),
    ("stop check", StopCheckScreen),
    ("broker", BrokerScreen),
    ("create", CreateTopicScreen),
    ("expand", ExpandScreen),
    ("delete", DeleteScreen),
    ("move off broker", MoveOffScreen),
    ("preferred election", ElectPreferredScreen),
    ("topic config", ConfigEditScreen),
    ("broker config", BrokerConfigEditScreen),
    ("security forms", SecurityFormScreen),
    ("checks", ChecksScreen),
    ("groups", GroupsScreen),
    ("group detail", GroupDetailScreen),
    ("timeline", TimelineScreen),
    ("messages", MessagesScreen),
    ("message", MessageScreen),
    ("tables", VirtualTable),
    ("filter bar", FilterBar),
    ("help", HelpScreen),
    ("jump dialog", JumpDialog),
]
