"""The virtualised thumbnail grid: a QListView in icon mode over ImageListModel, painted by a delegate
that shows the thumbnail, file name, stars, flag, colour label, burst size and overall score."""

from __future__ import annotations

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSignalBlocker,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QKeyEvent, QMouseEvent, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QWidget,
)

from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.culling_actions import BURST_MARKS_SETTING, expand_to_bursts
from aesthete_gui.qt.item_models import ImageListModel, ImageRow, RowRole, ScoreTextRole, WhyRole
from aesthete_gui.qt.undo import MarkController, marks_for_key
from aesthete_gui.qt.widgets.frame_caption import wrapped_tip

LABEL_COLOURS: dict[str, str] = {
    "Red": "#d9534f",
    "Yellow": "#e6c229",
    "Green": "#5cb85c",
    "Blue": "#4a90d9",
    "Purple": "#9b6bcc",
}
PICK_COLOUR = "#f0f0f0"
REJECT_COLOUR = "#e0574f"
SUGGESTED_COLOUR = "#e0a030"  # amber "?" badge: a technical check suggests rejecting it
CHECKING_TEXT = "checking…"
CLOSED_EYES_COLOUR = "#e0574f"  # two shut lids, bottom left: a face has both eyes closed (the loupe's red)


class ThumbnailDelegate(QStyledItemDelegate):
    """Paints one grid cell; every cell has the same size so the view never measures rows."""

    def __init__(self, model: ImageListModel, cell: int = 176, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = model
        self.cell = cell

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        """Square thumbnail area plus two text lines."""
        return QSize(self.cell, self.cell + 40)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        """Background, thumbnail (or a placeholder), name, stars, flag, label bar, badges."""
        row: ImageRow | None = index.data(RowRole)
        if row is None:
            return
        palette = option.palette
        rect = option.rect.adjusted(3, 3, -3, -3)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        base = palette.color(palette.ColorRole.Base)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(palette.color(palette.ColorRole.Highlight) if selected else base.lighter(115))
        painter.drawRoundedRect(rect, 4, 4)

        image_rect = self.image_rect(option.rect)
        pixmap = index.data(Qt.ItemDataRole.DecorationRole)
        if pixmap is not None and not pixmap.isNull():
            scaled = pixmap.size().scaled(image_rect.size(), Qt.AspectRatioMode.KeepAspectRatio)
            target = QRect(0, 0, scaled.width(), scaled.height())
            target.moveCenter(image_rect.center())
            if row.flag == "reject":
                painter.setOpacity(0.35)
            painter.drawPixmap(target, pixmap)
            painter.setOpacity(1.0)
            if row.suggested_reject and not row.flag:
                # a dashed amber frame round the picture: the "?" badge alone was missed in a full
                # grid; dashed, as a suggestion is not yet the user's reject (dimmed, "X")
                pen = QPen(QColor(SUGGESTED_COLOUR), 2, Qt.PenStyle.DashLine)
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(target.adjusted(-2, -2, 1, 1))
                painter.setPen(Qt.PenStyle.NoPen)
        else:
            painter.setBrush(base.darker(110))
            painter.drawRect(image_rect)
            painter.setPen(palette.color(palette.ColorRole.PlaceholderText))
            text = "unreadable" if row.status != "ok" else "…"
            painter.drawText(image_rect, Qt.AlignmentFlag.AlignCenter, text)

        text_colour = palette.color(
            palette.ColorRole.HighlightedText if selected else palette.ColorRole.Text
        )
        name_rect = QRect(rect.left() + 6, image_rect.bottom() + 4, rect.width() - 12, 16)
        painter.setPen(text_colour)
        metrics = painter.fontMetrics()
        painter.drawText(
            name_rect,
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            metrics.elidedText(row.name, Qt.TextElideMode.ElideMiddle, name_rect.width()),
        )
        marks_rect = QRect(name_rect.left(), name_rect.bottom() + 2, name_rect.width(), 16)
        stars = "★" * row.stars + "☆" * (5 - row.stars)
        painter.setPen(QColor("#e6c229") if row.stars else palette.color(palette.ColorRole.PlaceholderText))
        painter.drawText(marks_rect, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, stars)
        score_text = index.data(ScoreTextRole)  # the score the sort uses ("My ranking": personal)
        if score_text:
            painter.setPen(text_colour)
            painter.drawText(
                marks_rect, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, score_text
            )
        if row.label:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(LABEL_COLOURS.get(row.label, "#888888")))
            painter.drawRect(QRect(rect.left(), rect.bottom() - 3, rect.width(), 4))
        if row.flag:
            self._badge(painter, image_rect.topLeft(), "P" if row.flag == "pick" else "X",
                        PICK_COLOUR if row.flag == "pick" else REJECT_COLOUR)  # fmt: skip
        elif row.suggested_reject:
            self._badge(painter, image_rect.topLeft(), "?", SUGGESTED_COLOUR)
        if row.eyes_closed:
            self._closed_eyes_badge(painter, image_rect.bottomLeft())
        elif not row.checked and row.status == "ok":  # the import's second pass has not reached it yet
            painter.setPen(palette.color(palette.ColorRole.PlaceholderText))
            painter.drawText(image_rect.adjusted(4, 0, -4, -2), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, CHECKING_TEXT)
        burst = self._model.burst_size(row.burst_id)
        if burst > 1:  # a burst the filter narrowed to this frame hides nothing
            badge = f"{burst}"
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(0, 0, 0, 170))
            width = metrics.horizontalAdvance(badge) + 22
            box = QRect(image_rect.right() - width, image_rect.top(), width, 18)
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(QColor("#ffffff"))
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, f"▣ {badge}")
        painter.restore()

    @staticmethod
    def image_rect(cell: QRect) -> QRect:
        """Where a cell's thumbnail is drawn (the badges sit on its corners)."""
        rect = cell.adjusted(3, 3, -3, -3)
        return QRect(rect.left() + 6, rect.top() + 6, rect.width() - 12, rect.width() - 12)

    def badge_at(self, cell: QRect, row: ImageRow, point: QPoint) -> bool:
        """True when `point` is on one of the row's badges (flag or suggestion, closed eyes, burst)."""
        image = self.image_rect(cell)
        boxes = []
        if row.flag or row.suggested_reject:
            boxes.append(QRect(image.left(), image.top(), 18, 18))
        if row.eyes_closed:
            boxes.append(QRect(image.left(), image.bottom() - 17, 28, 18))
        if self._model.burst_size(row.burst_id) > 1:
            boxes.append(QRect(image.right() - 60, image.top(), 61, 18))
        return any(box.adjusted(-2, -2, 2, 2).contains(point) for box in boxes)

    @staticmethod
    def _badge(painter: QPainter, corner, letter: str, colour: str) -> None:
        box = QRect(corner.x(), corner.y(), 18, 18)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, 170))
        painter.drawRoundedRect(box, 3, 3)
        painter.setPen(QPen(QColor(colour)))
        font = QFont(painter.font())
        font.setBold(True)
        painter.setFont(font)
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, letter)


    @staticmethod
    def _closed_eyes_badge(painter: QPainter, corner) -> None:
        """Two closed eyelids drawn as arcs (no font needs the glyph), above the bottom-left corner."""
        box = QRect(corner.x(), corner.y() - 17, 28, 18)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(0, 0, 0, 170))
        painter.drawRoundedRect(box, 3, 3)
        pen = QPen(QColor(CLOSED_EYES_COLOUR), 2)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for left in (box.left() + 4, box.left() + 15):
            painter.drawArc(QRect(left, box.top() + 3, 9, 8), 200 * 16, 140 * 16)  # the lower half: a lid shut


