"""The incident report: what happened to a cluster over a window of its history, and what was done."""
