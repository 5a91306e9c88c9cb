"""A real local cluster (ZooKeeper and Kafka brokers on 127.0.0.1) and its jars."""
