"""The inspector: the current image's file facts and EXIF, its five scores (scorer and preset named),
the latest explanation a judge gave about it, quick technical checks (clipping, sharpness), and its
earlier mark values (who set each and when)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.qt.context import AppContext
from aesthete_gui.qt.grid_rows import scorer_title
from aesthete_gui.qt.widgets.check_rows import CheckLine, CheckRows, check_line
from aesthete_gui.qt.widgets.earlier_values import earlier_values
from aesthete_gui.qt.widgets.score_bars import ScoreBars

if TYPE_CHECKING:
    from aesthete_gui.store import Profile

EXIF_FIELDS: tuple[tuple[str, str], ...] = (
    ("camera", "Camera"),
    ("lens", "Lens"),
    ("exposure_time", "Shutter"),
    ("f_number", "Aperture"),
    ("iso", "ISO"),
    ("focal_length", "Focal length"),
)


@dataclass
class ImageDetails:
    """What the inspector shows about one image (gathered in a worker)."""

    image_id: int
    path: str = ""
    status: str = "ok"
    error: str | None = None
    facts: list[tuple[str, str]] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    scorer: str = ""
    preset: str = ""
    explanation: str = ""
    checks: list[CheckLine] = field(default_factory=list)
    earlier: list[tuple[str, str]] = field(default_factory=list)


def _format_exif(key: str, value: Any) -> str:
    if key == "exposure_time" and isinstance(value, int | float) and value > 0:
        return f"1/{round(1 / value)} s" if value < 1 else f"{value:g} s"
    if key == "f_number" and isinstance(value, int | float):
        return f"f/{value:g}"
    if key == "focal_length" and isinstance(value, int | float):
        return f"{value:g} mm"
    return str(value)


def format_capture_time(iso: str, sub_second: bool = False) -> str:
    """ "2026-06-13 11:11:34" from a stored ISO time; with `sub_second` (frames of a burst, where
    several share a second) and a fraction present, hundredths are added: "11:11:34.25"."""
    text = iso.replace("T", " ")
    whole, dot, fraction = text.partition(".")
    if not dot or not sub_second:
        return whole
    hundredths = fraction[:2].ljust(2, "0")
    return whole if hundredths == "00" else f"{whole}.{hundredths}"


def _explanation_for(profile: Profile, path: str) -> str:
    """The most recent judge explanation that involves `path` (set stages, else a rationale)."""
    judgment = profile.judgments.latest_explained(path)
    if judgment is None:
        return ""
    stages = getattr(judgment, "stages", ())
    if stages:
        titles = ("Analysis", "Critique", "Verdict")
        return "\n\n".join(f"{titles[i] if i < 3 else 'Stage'}: {text}" for i, text in enumerate(stages))
    return judgment.rationale


def technical_checks(path: str | None, stored: list[dict[str, Any]] | None = None) -> list[CheckLine]:
    """The image's technical checks as inspector rows: the stored ones, else measured from the file.

    Both come from imaging/checks.py on the same decode, so they match what import stored.
    """
    from aesthete_gui.imaging.checks import checks_for_path
    from aesthete_gui.imaging.decode import DecodeError

    if stored is None:
        if not path or not Path(path).is_file():
            return []
        try:
            stored = [c.as_dict() for c in checks_for_path(path)]
        except DecodeError:
            return []
    return [check_line(c) for c in stored]


def gather_details(
    profile: Profile, image_id: int, scorer: str | None, progress: Any = None, cancel: Any = None
) -> ImageDetails:
    """Read everything the inspector shows about one image (runs in a worker)."""
    record = profile.catalog.image_by_id(image_id)
    if record is None:
        return ImageDetails(image_id=image_id, status="missing", error="not in the profile")
    facts: list[tuple[str, str]] = [("File", Path(record.path).name), ("Folder", str(Path(record.path).parent))]
    if record.width and record.height:
        facts.append(("Size", f"{record.width} × {record.height}  {record.format or ''}".strip()))
    if record.capture_time:
        facts.append(("Captured", format_capture_time(record.capture_time, record.burst_id is not None)))
    for key, title in EXIF_FIELDS:
        value = record.exif.get(key)
        if value not in (None, ""):
            facts.append((title, _format_exif(key, value)))
    scores = profile.scores.of_scorer(scorer).get(image_id, {}) if scorer else {}
    provenance = profile.scores.provenance(image_id, scorer) if scores and scorer else None
    preset = ""
    if provenance and provenance["preset"]:
        version = provenance["preset_version"]
        preset = f"{provenance['preset']} v{version}" if version else provenance["preset"]
    stored = profile.checks.get(image_id)
    return ImageDetails(
        image_id=image_id,
        path=record.path,
        status=record.status,
        error=record.error,
        facts=facts,
        scores=dict(scores),
        scorer=scorer or "",
        preset=preset,
        explanation=_explanation_for(profile, record.path),
        checks=technical_checks(record.path, stored[0] if stored else None) if record.status == "ok" else [],
        earlier=earlier_values(profile.marks.history(image_id), _marks_in_force(profile, image_id)),
    )


def _marks_in_force(profile: Profile, image_id: int) -> tuple[int, str | None, str | None]:
    """The image's marks now: the values its history's last entry gave way to."""
    mark = profile.marks.get(image_id)
    return mark.stars, mark.flag, mark.label


class Inspector(QWidget):
    """Shows ImageDetails of the current selection; refreshes when marks, scores or judgments change."""

    def __init__(
        self,
        context: AppContext,
        parent: QWidget | None = None,
        shown_score: Callable[[int], tuple[float | None, str] | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self._context = context
        self._shown_score = shown_score  # the grid's score of an image and what it is (one score per view)
        self._image_id: int | None = None
        self.details: ImageDetails | None = None
        self.setObjectName("inspector")

        self.title = QLabel("No image selected", self)
        self.title.setObjectName("inspectorTitle")
        self.title.setWordWrap(True)
        self.facts_box = QGroupBox("Photograph", self)
        self.facts = QFormLayout(self.facts_box)
        self.facts.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.scores_box = QGroupBox("Scores", self)
        self.headline = QLabel(self.scores_box)
        self.headline.setObjectName("scoreHeadline")
        self.headline.setWordWrap(True)
        self.bars = ScoreBars(self.scores_box)
        self.scores_note = QLabel(self.scores_box)
        self.scores_note.setWordWrap(True)
        self.scores_note.setObjectName("muted")
        scores_layout = QVBoxLayout(self.scores_box)
        scores_layout.addWidget(self.headline)
        scores_layout.addWidget(self.bars)
        scores_layout.addWidget(self.scores_note)
        self.explain_box = QGroupBox("Explanation", self)
        self.explanation = QPlainTextEdit(self.explain_box)
        self.explanation.setReadOnly(True)
        self.explanation.setMinimumHeight(90)
        QVBoxLayout(self.explain_box).addWidget(self.explanation)
        self.checks_box = QGroupBox("Technical checks", self)
        self.checks = CheckRows(self.checks_box)
        checks_layout = QVBoxLayout(self.checks_box)
        checks_layout.setContentsMargins(2, 2, 2, 2)
        checks_layout.addWidget(self.checks)
        self.checks_box.setToolTip("Click a check for its full reason")
        self.earlier_box = QGroupBox("Earlier values", self)
        self.earlier = QFormLayout(self.earlier_box)

        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(8, 8, 8, 8)
        for widget in (self.title, self.facts_box, self.scores_box, self.checks_box, self.earlier_box,
                       self.explain_box):  # fmt: skip
            layout.addWidget(widget)
        layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(body)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)

        self._debounce = QTimer(self, singleShot=True, interval=120)
        self._debounce.timeout.connect(self._load)
        context.selection.changed.connect(self._selection_changed)
        context.signals.scores_changed.connect(self._debounce.start)
        context.signals.adapters_changed.connect(self._debounce.start)  # the active ranking changed
        context.signals.settings_changed.connect(self._setting_changed)
        context.signals.marks_changed.connect(self._marks_changed)
        self._show(None)

    def show_image(self, image_id: int | None) -> None:
        """Inspect `image_id` (None clears)."""
        self._image_id = image_id
        self._debounce.start()

    @property
    def image_id(self) -> int | None:
        """The image inspected (or about to be)."""
        return self._image_id

    def refresh_score(self) -> None:
        """Show the grid's score again (its sort or the active adapter changed)."""
        if self.details is not None:
            self._show_headline(self.details)

    def _show_headline(self, details: ImageDetails) -> None:
        shown = self._shown_score(details.image_id) if self._shown_score is not None else None
        if shown is None or details.status != "ok":
            self.headline.setVisible(False)
            return
        value, label = shown
        if value is None and not details.scores:  # "Not scored yet" below says it
            self.headline.setVisible(False)
            return
        self.headline.setText(f"<b>{value:.2f}</b> · {label}" if value is not None else f"– · {label} (no score yet)")
        self.headline.setToolTip("The score the grid shows for this photograph, and which scorer gave it")
        self.headline.setVisible(True)

    def _setting_changed(self, _key: str) -> None:
        self._debounce.start()

    def _marks_changed(self, ids: list) -> None:
        if self._image_id in ids:
            self._debounce.start()

    def _selection_changed(self, ids: list) -> None:
        self.show_image(ids[-1] if ids else None)

    def _load(self) -> None:
        if self._image_id is None:
            self._show(None)
            return
        self._context.runner.submit(
            "Inspect image",
            gather_details,
            self._context.profile,
            self._image_id,
            self._context.settings.get("scorer") or None,
            on_done=self._show,
            visible=False,
        )

    def _show(self, details: ImageDetails | None) -> None:
        if details is not None and details.image_id != self._image_id:
            return  # an older request finished after the selection moved on
        self.details = details
        _clear(self.facts)
        self.checks.set_lines([])
        _clear(self.earlier)
        for box in (self.facts_box, self.scores_box, self.checks_box, self.earlier_box, self.explain_box):
            box.setVisible(details is not None)
        if details is None:
            self.title.setText("No image selected")
            self.bars.set_scores({}, "")
            self.headline.setVisible(False)
            self.scores_note.setText("")
            self.explanation.setPlainText("")
            return
        self.title.setText(Path(details.path).name or "—")
        if details.status != "ok":
            self.facts.addRow("Problem", _wrapping(f"{details.status}: {details.error or ''}"))
        for name, value in details.facts:
            self.facts.addRow(name, _wrapping(value))
        # the preset stored with the scores, not today's setting: a score keeps its provenance
        caption = " · ".join(p for p in (scorer_title(details.scorer), details.preset) if p) if details.scores else ""
        self.bars.set_scores(details.scores, f"Five dimensions: {caption}" if caption else "")
        self._show_headline(details)
        if details.status != "ok":
            note = f"Cannot be scored — {details.status}: {details.error or 'no reason given'}"
        elif details.scores:
            note = ""
        else:
            note = "Not scored yet: Scoring ▸ Score selection (works without a model)."
        self.scores_note.setText(note)
        self.explanation.setPlainText(
            details.explanation or "No judge has explained this image yet (Set view: Ask the judge)."
        )
        self.checks.set_lines(details.checks)
        self.checks_box.setVisible(bool(details.checks))
        for when, value in details.earlier:
            self.earlier.addRow(when, _wrapping(value))
        self.earlier_box.setVisible(bool(details.earlier))


def _wrapping(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def _clear(form: QFormLayout) -> None:
    while form.rowCount():
        form.removeRow(0)
