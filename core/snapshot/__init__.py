"""The cluster snapshot: the immutable model, reading it from ZooKeeper, its file form, health and summary."""
