"""A one-line caption under a frame: its file name, shortened in the middle so that the frame
number and extension stay readable, and its marks (stars, flag, label), which are never cut."""

from __future__ import annotations

import re
from collections.abc import Callable

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QWidget

ELLIPSIS = "…"
SEPARATOR = " · "
_TAIL = re.compile(r"\d+\D*$")
"""The end of a file name a photographer reads a frame by: its last number and what follows it."""


def name_tail(name: str) -> str:
    """The part of `name` that must stay visible: from its last run of digits to the end
    ("IMG_0005.JPG" → "0005.JPG"), else its extension."""
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    match = _TAIL.search(stem)
    return (match.group(0) if match else "") + dot + extension


def elide_name(name: str, width: int, measure: Callable[[str], int]) -> str:
    """`name` as it fits in `width` (as `measure` counts it): whole when it fits, else its start, an
    ellipsis and its tail (the number and extension); only when even the tail does not fit is the
    tail itself cut at its start."""
    if measure(name) <= width:
        return name
    tail = name_tail(name)
    head = name[: len(name) - len(tail)]
    low, high = 0, len(head)  # the longest start that fits before the ellipsis and the tail
    while low < high:
        middle = (low + high + 1) // 2
        if measure(head[:middle] + ELLIPSIS + tail) <= width:
            low = middle
        else:
            high = middle - 1
    if low > 0 or measure(ELLIPSIS + tail) <= width:
        return head[:low] + ELLIPSIS + tail
    for start in range(1, len(tail)):  # not even the tail fits: keep as much of its end as fits
        if measure(ELLIPSIS + tail[start:]) <= width:
            return ELLIPSIS + tail[start:]
    return ELLIPSIS


class _ElidedName(QLabel):
    """A label that paints its file name shortened in the middle to the width it is given."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def set_name(self, name: str) -> None:
        """Show `name` (the whole name is the tooltip)."""
        self._full = name
        self.setToolTip(name)
        self.updateGeometry()
        self.update()

    def full_name(self) -> str:
        """The name, never shortened."""
        return self._full

    def shown_text(self) -> str:
        """The name as painted at the current width."""
        metrics = QFontMetrics(self.font())
        return elide_name(self._full, self.contentsRect().width(), metrics.horizontalAdvance)

    def sizeHint(self) -> QSize:
        """The whole name's width: the caption is centred when there is room for it."""
        return QSize(QFontMetrics(self.font()).horizontalAdvance(self._full) + 2, super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:
        """Any width: the name shortens instead of widening the frame."""
        return QSize(0, super().minimumSizeHint().height())

    def paintEvent(self, _event) -> None:
        """The shortened name, centred."""
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(self.contentsRect(), int(Qt.AlignmentFlag.AlignCenter), self.shown_text())
        painter.end()


class FrameCaption(QWidget):
    """File name (shortened in the middle when narrow) and marks (always whole), centred on one line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name_label = _ElidedName(self)
        self.marks_label = QLabel(self)
        self.marks_label.setTextFormat(Qt.TextFormat.PlainText)
        self.marks_label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addStretch(1)
        layout.addWidget(self.name_label)
        layout.addWidget(self.marks_label)
        layout.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def set_caption(self, name: str, marks: list[str]) -> None:
        """Show `name` and the `marks` that apply (empty strings are left out)."""
        self.name_label.set_name(name)
        shown = [m for m in marks if m]
        self.marks_label.setText(SEPARATOR + SEPARATOR.join(shown) if shown and name else SEPARATOR.join(shown))
        self.marks_label.setVisible(bool(shown))
        self.setToolTip(self.text())

    def text(self) -> str:
        """The whole caption, name and marks, as one line of text."""
        return self.name_label.full_name() + (self.marks_label.text() if self.marks_label.isVisibleTo(self) else "")

    def shown_text(self) -> str:
        """The caption as it reads on screen at the current width."""
        marks = self.marks_label.text() if self.marks_label.isVisibleTo(self) else ""
        return self.name_label.shown_text() + marks


def wrapped_tip(text: str) -> str:
    """`text` as rich text for QToolTip, so Qt wraps long lines: a plain-text tip as wide as its
    longest reason line was pushed to the window's left edge, over the library panel."""
    import html

    return "<qt>" + html.escape(text).replace("\n", "<br>") + "</qt>"
