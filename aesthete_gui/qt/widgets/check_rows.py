"""The inspector's technical checks, one line each: the check, its verdict mark and its key number;
the full sentence is the line's tooltip and unfolds under it on a click."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent, QPainter
from PySide6.QtWidgets import QGridLayout, QLabel, QSizePolicy, QWidget

CHECK_TITLES: dict[str, str] = {
    "focus": "Focus", "motion_blur": "Motion blur", "highlights": "Blown highlights",
    "shadows": "Crushed shadows", "underexposure": "Under-exposure", "overexposure": "Over-exposure",
    "noise": "Noise", "resolution": "Size", "compression": "JPEG quality",
    "brightened": "Brightened", "eyes": "Eyes", "sequence": "Set", "copy": "Copy",
}  # fmt: skip
VERDICT_MARKS: dict[str, str] = {"ok": "", "warn": "⚠ ", "reject": "✖ "}
UNJUDGED = ("not judged", "not measured", "not a JPEG")


@dataclass(frozen=True)
class CheckLine:
    """One check as the inspector shows it: `text` is the verdict mark and the full reason,
    `summary` the short form on the line (the number that decided it)."""

    name: str
    title: str
    verdict: str
    summary: str
    text: str


def _first_finite(*values: float | None) -> float:
    return next((float(v) for v in values if v is not None and math.isfinite(float(v))), math.nan)


def _pct(value: float) -> str:
    return f"{value * 100:.0f} %"


def check_summary(name: str, value: float, measures: Mapping[str, float], reason: str, verdict: str = "ok") -> str:
    """A few words with the number a check was decided by ("edge 3.04 px", "σ 21.3 · colour 23.9");
    the reason itself when the check has no single number (a set, a copy) or was not judged."""
    if reason.startswith(UNJUDGED) or math.isnan(value):
        return reason
    get = measures.get
    summaries: dict[str, Any] = {
        "focus": lambda: f"edge {value:.2f} px" + (" (face)" if "face" in reason else ""),
        # the smear across the motion, the number the reason gives (the value is the widest edge width)
        "motion_blur": lambda: f"smear {_first_finite(get('across'), value):.1f} px" if verdict != "ok" else ("none (panning)" if "panning" in reason else "none"),
        # the value is the share with detail lost; a frame warned for smooth areas only (a sky, a
        # backdrop) read "0 % clipped" beside a reason saying 85 %: the smooth share then
        "highlights": lambda: (f"{_pct(get('smooth', 0.0))} clipped (smooth)" if value < 0.005 <= get("smooth", 0.0)
                               else f"{_pct(value)} clipped"),
        "shadows": lambda: f"{_pct(value)} crushed",
        "underexposure": lambda: f"peak {_pct(value)}",
        # blown to white or to a clipped colour: the share the reasons give (white alone read 37 %
        # beside a reason saying 44 %); the midtones only when nothing is blown (room in a narrow panel)
        "overexposure": lambda: (f"{_pct(max(value, _first_finite(get('colour'), value)))} blown"
                                 + (f" · mid {_pct(get('median', math.nan))}" if verdict == "ok" else "")),
        "noise": lambda: f"σ {value:.1f} · colour {get('chroma', 0.0):.1f}",
        "brightened": lambda: f"{_pct(value)} levels missing" if value else "none",
        "resolution": lambda: f"{value:.0f} px",
        "compression": lambda: f"quality ≈ {value:.0f}",
        "eyes": lambda: f"{value:.0f} closed" if value >= 1 else ("closed, expression" if get("closed", 0) >= 1 else "open"),
    }
    make = summaries.get(name)
    return make() if make is not None else reason


def check_line(check: Mapping[str, Any]) -> CheckLine:
    """The inspector line of one stored check (a `Check.as_dict()`)."""
    name, verdict, reason = str(check["name"]), str(check["verdict"]), str(check["reason"])
    value = check.get("value")
    number = float(value) if isinstance(value, int | float) else math.nan
    return CheckLine(
        name=name,
        title=CHECK_TITLES.get(name, name),
        verdict=verdict,
        summary=check_summary(name, number, check.get("measures") or {}, reason, verdict),
        text=f"{VERDICT_MARKS.get(verdict, '')}{reason}",
    )


class CheckRows(QWidget):
    """Every check on one line (mark, title, number); a click on a line unfolds its full reason."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(4, 4, 4, 4)
        self._grid.setHorizontalSpacing(8)
        self._grid.setVerticalSpacing(2)
        self._grid.setColumnStretch(1, 1)
        self.lines: list[CheckLine] = []
        self.reasons: list[QLabel] = []

    def set_lines(self, lines: list[CheckLine]) -> None:
        """Show `lines` folded (one line each)."""
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.lines, self.reasons = list(lines), []
        for index, line in enumerate(lines):
            title = _ClickLabel(f"{VERDICT_MARKS.get(line.verdict, '')}{line.title}", self)
            summary = _ClickLabel(line.summary, self, elide=True)
            reason = QLabel(line.text, self)
            reason.setWordWrap(True)
            reason.setObjectName("muted")
            reason.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            reason.setVisible(False)
            for label in (title, summary):
                label.setToolTip(line.text)
                label.clicked.connect(lambda i=index: self.toggle(i))
            self._grid.addWidget(title, 2 * index, 0)
            self._grid.addWidget(summary, 2 * index, 1)
            self._grid.addWidget(reason, 2 * index + 1, 0, 1, 2)
            self.reasons.append(reason)
        self._grid.setRowStretch(2 * len(lines), 1)  # room to spare goes below the lines, not into them

    def toggle(self, index: int) -> None:
        """Unfold (or fold) the full reason of line `index`."""
        self.reasons[index].setVisible(not self.reasons[index].isVisible())


class _ClickLabel(QLabel):
    """A one-line label that emits `clicked` when pressed (the check's line); with `elide`, right
    aligned and cut with "…" at its end when narrow (its number comes first, so it stays)."""

    clicked = Signal()

    def __init__(self, text: str, parent: QWidget | None = None, elide: bool = False) -> None:
        super().__init__(text, parent)
        self._elide = elide
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        if elide:
            self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def shown_text(self) -> str:
        """The text as painted at the current width."""
        if not self._elide:
            return self.text()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, self.contentsRect().width())

    def paintEvent(self, event) -> None:
        """Plain labels paint as usual; an eliding one paints its shortened text, right-aligned."""
        if not self._elide:
            super().paintEvent(event)
            return
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        align = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        painter.drawText(self.contentsRect(), int(align), self.shown_text())
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """Fold or unfold the line's reason."""
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
            event.accept()
            return
        super().mousePressEvent(event)
