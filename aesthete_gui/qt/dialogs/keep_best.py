"""Before "keep the best of each burst" rejects anything: every burst with the frames it keeps and
the frames it would reject, as thumbnails in a scrolling list, then Reject or Cancel. A RAW+JPEG
pair is one frame (one tile, "+ DNG"), and the tile says what happens to its other half."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.qt.grid_rows import judged_by_user
from aesthete_gui.qt.widgets.frame_caption import elide_name

if TYPE_CHECKING:
    from aesthete_gui.qt.culling_actions import BurstToThin
    from aesthete_gui.qt.grid_rows import ImageRow
    from aesthete_gui.qt.thumbnail_loader import ThumbnailLoader

TILE = 112
"""Thumbnail side in the preview (px): large enough to see which frame is soft."""
PITCH = TILE + 58
"""Horizontal room per tile in the preview (thumbnail, caption, frame, spacing)."""
MAX_BURSTS_SHOWN = 200
"""A preview of more bursts than this lists the first ones and says how many more there are."""
KEEP_STYLE = "QFrame#keep { border: 2px solid #5cb85c; border-radius: 4px; }"
REJECT_STYLE = "QFrame#reject { border: 2px solid #e0574f; border-radius: 4px; }"


class FrameTile(QFrame):
    """One frame: its thumbnail and name, outlined green (kept) or red (to be rejected)."""

    def __init__(
        self, row: ImageRow, kept: bool, best: bool = False, parent: QWidget | None = None,
        partners: Sequence[ImageRow] = (), pairs_as_one: bool = False,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.row = row
        self.kept = kept
        self.partners = list(partners)
        self.setObjectName("keep" if kept else "reject")
        self.setStyleSheet(KEEP_STYLE if kept else REJECT_STYLE)
        self.thumb = QLabel("…")
        self.thumb.setFixedSize(TILE, TILE)
        self.thumb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        extra = "".join(f" + {p.name.rpartition('.')[2]}" for p in self.partners)
        self.partner_note = partner_note(row, self.partners, kept, pairs_as_one)
        in_set = kept and not best and not judged_by_user(row) and bool(row.set_kind)  # kept for its set, not for a mark
        picked = best and any(r.flag == "pick" for r in (row, *self.partners))  # the RAW half's pick too
        word = "✔ your pick  " if picked else "✔ best  " if best else "✔ set  " if in_set else "✔ yours  " if kept else "✖ reject  "
        caption = QLabel()
        why = ("your pick: the frame this burst keeps" if picked else "the best frame of the burst" if best
               else "part of a bracket, panorama or focus stack: kept with its set" if in_set
               else "marked by you: kept" if kept else "not the best, not marked by you")  # fmt: skip
        caption.setToolTip("\n".join([row.path, why, *([self.partner_note] if self.partner_note else []), *row.check_notes]))
        self.caption = caption
        caption.setMaximumWidth(TILE + 40)
        # the verdict on its own line: the file name gets the tile's whole width, shortened (if at
        # all) in its start so the frame number and a "_small" or "-copy" stay readable
        name = elide_name(row.name + extra, TILE + 40, caption.fontMetrics().horizontalAdvance)
        caption.setText(word.strip() + "\n" + name)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(2)
        layout.addWidget(self.thumb, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(caption)
        if self.partners and not kept and not pairs_as_one:
            only = QLabel("this half only")
            only.setToolTip(self.partner_note)
            layout.addWidget(only)

    def set_pixmap(self, pixmap: QPixmap | None) -> None:
        """Show the thumbnail (scaled to the tile), or keep the placeholder."""
        if pixmap is not None and not pixmap.isNull():
            self.thumb.setPixmap(pixmap.scaled(TILE, TILE, Qt.AspectRatioMode.KeepAspectRatio,
                                               Qt.TransformationMode.SmoothTransformation))  # fmt: skip


def partner_note(row: ImageRow, partners: Sequence[ImageRow], kept: bool, pairs_as_one: bool) -> str:
    """What happens to the other half of a RAW+JPEG pair shown as one tile ("" for a single file)."""
    if not partners:
        return ""
    names = ", ".join(p.name for p in partners)
    if kept:
        return f"{names}, the other half of this RAW+JPEG pair, is kept with it"
    if pairs_as_one:
        return f"{names}, the other half of this RAW+JPEG pair, is rejected with it (pairs are one)"
    return (f"only {row.name} is rejected: {names}, the other half of this RAW+JPEG pair, stays as it is "
            "(pairs are two photographs; Edit ▸ Treat RAW+JPEG pairs as one rejects both)")  # fmt: skip


class KeepBestDialog(QDialog):
    """Lists what keeping the best of each burst would do; accepted means: reject those frames."""

    def __init__(self, bursts: Sequence[BurstToThin], thumbnails: ThumbnailLoader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keep the best of each burst")
        self._thumbnails = thumbnails
        self.tiles: list[FrameTile] = []
        self._bursts = list(bursts)
        rejected = sum(len(b.rejected) for b in bursts)
        kept = sum(len(b.kept) for b in bursts)
        pairs = sum(1 for b in bursts for r in b.rejected if r.image_id in b.partners)
        as_one = any(b.pairs_as_one for b in bursts)
        scored = any(r.scores for b in bursts for r in (*b.kept, *b.rejected))  # "then the score" only if one decided
        pair_text = ""
        if pairs:
            pair_text = (f" A RAW+JPEG pair counts as one frame: {'its other half is' if pairs == 1 else 'their other halves are'} "
                         + ("rejected with it (pairs are one)." if as_one else
                            "left as it is, only the JPEG shown is rejected (Edit ▸ Treat RAW+JPEG pairs as one rejects both)."))  # fmt: skip
        self.summary = QLabel(
            f"Reject {rejected} frame{'s' if rejected != 1 else ''} of {len(bursts)} "
            f"burst{'s' if len(bursts) != 1 else ''}, keeping {kept}: the best of each burst (in focus, "
            f"eyes open, no clipping{', then the score' if scored else ''}) and every frame you picked, starred or "
            "labelled. Frames you rejected stay rejected." + pair_text + " Ctrl+Z undoes it in one step."
        )
        self.summary.setWordWrap(True)
        screen = parent.screen().availableGeometry().size() if parent is not None and parent.screen() else QSize(1280, 800)
        widest = max((len(b.kept) + len(b.rejected) for b in bursts), default=1)
        width = min(150 + widest * PITCH, int(screen.width() * 0.9))
        per_line = max(2, (width - 120) // PITCH)  # a long burst wraps onto more lines: no sideways scrolling
        body = QWidget()
        grid = QGridLayout(body)
        grid.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        line = 0
        for number, burst in enumerate(bursts[:MAX_BURSTS_SHOWN], 1):
            frames = [(r, True) for r in burst.kept] + [(r, False) for r in burst.rejected]
            title = QLabel(f"Burst {number}\n{len(frames)} frames")
            title.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
            grid.addWidget(title, line, 0)
            for position, (row, keep) in enumerate(frames):
                tile = FrameTile(row, keep, best=position == 0, partners=burst.partners.get(row.image_id, ()),
                                 pairs_as_one=burst.pairs_as_one)  # fmt: skip
                tile.set_pixmap(thumbnails.request(row.image_id))
                grid.addWidget(tile, line + position // per_line, 1 + position % per_line)
                self.tiles.append(tile)
            line += (len(frames) + per_line - 1) // per_line
        if len(bursts) > MAX_BURSTS_SHOWN:
            more = QLabel(f"… and {len(bursts) - MAX_BURSTS_SHOWN} more bursts.")
            grid.addWidget(more, line, 0, 1, -1)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidget(body)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.reject_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.reject_button.setText(f"Reject {rejected} frame{'s' if rejected != 1 else ''}")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.scroll_area, 1)
        layout.addWidget(self.buttons)
        thumbnails.ready.connect(self._thumbnail_ready)
        self.finished.connect(lambda _result: thumbnails.ready.disconnect(self._thumbnail_ready))
        lines = min(line, 4)
        self.resize(width, min(130 + lines * (TILE + 56), int(screen.height() * 0.85)))

    def rejected_ids(self) -> list[int]:
        """The frames listed for rejection, in the order shown (a pair's other half too when pairs are one)."""
        return [i for burst in self._bursts for i in burst.rejected_ids()]

    def _thumbnail_ready(self, image_id: int) -> None:
        for tile in self.tiles:
            if tile.row.image_id == image_id:
                tile.set_pixmap(self._thumbnails.pixmap(image_id))
