"""What the console takes from the config file when it starts: the themes (built in and the user's) and
the theme to use, and the ``[keys]`` remaps; every problem found is returned to be shown, never raised."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from textual.app import App

from core.config import UserConfig
from core.config_file import config_dir, load_config
from core.errors import KzcError
from themes import ThemeSet, choose_theme, load_themes
from tui.keymap import check_keymap


def read_config(config: UserConfig | None) -> tuple[UserConfig, ThemeSet, list[str]]:
    """``config`` (read from the default place if None), the theme set, and the problems met reading them."""
    problems: list[str] = []
    if config is None:
        try:
            config = load_config()
        except KzcError as exc:
            problems.append(str(exc))
            config = UserConfig()
    return config, load_themes(config_dir() / "themes"), problems


def apply_config(app: App[Any], config: UserConfig, theme_set: ThemeSet, binding_ids: Iterable[str]) -> list[str]:
    """Register the themes, pick one (monochrome under ``NO_COLOR`` or 16 colours), apply ``[keys]``;
    returns the problems found."""
    problems = list(theme_set.problems)
    for theme in theme_set.themes.values():
        app.register_theme(theme)
    requested = config.theme
    if requested is not None and requested not in theme_set.themes:
        problems.append(
            f"theme '{requested}' not found (built in: dark, light, high-contrast, "
            "monochrome; add yours as themes/<name>.toml in the config directory)"
        )
    colours = {"truecolor": 2**24, "256": 256}.get(app.console.color_system or "", 16)
    app.theme = choose_theme(requested, theme_set.themes, "NO_COLOR" in os.environ or app.no_color, colours)
    keys = dict(config.keys)
    problems.extend(check_keymap(keys, binding_ids))
    app.set_keymap(keys)
    return problems
