"""Kafka security kept in ZooKeeper: ACLs (``acls.py``), client quotas (``quotas.py``) and SCRAM users
(``users.py``): read, plan with a preview, and write as Kafka's own tools and authorizer do."""
