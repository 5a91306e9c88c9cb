"""kzc core: all logic of the console, headless (never imports textual, rich or tui)."""

__version__ = "0.1.0"
