"""Messages read from a topic: how a value is shown (``render``) and the read-only reader (``reader``)."""
