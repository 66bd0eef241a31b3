"""Model manager: choose the judge (local folder, hub id, or server) and the scorer; shows the device,
each model's disk and memory needs, and what each model would add. Works with nothing installed."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.engine.scorers import BUILTIN
from aesthete_gui.jobs import Progress
from aesthete_gui.qt.actions import configured_judge
from aesthete_gui.qt.dialogs.model_manager_cards import CARD_COLUMNS, describe_card
from aesthete_gui.qt.dialogs.model_manager_pages import FolderPage, HubPage, ServerPage
from aesthete_gui.qt.file_dialogs import choose_folder
from aesthete_gui.services.models import (
    CONNECT_TIMEOUT_S,
    detect_device,
    download_model,
    inspect_folder,
    read_cards,
    test_connection,
)

if TYPE_CHECKING:
    from aesthete_gui.ml.registry import ModelCard
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.task_runner import JobHandle
    from aesthete_gui.services.compare import JudgeSpec
    from aesthete_gui.services.models import DeviceInfo

log = logging.getLogger(__name__)

__all__ = [
    "CARD_COLUMNS",
    "CONNECT_TIMEOUT_S",
    "JUDGE_ADDS",
    "SCORER_ADDS",
    "SOURCES",
    "SOURCE_LABELS",
    "ModelManagerDialog",
    "describe_card",
    "detect_device",
    "download_model",
    "inspect_folder",
    "judge_source",
    "test_connection",
]

JUDGE_ADDS = (
    "A <b>judge</b> is a vision-language model. It adds: the best and worst of a set with a "
    "three-stage explanation you can check, five-dimension scores for each image, and A/B "
    "comparisons that seed your taste model. Without one, everything else still works: import, "
    "culling, your own comparisons, and a personal ranking learnt from your choices."
)
SCORER_ADDS = (
    "The <b>scorer</b> gives every image five scores (technique, coloration, composition, mood, "
    "overall) in one pass, fast enough for a whole shoot. The built-in scorer needs no download: "
    "it reads image properties and an on-board image encoder. A distilled scorer learns from "
    "the judge's comparisons and follows it more closely."
)
SOURCES = ("none", "folder", "hub", "server")
SOURCE_LABELS = {
    "none": "No judge",
    "folder": "Local folder",
    "hub": "Download from the hub",
    "server": "Server (OpenAI-compatible)",
}


def judge_source(judge: JudgeSpec | None) -> str:
    """Which kind of judge is configured: none, a server, a hub id or a local folder."""
    if judge is None:
        return "none"
    if judge.endpoint:
        return "server"
    from aesthete_gui.services.models import looks_like_hub_id

    return "hub" if looks_like_hub_id(judge.model) else "folder"


class ModelManagerDialog(QDialog):
    """The Qt view of the model settings: judge and scorer choice, downloads, connection test."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("Models")
        self._job: JobHandle | None = None
        self._cards: list[ModelCard] = read_cards()
        self._build()
        self._load_settings()
        self._device_job = context.runner.submit(
            "Detect device",
            detect_device,
            on_done=self._show_device,
            on_error=self._device_unknown,
        )

    # -- layout --------------------------------------------------------------------------------
    def _build(self) -> None:
        self.device_label = QLabel("Device: detecting…")
        judge_box = QGroupBox("Judge")
        judge_layout = QVBoxLayout(judge_box)
        judge_text = QLabel(JUDGE_ADDS)
        judge_text.setWordWrap(True)
        judge_layout.addWidget(judge_text)
        self.source_buttons: dict[str, QRadioButton] = {}
        self.source_group = QButtonGroup(self)
        sources_row = QHBoxLayout()
        for source in SOURCES:
            button = QRadioButton(SOURCE_LABELS[source])
            self.source_group.addButton(button)
            self.source_buttons[source] = button
            sources_row.addWidget(button)
            button.toggled.connect(self._on_source_toggled)
        sources_row.addStretch(1)
        judge_layout.addLayout(sources_row)

        self.folder_page = FolderPage()
        self.folder_page.browse_button.clicked.connect(self._browse_folder)
        self.folder_page.inspect_button.clicked.connect(self.inspect)
        self.hub_page = HubPage(self._cards)
        self.hub_page.download_button.clicked.connect(self.download)
        self.server_page = ServerPage()
        self.server_page.test_button.clicked.connect(self.test_server)
        self.folder_edit = self.folder_page.folder_edit
        self.inspect_button = self.folder_page.inspect_button
        self.folder_info = self.folder_page.folder_info
        self.hub_combo = self.hub_page.hub_combo
        self.download_button = self.hub_page.download_button
        self.card_info = self.hub_page.card_info
        self.cards_table = self.hub_page.cards_table
        self.url_edit = self.server_page.url_edit
        self.server_model_edit = self.server_page.server_model_edit
        self.test_button = self.server_page.test_button
        self.server_info = self.server_page.server_info

        self.source_pages = QStackedWidget()
        none_page = QLabel("No judge: the app works fully; set one whenever you like.")
        none_page.setWordWrap(True)
        self.source_pages.addWidget(none_page)
        self.source_pages.addWidget(self.folder_page)
        self.source_pages.addWidget(self.hub_page)
        self.source_pages.addWidget(self.server_page)
        judge_layout.addWidget(self.source_pages)

        scorer_box = QGroupBox("Scorer")
        scorer_layout = QVBoxLayout(scorer_box)
        scorer_text = QLabel(SCORER_ADDS)
        scorer_text.setWordWrap(True)
        scorer_layout.addWidget(scorer_text)
        self.scorer_combo = QComboBox()
        self.scorer_combo.addItems(_available_scorers(self.context))
        scorer_form = QFormLayout()
        scorer_form.addRow("Scorer:", self.scorer_combo)
        scorer_layout.addLayout(scorer_form)

        self.job_status = QLabel()
        self.job_status.setWordWrap(True)
        self.job_progress = QProgressBar()
        self.job_progress.setVisible(False)
        self.job_cancel = QPushButton("Cancel")
        self.job_cancel.setVisible(False)
        self.job_cancel.clicked.connect(self.cancel_job)
        job_row = QHBoxLayout()
        job_row.addWidget(self.job_progress, 1)
        job_row.addWidget(self.job_cancel)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.device_label)
        layout.addWidget(judge_box)
        layout.addWidget(scorer_box)
        layout.addLayout(job_row)
        layout.addWidget(self.job_status)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.resize(920, 660)

    # -- settings ------------------------------------------------------------------------------
    def _load_settings(self) -> None:
        settings = self.context.settings
        judge = configured_judge(settings)
        source = judge_source(judge)
        self.source_buttons[source].setChecked(True)
        if judge is not None and source == "folder":
            self.folder_edit.setText(judge.model)
        elif judge is not None and source == "hub":
            self.hub_combo.setCurrentText(judge.model)
        elif judge is not None and source == "server":
            self.url_edit.setText(judge.endpoint or "")
            self.server_model_edit.setText(judge.model)
        self.scorer_combo.setCurrentText(settings.get("scorer") or BUILTIN)
        self.hub_page.show_card(self.hub_combo.currentText())

    def selected_source(self) -> str:
        """The judge source whose radio button is checked."""
        return next(s for s, b in self.source_buttons.items() if b.isChecked())

    def chosen_judge(self) -> str | None:
        """The folder, hub id or server URL the dialog would save (None for no judge)."""
        source = self.selected_source()
        value = {
            "none": "",
            "folder": self.folder_edit.text(),
            "hub": self.hub_combo.currentText(),
            "server": self.url_edit.text(),
        }[source].strip()
        return value or None

    def chosen_spec(self) -> JudgeSpec | None:
        """The judge the dialog would save, typed; JudgeSettingError when it is incomplete."""
        from aesthete_gui.services.compare import JudgeSpec

        value = self.chosen_judge()
        if value is None:
            return None
        if self.selected_source() == "server":
            return JudgeSpec.from_settings({"endpoint": value, "model": self.server_model_edit.text().strip()})
        return JudgeSpec.from_settings({"model": value})

    def save(self) -> None:
        """Write the judge (a typed record) and the scorer choice to the settings and close."""
        from aesthete_gui.services.compare import JudgeSettingError

        judge = self.chosen_judge()
        source = self.selected_source()
        if source != "none" and judge is None:
            self.job_status.setText(
                "Fill in the judge's folder, hub id or server URL first (or choose No judge)."
            )
            return
        if source == "folder" and not Path(judge or "").expanduser().is_dir():
            self.job_status.setText(f"{judge} is not a folder.")
            return
        try:
            spec = self.chosen_spec()
        except JudgeSettingError as error:
            self.job_status.setText(str(error).replace("; choose the judge again (Models ▸ Model manager)", ""))
            return
        self.context.set_setting("judge", spec.to_settings() if spec is not None else None)
        self.context.set_setting("scorer", self.scorer_combo.currentText().strip() or BUILTIN)
        self.accept()

    # -- jobs ----------------------------------------------------------------------------------
    def inspect(self) -> JobHandle:
        """Read the local folder's size and memory needs in a job."""
        self.folder_info.setText("Reading the model folder…")
        return self._start(
            "Inspect model folder",
            inspect_folder,
            self.folder_edit.text(),
            on_done=self.folder_info.setText,
            on_error=lambda e: self.folder_info.setText(f"Not usable: {e}"),
        )

    def download(self) -> JobHandle:
        """Download the chosen hub model as a job with progress and Cancel."""
        model_id = self.hub_combo.currentText().strip()
        self.card_info.setText(f"Downloading {model_id}…")
        return self._start(
            f"Download {model_id}",
            download_model,
            model_id,
            on_done=lambda folder: self.hub_page.show_card(model_id, f"Downloaded to {folder}."),
            on_error=lambda e: self.hub_page.show_card(model_id, f"Download failed: {e}"),
        )

    def test_server(self) -> JobHandle:
        """Ask the server for its model list in a job."""
        url = self.url_edit.text().strip()
        self.server_info.setText(f"Connecting to {url}…")
        return self._start(
            "Test server connection",
            test_connection,
            url,
            on_done=self._show_server_models,
            on_error=lambda e: self.server_info.setText(f"Connection failed: {e}"),
        )

    def cancel_job(self) -> None:
        """Cancel the dialog's running job (download, check or connection test)."""
        if self._job is not None and not self._job.done:
            self._job.cancel()

    def _start(self, name: str, fn: Any, *args: Any, on_done: Any, on_error: Any) -> JobHandle:
        self.cancel_job()
        job = self.context.runner.submit(name, fn, *args, on_done=on_done, on_error=on_error)
        self._job = job
        self.job_progress.setRange(0, 0)
        self.job_progress.setVisible(True)
        self.job_cancel.setVisible(True)
        self.job_status.setText(f"{name}…")
        job.progress.connect(self._on_progress)
        job.ended.connect(lambda: self._on_job_ended(job))
        return job

    def _on_progress(self, progress: Progress) -> None:
        if progress.total:
            self.job_progress.setRange(0, 1000)
            self.job_progress.setValue(int(1000 * (progress.fraction or 0)))
        if progress.message:
            self.job_status.setText(progress.message)

    def _on_job_ended(self, job: JobHandle) -> None:
        if job is not self._job:
            return
        self.job_progress.setVisible(False)
        self.job_cancel.setVisible(False)
        self.job_status.setText(
            {"cancelled": f"{job.name}: cancelled.", "failed": f"{job.name}: failed."}.get(
                job.state.value, ""
            )
        )

    def _show_device(self, device: DeviceInfo) -> None:
        self.device_label.setText(f"Device: models would run on the {device}.")
        self.hub_page.show_speeds(device)

    def _device_unknown(self, error: BaseException) -> None:
        self.device_label.setText(f"Device: unknown ({error})")
        self.hub_page.show_speeds(None)

    def _show_server_models(self, models: list[str]) -> None:
        if not models:
            self.server_info.setText("Connected; the server lists no models.")
            return
        self.server_info.setText(f"Connected. Models served: {', '.join(models[:8])}")
        if not self.server_model_edit.text().strip():
            self.server_model_edit.setText(models[0])

    def _on_source_toggled(self) -> None:
        source = next((s for s, b in self.source_buttons.items() if b.isChecked()), "none")
        self.source_pages.setCurrentIndex(SOURCES.index(source))

    def _browse_folder(self) -> None:
        folder = choose_folder(self, "Model folder", self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)
            self.inspect()

    def done(self, result: int) -> None:
        """Closing the dialog cancels its running job."""
        self.cancel_job()
        super().done(result)


def _available_scorers(context: AppContext) -> list[str]:
    """Every registered scorer that can score now (built-in, students, adapters, the judge's VLM)."""
    from aesthete_gui.qt.actions import scorer_entries

    return [entry.scorer_id for entry in scorer_entries(context.profile, configured_judge(context.settings))]
