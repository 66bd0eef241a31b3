"""Neutral dark-grey (default, for judging colour) and light themes: a Fusion palette plus a QSS file."""

from __future__ import annotations

import logging

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from aesthete_gui.resources import resource_file

log = logging.getLogger(__name__)

THEMES: tuple[str, ...] = ("dark", "light")

# Neutral greys only (no tint), so the surround does not shift how colours in photographs look.
_COLOURS: dict[str, dict[QPalette.ColorRole, str]] = {
    "dark": {
        QPalette.ColorRole.Window: "#2e2e2e",
        QPalette.ColorRole.WindowText: "#dcdcdc",
        QPalette.ColorRole.Base: "#242424",
        QPalette.ColorRole.AlternateBase: "#2a2a2a",
        QPalette.ColorRole.Text: "#dcdcdc",
        QPalette.ColorRole.PlaceholderText: "#8a8a8a",
        QPalette.ColorRole.Button: "#3a3a3a",
        QPalette.ColorRole.ButtonText: "#e6e6e6",
        QPalette.ColorRole.Highlight: "#5a7fa8",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#3a3a3a",
        QPalette.ColorRole.ToolTipText: "#f0f0f0",
        QPalette.ColorRole.Link: "#8fb4de",
        QPalette.ColorRole.Mid: "#444444",
        QPalette.ColorRole.Dark: "#1c1c1c",
    },
    "light": {
        QPalette.ColorRole.Window: "#ececec",
        QPalette.ColorRole.WindowText: "#202020",
        QPalette.ColorRole.Base: "#fafafa",
        QPalette.ColorRole.AlternateBase: "#f0f0f0",
        QPalette.ColorRole.Text: "#202020",
        QPalette.ColorRole.PlaceholderText: "#7a7a7a",
        QPalette.ColorRole.Button: "#e0e0e0",
        QPalette.ColorRole.ButtonText: "#202020",
        QPalette.ColorRole.Highlight: "#4a78b0",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.ToolTipBase: "#ffffff",
        QPalette.ColorRole.ToolTipText: "#202020",
        QPalette.ColorRole.Link: "#2d5d99",
        QPalette.ColorRole.Mid: "#c8c8c8",
        QPalette.ColorRole.Dark: "#a0a0a0",
    },
}


def build_palette(theme: str) -> QPalette:
    """The QPalette of a theme (disabled text greyed)."""
    if theme not in THEMES:
        raise ValueError(f"unknown theme {theme!r}; expected one of {', '.join(THEMES)}")
    palette = QPalette()
    for role, colour in _COLOURS[theme].items():
        palette.setColor(role, QColor(colour))
    disabled = QColor(_COLOURS[theme][QPalette.ColorRole.PlaceholderText])
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return palette


def style_sheet(theme: str) -> str:
    """The theme's QSS from resources/styles (empty when the file is missing)."""
    try:
        path = resource_file("styles", f"{theme}.qss")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        log.warning("style sheet for %s not found: %s", theme, exc)
        return ""


def apply_theme(app: QApplication, theme: str) -> None:
    """Switch the whole application to `theme` ("dark" or "light")."""
    app.setStyle("Fusion")
    app.setPalette(build_palette(theme))
    app.setStyleSheet(style_sheet(theme))
