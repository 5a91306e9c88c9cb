"""Consumer groups: listing, lag (Kafka-stored and ZooKeeper-stored groups), lag trend and offset resets."""
