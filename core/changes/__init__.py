"""What changed: the cluster's recent past as ZooKeeper dates it (znode stats), grouped into bursts."""
