"""Textual themes of the kzc console and how one is chosen.

Built in (one TOML file each, next to this module): ``dark`` (default), ``light``, ``high-contrast`` and
``monochrome``. Users add their own as ``<config dir>/themes/<name>.toml`` in the same format (see
``docs/console.md``); a user theme with a built-in name replaces it. ``monochrome`` is used
automatically when ``NO_COLOR`` is set (always), or when the terminal reports 16 colours or fewer and
the config file names no theme.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from textual.theme import Theme

BUILTIN_DIR = Path(__file__).resolve().parent
BUILTIN_NAMES = ("dark", "light", "high-contrast", "monochrome")
DEFAULT_THEME = "dark"
MONOCHROME = "monochrome"
_COLOURS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_KEYS = {"name", "dark", "luminosity_spread", "text_alpha", "variables", *_COLOURS}


class ThemeFileError(Exception):
    """A theme file is unreadable or not in the theme format; ``str()`` says which and why."""


@dataclass(frozen=True)
class ThemeSet:
    """Every theme available: built-ins, then user themes; ``problems`` lists user files that failed."""

    themes: Mapping[str, Theme]
    problems: tuple[str, ...] = ()


def load_theme_file(path: Path) -> Theme:
    """Read one theme TOML file.

    Raises:
        ThemeFileError: the file is unreadable, lacks ``primary`` or holds unknown keys or bad values.
    """
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ThemeFileError(f"theme file {path}: {exc}") from exc
    unknown = set(raw) - _KEYS
    if unknown:
        raise ThemeFileError(f"theme file {path}: unknown key(s) {', '.join(sorted(unknown))}")
    name = raw.get("name", path.stem)
    if not isinstance(name, str) or not name:
        raise ThemeFileError(f"theme file {path}: name must be a non-empty string")
    if not isinstance(raw.get("primary"), str):
        raise ThemeFileError(f'theme file {path}: primary must be a colour string such as "#4f9fe0"')
    colours = {key: raw[key] for key in _COLOURS if key in raw}
    if not all(isinstance(value, str) for value in colours.values()):
        raise ThemeFileError(f'theme file {path}: colours must be strings such as "#4f9fe0"')
    variables = raw.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeFileError(f"theme file {path}: [variables] must map names to strings")
    dark = raw.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeFileError(f"theme file {path}: dark must be true or false")
    numbers: dict[str, float] = {"luminosity_spread": 0.15, "text_alpha": 0.95}
    for key in numbers:
        if key in raw:
            if not isinstance(raw[key], int | float) or isinstance(raw[key], bool):
                raise ThemeFileError(f"theme file {path}: {key} must be a number")
            numbers[key] = float(raw[key])
    theme = Theme(
        name=name,
        dark=dark,
        variables=dict(variables),
        luminosity_spread=numbers["luminosity_spread"],
        text_alpha=numbers["text_alpha"],
        **colours,
    )
    try:
        theme.to_color_system().generate()
    except Exception as exc:  # Textual's colour parser raises several types for a bad colour string
        raise ThemeFileError(f"theme file {path}: {exc}") from exc
    return theme


def load_themes(user_dir: Path | None) -> ThemeSet:
    """The built-in themes plus every ``*.toml`` in ``user_dir`` (missing directory: none)."""
    themes: dict[str, Theme] = {}
    for name in BUILTIN_NAMES:
        themes[name] = load_theme_file(BUILTIN_DIR / f"{name}.toml")
    problems: list[str] = []
    if user_dir is not None and user_dir.is_dir():
        for path in sorted(user_dir.glob("*.toml")):
            try:
                theme = load_theme_file(path)
            except ThemeFileError as exc:
                problems.append(str(exc))
                continue
            themes[theme.name] = theme
    return ThemeSet(themes, tuple(problems))


def choose_theme(requested: str | None, available: Mapping[str, Theme], no_color: bool, colours: int) -> str:
    """The theme to start with.

    Args:
        requested: the config file's ``theme`` (``None`` when not set).
        available: every loaded theme by name.
        no_color: ``NO_COLOR`` is set (always monochrome).
        colours: how many colours the terminal reports (16 or fewer: monochrome unless requested).
    """
    if no_color:
        return MONOCHROME
    if requested is not None and requested in available:
        return requested
    if colours <= 16:
        return MONOCHROME
    return DEFAULT_THEME
