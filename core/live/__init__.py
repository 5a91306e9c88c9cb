"""The live cluster: ZooKeeper watches (watcher), the state they maintain, and the typed change events."""
