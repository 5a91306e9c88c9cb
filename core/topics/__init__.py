"""Topic create, expand and delete: the facts they read, plans, guards, writes and progress."""
