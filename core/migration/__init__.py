"""The ZooKeeper-to-KRaft migration: its phase, brokers and blockers as kzc shows them."""
