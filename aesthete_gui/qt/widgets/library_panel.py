"""The library side panel: the profile, its folders, its bursts and the saved filters."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.item_models import ImageListModel
from aesthete_gui.qt.widgets.frame_caption import name_tail

KIND_ROLE = Qt.ItemDataRole.UserRole + 1
# a set's sign goes before its name: after the count, "exposure bracket" was cut to "e…" at the
# panel's default width (the tooltip names the kind in words)
SET_SIGNS = {"exposure bracket": "±", "panorama": "↔", "focus stack": "≡"}
VALUE_ROLE = Qt.ItemDataRole.UserRole + 2


def burst_name(frames: list[str]) -> str:
    """A burst named by its first and last frames, the shared prefix said once ("IMG_0003–0007"); an
    original and its copies ("IMG_0050.JPG", "IMG_0050_small.JPG") by the original alone."""
    first, last = Path(frames[0]).stem, Path(frames[-1]).stem
    if last.startswith(first) and not last[len(first) : len(first) + 1].isdigit():  # not IMG_001 … IMG_0010
        return first
    prefix = first[: len(first) - len(name_tail(first))]  # "IMG_" of IMG_0006: said once
    return f"{first}–{last[len(prefix):] if prefix and last.startswith(prefix) else last}"


class LibraryPanel(QWidget):
    """Tree of profile / folders / bursts / saved filters; clicking one scopes the grid."""

    scope_selected = Signal(object, object)  # folder_id | None, burst_id | None
    saved_filter_selected = Signal(str)
    unreadable_selected = Signal()  # show only the files that could not be read
    profile_switch_requested = Signal()  # "Open or create another profile…"
    profile_selected = Signal(object)  # Path of another listed profile

    def __init__(self, context: AppContext, model: ImageListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._model = model
        self.setObjectName("libraryPanel")
        self.tree = QTreeWidget(self)
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)
        self.tree.itemClicked.connect(self._clicked)
        self.tree.itemActivated.connect(self._clicked)
        model.loaded.connect(self.refresh)
        model.sets_changed.connect(self.refresh)  # a bracket's sign appeared only after a later reload
        context.signals.settings_changed.connect(self._setting_changed)
        self.refresh()

    def refresh(self) -> None:
        """Rebuild the tree from the profile's folders and the loaded rows."""
        rows = self._model.all_rows()
        per_folder = Counter(r.folder_id for r in rows)
        per_burst = Counter(r.burst_id for r in rows if r.burst_id is not None)
        names: dict[int, list[str]] = {}
        set_kinds: dict[int, str] = {}  # a burst that is a bracket, panorama or focus stack: never culled
        for r in rows:
            if r.burst_id is not None:
                names.setdefault(r.burst_id, []).append(r.name)
                if r.set_kind:
                    set_kinds.setdefault(r.burst_id, r.set_kind)
        expanded = {item.text(0).split(" ")[0] for item in self._sections() if not item.isExpanded()}
        self.tree.clear()

        profile_path = self._context.profile_path
        profile = self._section("Profiles")
        name = profile_path.name if profile_path else "profile"
        current = self._leaf(profile, f"● {name}", "current", None, tip=str(profile_path or ""))
        font = current.font(0)
        font.setBold(True)
        current.setFont(0, font)
        for other in sibling_profiles(profile_path):
            self._leaf(profile, other.name, "profile", str(other), tip=str(other))
        self._leaf(profile, "Open or create another…", "profile", None)

        library = self._section("Library")
        self._leaf(library, f"All photographs  ({len(rows)})", "all", None)
        # the import said "195 imported, 1 unreadable" and the grid shows 196 tiles: both counts
        # show (a "(195 + 1 unreadable)" label was cut in a narrow panel)
        unreadable = sorted(r.path for r in rows if r.status != "ok")
        if unreadable:
            self._leaf(library, f"Unreadable  ({len(unreadable)})", "unreadable", None,
                       tip="Could not be read, or missing; click to show them in the grid, each with its reason:\n"
                       + "\n".join(unreadable[:20]) + ("\n…" if len(unreadable) > 20 else ""))  # fmt: skip
        for folder in self._context.profile.catalog.folders():
            label = Path(folder.path).name or folder.path
            self._leaf(library, f"{label}  ({per_folder.get(folder.id, 0)})", "folder", folder.id,
                       tip=folder.path)  # fmt: skip

        bursts = self._section(f"Bursts  ({len(per_burst)})")
        for position, (burst_id, size) in enumerate(sorted(per_burst.items()), start=1):
            # named by its frames (a list of "Burst N · k frames" rows told one burst from no other)
            frames = sorted(names.get(burst_id, []))
            span = burst_name(frames)
            # the count in brackets as the folders have it: "· 4 frames" was cut to "· 4 f…" in a narrow panel
            kind = set_kinds.get(burst_id, "")
            label = (f"{SET_SIGNS.get(kind, '◇')} " if kind else "") + f"{span}  ({size})"
            tip = f"Burst {position}: " + ", ".join(frames[:12]) + (" …" if len(frames) > 12 else "")
            if kind:
                tip += f"\nA {kind}: kept as a set, its frames never suggested as rejects"
            self._leaf(bursts, label, "burst", burst_id, tip=tip)

        saved = self._section("Saved filters")
        filters = self._context.settings.get("saved_filters") or {}
        if not filters:
            empty = QTreeWidgetItem(saved, ["(none yet)"])
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
        for filter_name in sorted(filters):
            self._leaf(saved, filter_name, "saved", filter_name)

        for item in self._sections():
            item.setExpanded(item.text(0).split(" ")[0] not in expanded)

    def _sections(self) -> list[QTreeWidgetItem]:
        """The tree's top-level items (its sections)."""
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in items if item is not None]

    def _section(self, title: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem(self.tree, [title])
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setFlags(Qt.ItemFlag.ItemIsEnabled)
        return item

    @staticmethod
    def _leaf(parent: QTreeWidgetItem, text: str, kind: str, value: object, tip: str = "") -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent, [text])
        item.setData(0, KIND_ROLE, kind)
        item.setData(0, VALUE_ROLE, value)
        if tip:
            item.setToolTip(0, tip)
        return item

    def _clicked(self, item: QTreeWidgetItem) -> None:
        kind, value = item.data(0, KIND_ROLE), item.data(0, VALUE_ROLE)
        if kind == "all":
            self.scope_selected.emit(None, None)
        elif kind == "folder":
            self.scope_selected.emit(value, None)
        elif kind == "burst":
            self.scope_selected.emit(None, value)
        elif kind == "unreadable":
            self.unreadable_selected.emit()
        elif kind == "saved":
            self.saved_filter_selected.emit(str(value))
        elif kind == "profile" and value:
            self.profile_selected.emit(Path(value))
        elif kind == "profile":
            self.profile_switch_requested.emit()

    def _setting_changed(self, key: str) -> None:
        if key == "saved_filters":
            self.refresh()


def sibling_profiles(profile_path: Path | None) -> list[Path]:
    """Other Aesthete profiles in the same folder as the current one (by name, sorted)."""
    if profile_path is None or not profile_path.parent.is_dir():
        return []
    return sorted(
        p for p in profile_path.parent.glob("*.db")
        if p != profile_path and p.is_file() and (p.name.endswith(".aesthete.db") or p.with_name(p.name + ".settings.json").exists())
    )  # fmt: skip
