"""ZooKeeper access: the one session owner, and generic tree browsing."""