class GridView(QListView):
    """Thumbnail grid; culling keys mark the selection, Enter / double click opens the loupe."""

    open_requested = Signal(int)  # image id
    survey_requested = Signal()  # N: the selection (or the current burst) side by side
    mark_note = Signal(str)  # said in the status bar with the mark that follows (frames it reached)

    def __init__(
        self,
        context: AppContext,
        model: ImageListModel,
        marks: MarkController,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._model = model
        self._marks = marks
        self.setObjectName("gridView")
        self.setModel(model)
        self.delegate = ThumbnailDelegate(model, parent=self)
        self.setItemDelegate(self.delegate)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setUniformItemSizes(True)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setLayoutMode(QListView.LayoutMode.Batched)
        self.setBatchSize(400)
        self.setSpacing(2)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        # always shown, so that fitting the cells to the width never toggles it back and forth
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self._preferred_cell = self.delegate.cell
        self.verticalScrollBar().setSingleStep(24)
        self.setWordWrap(False)
        self.selectionModel().selectionChanged.connect(self._publish_selection)
        self.doubleClicked.connect(lambda index: self.open_requested.emit(index.data(RowRole).image_id))
        context.selection.changed.connect(self.follow_selection)
        model.modelAboutToBeReset.connect(self._remember_selection)
        model.modelReset.connect(self._restore_selection)
        marks.marked.connect(model.keep_listed)  # what the user marks under a filter stays listed until it changes
        marks.applied.connect(model.update_marks)
        marks.written.connect(model.marks_written)
        marks.changed_elsewhere.connect(model.marks_changed_elsewhere)
        self._kept_selection: list[int] = []
        self._kept_scroll = 0
        self._kept_is_refresh = False

    def selected_ids(self) -> list[int]:
        """Selected image ids in grid order, the current item last."""
        rows = sorted(i.row() for i in self.selectionModel().selectedIndexes())
        ids = [self._model.row_at(r).image_id for r in rows]
        current = self.currentIndex()
        if current.isValid() and current.row() in rows:
            current_id = self._model.row_at(current.row()).image_id
            ids.remove(current_id)
            ids.append(current_id)
        return ids

    def select_image(self, image_id: int) -> bool:
        """Make `image_id` the current (and only selected) item; False when it is filtered out."""
        position = self._model.position_of(image_id)
        if position is None:
            return False
        index = self._model.index(position)
        # explicit: setCurrentIndex alone selects by the keyboard modifiers held now (Ctrl toggles)
        self.selectionModel().setCurrentIndex(index, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        self.scrollTo(index)
        return True

    @property
    def preferred_cell(self) -> int:
        """The thumbnail size asked for (cells may be a little wider to fill the row)."""
        return self._preferred_cell

    def set_cell_size(self, cell: int) -> None:
        """Change the preferred thumbnail size (120–320 px); cells then stretch to fill each row."""
        self._preferred_cell = max(120, min(320, cell))
        self._fit_cells()
        self.doItemsLayout()

    def resizeEvent(self, event) -> None:
        """Stretch the cells so that whole columns fill the width (no ragged empty strip)."""
        self._fit_cells()
        super().resizeEvent(event)

    def _fit_cells(self) -> None:
        width = self.viewport().width()
        pitch = self._preferred_cell + 2 * self.spacing()
        columns = max(1, width // pitch)
        self.delegate.cell = max(self._preferred_cell, width // columns - 2 * self.spacing() - 1)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Culling keys act on the selection; Enter opens the loupe; W explains; the rest is QListView's."""
        QToolTip.hideText()  # an explanation belongs to the frame it was asked for: the next key ends it
        marks = marks_for_key(event.key(), event.modifiers())
        if marks is not None:
            self.mark_selection(marks, event.text().upper() or "the key")
            event.accept()
            return
        if event.key() == Qt.Key.Key_N and not event.modifiers():
            self.survey_requested.emit()
            event.accept()
            return
        if event.key() == Qt.Key.Key_W and not event.modifiers():
            self.explain(self.currentIndex())
            event.accept()
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            current = self.currentIndex()
            if current.isValid():
                self.open_requested.emit(self._model.row_at(current.row()).image_id)
            event.accept()
            return
        super().keyPressEvent(event)

    def mark_selection(self, marks: dict, key_name: str = "the mark") -> list[int]:
        """Mark what is selected (a collapsed burst: its cover, or its shown frames when the setting
        says all frames); says in the status bar when hidden frames were reached. Returns the ids."""
        selected = self.selected_ids()
        all_frames = bool(self._context.settings.get(BURST_MARKS_SETTING, False))
        ids = expand_to_bursts(self._model, selected, all_frames)
        hidden = len(ids) - len(selected)
        unreadable = []
        if marks.get("flag") == "pick" and len(ids) > 1:
            # a pick goes out with the delivery: a held11 trial's Ctrl+A, P picked the truncated file
            unreadable = [i for i in ids if (row := self._model.row_for(i)) is not None and row.status != "ok"]
            skipped = set(unreadable)
            ids = [i for i in ids if i not in skipped]
        if unreadable:
            self.mark_note.emit(f"{key_name} applied to {len(ids)} frames; {len(unreadable)} unreadable left unpicked "
                                "(Library ▸ Unreadable lists them)")  # fmt: skip
        elif hidden > 0:
            self.mark_note.emit(f"{key_name} applied to {len(ids)} frames ({hidden} hidden in collapsed bursts)")
        if ids:
            self._marks.mark(ids, **marks)
        return ids

    def invert_selection(self) -> None:
        """Select what is shown and not selected, and only that."""
        selection_model = self.selectionModel()
        selected = {i.row() for i in selection_model.selectedIndexes()}
        rest = [r for r in range(self._model.rowCount()) if r not in selected]
        if not rest:
            selection_model.clearSelection()
            return
        with QSignalBlocker(selection_model):
            selection_model.select(self._row_ranges(rest), QItemSelectionModel.SelectionFlag.ClearAndSelect)
            selection_model.setCurrentIndex(self._model.index(rest[0]), QItemSelectionModel.SelectionFlag.NoUpdate)
        self.scrollTo(self.currentIndex())
        self.viewport().update()
        self._publish_selection()

    def explain(self, index: QModelIndex, at: QPoint | None = None) -> str:
        """Show why the cell looks as it does (its failed checks, why a burst shows this frame) in a
        popup beside it; returns the text ("" when there is nothing to explain)."""
        if not index.isValid():
            return ""
        text = index.data(WhyRole) or ""
        row: ImageRow = index.data(RowRole)
        shown = text or f"{row.name}: every check passed; nothing was decided for you."
        where = at if at is not None else self.visualRect(index).center()
        QToolTip.showText(self.viewport().mapToGlobal(where), wrapped_tip(shown), self.viewport(), self.visualRect(index), 15_000)
        return shown

    def mousePressEvent(self, event: QMouseEvent) -> None:
        """A click on a badge (flag, suggested reject, closed eyes, burst) explains it."""
        super().mousePressEvent(event)
        index = self.indexAt(event.position().toPoint())
        if index.isValid() and event.button() == Qt.MouseButton.LeftButton:
            row = index.data(RowRole)
            if row is not None and self.delegate.badge_at(self.visualRect(index), row, event.position().toPoint()):
                self.explain(index, event.position().toPoint())

    def follow_selection(self, ids: list) -> None:
        """Show the shared selection made elsewhere (the loupe, the survey): one current image."""
        if not ids or ids == self.selected_ids():
            return
        positions = [p for p in map(self._model.position_of, ids) if p is not None]
        if not positions:
            return
        selection_model = self.selectionModel()
        with QSignalBlocker(selection_model):
            selection_model.select(self._row_ranges(positions), QItemSelectionModel.SelectionFlag.ClearAndSelect)
            current = self._model.position_of(ids[-1])
            selection_model.setCurrentIndex(
                self._model.index(current if current is not None else positions[-1]),
                QItemSelectionModel.SelectionFlag.NoUpdate,
            )
        self.scrollTo(self.currentIndex())
        self.viewport().update()

    def paintEvent(self, event) -> None:
        """The cells; when the filter hides every photograph, say so and how to see them again."""
        super().paintEvent(event)
        if self._model.rowCount() == 0 and self._model.total_count() > 0:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(self.palette().ColorRole.PlaceholderText))
            painter.drawText(
                self.viewport().rect().adjusted(24, 24, -24, -24),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                f"No photograph passes the filter ({self._model.total_count():,} in the library).\n"
                "Alt+0 shows every flag and star again; View ▸ Reset layout, sort and filters clears the rest.",
            )
            painter.end()

    def _publish_selection(self) -> None:
        self._context.selection.set_image_ids(self.selected_ids())

    def _remember_selection(self) -> None:
        QToolTip.hideText()  # the cell an explanation pointed at may move or vanish
        # behind another view (the survey, the loupe), the shared selection, not the grid's own: that
        # view may have made a frame current that a collapsed burst hides, which the grid cannot select
        shared = [] if self.isVisible() else self._context.selection.image_ids()
        self._kept_selection = shared or self.selected_ids()
        self._kept_scroll = self.verticalScrollBar().value()
        self._kept_is_refresh = self._model.refreshing

    def _restore_selection(self) -> None:
        # a frame hidden by collapsing its burst stays selected as the burst's cover, not the first row
        positions = self._model.shown_positions(self._kept_selection)
        if not positions and self._model.rowCount() > 0:
            positions = [0]
        selection_model = self.selectionModel()
        if positions:
            # one selection of contiguous ranges, applied silently: selecting row by row emitted
            # selectionChanged (and re-published the whole selection) once per kept image
            with QSignalBlocker(selection_model):
                selection_model.select(
                    self._row_ranges(positions), QItemSelectionModel.SelectionFlag.ClearAndSelect
                )
                selection_model.setCurrentIndex(
                    self._model.index(positions[-1]), QItemSelectionModel.SelectionFlag.NoUpdate
                )
        self.doItemsLayout()  # lay out now, so the scroll range is known before restoring it
        if self._kept_is_refresh:
            self.verticalScrollBar().setValue(self._kept_scroll)  # a data refresh never scrolls
        elif positions:  # a new filter or order: keep the current image in view
            self.scrollTo(self.currentIndex())
        self.viewport().update()
        if self.isVisible() or not self._still_shown(self._kept_selection):
            self._publish_selection()

    def _still_shown(self, image_ids: list[int]) -> bool:
        """Whether every one of these images is still in the view, on its own or behind its burst's
        tile: then, while another view is shown, the shared selection stands as it is (a held10 trial's
        pick in the survey re-arranged the grid, which put the picked tile back as the current frame
        under the survey's outline)."""
        state = self._model.filter_state
        return bool(image_ids) and all(
            (row := self._model.row_for(i)) is not None and (self._model.position_of(i) is not None or state.accepts(row))
            for i in image_ids
        )

    def _row_ranges(self, positions: list[int]) -> QItemSelection:
        """The rows at `positions` as one selection of contiguous ranges."""
        selection = QItemSelection()
        rows = sorted(set(positions))
        start = previous = rows[0]
        for row in [*rows[1:], None]:
            if row is not None and row == previous + 1:
                previous = row
                continue
            selection.select(self._model.index(start), self._model.index(previous))
            if row is not None:
                start = previous = row
        return selection
