"""Model manager: choose the judge (local folder, hub id, or server) and the scorer; shows the device,
each model's disk and memory needs, and what each model would add. Works with nothing installed."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.jobs import CancelToken, Progress, ProgressCallback

if TYPE_CHECKING:
    from aesthete_gui.ml.registry import ModelCard
    from aesthete_gui.qt.context import AppContext
    from aesthete_gui.qt.task_runner import JobHandle

log = logging.getLogger(__name__)

JUDGE_ADDS = (
    "A <b>judge</b> is a vision-language model. It adds: the best and worst of a set with a "
    "three-stage explanation you can check, five-dimension scores for each image, and A/B "
    "comparisons that seed your taste model. Without one, everything else still works: import, "
    "culling, your own comparisons, and a personal ranking learnt from your choices.")
SCORER_ADDS = (
    "The <b>scorer</b> gives every image five scores (technique, coloration, composition, mood, "
    "overall) in one pass, fast enough for a whole shoot. The built-in scorer needs no download: "
    "it reads image properties and an on-board image encoder. A distilled scorer learns from "
    "the judge's comparisons and follows it more closely.")
SOURCES = ("none", "folder", "hub", "server")
SOURCE_LABELS = {"none": "No judge", "folder": "Local folder", "hub": "Download from the hub",
                 "server": "Server (OpenAI-compatible)"}
CONNECT_TIMEOUT_S = 5.0
CARD_COLUMNS = ("Model", "Parameters", "GPU memory (bf16)", "CPU memory (fp32)", "Licence",
                "Downloaded")


def judge_source(value: str | None) -> str:
    """Which kind of judge a settings value names: none, server URL, local folder or hub id."""
    if not value:
        return "none"
    if value.startswith(("http://", "https://")):
        return "server"
    from aesthete_gui.ml.loading import looks_like_hub_id

    return "hub" if looks_like_hub_id(value) else "folder"


def detect_device(progress: ProgressCallback | None = None,
                  cancel: CancelToken | None = None) -> str:
    """A one-line description of where models would run (imports torch, so run it as a job)."""
    from aesthete_gui.ml.loading import available_memory_bytes, choose_device

    choice = choose_device()
    free = available_memory_bytes(choice.device)
    name = {"cuda": "CUDA GPU", "mps": "Apple GPU (MPS)", "cpu": "CPU"}.get(
        choice.device.split(":")[0], choice.device)
    memory = f", {free / 2**30:.1f} GiB free" if free else ""
    return f"{name} ({choice.dtype}{memory})"


def inspect_folder(folder: str, progress: ProgressCallback | None = None,
                   cancel: CancelToken | None = None) -> str:
    """Parameters, disk size and memory estimate of a local model folder (reads headers only)."""
    from aesthete_gui.ml.loading import (
        count_parameters,
        estimate_memory_bytes,
        read_config,
        weight_files,
    )

    path = Path(folder).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is not a folder")
    config = read_config(path)
    weight_files(path)
    parameters = count_parameters(path)
    disk = sum(p.stat().st_size for p in path.iterdir() if p.is_file())
    model_type = config.get("model_type", "unknown type")
    return (f"{model_type}: {_format_count(parameters)} parameters, {disk / 2**20:.1f} MiB on disk, "
            f"needs about {estimate_memory_bytes(parameters, 'bfloat16') / 2**30:.2f} GiB on a GPU "
            f"(bf16) or {estimate_memory_bytes(parameters, 'float32') / 2**30:.2f} GiB on the CPU")


def download_model(model_id: str, progress: ProgressCallback | None = None,
                   cancel: CancelToken | None = None) -> str:
    """Download a hub model into the standard cache (only when the user asked); returns its folder."""
    from aesthete_gui.ml.loading import resolve_model_path

    return str(resolve_model_path(model_id, download=True, progress=progress, cancel=cancel))


def test_connection(base_url: str, progress: ProgressCallback | None = None,
                    cancel: CancelToken | None = None) -> list[str]:
    """Ask an OpenAI-compatible server for its models; returns their ids or raises with a reason."""
    if not base_url.startswith(("http://", "https://")):
        raise ConnectionError(f"a server URL starts with http:// or https://, not {base_url!r}")
    url = base_url.rstrip("/") + "/models"
    if progress:
        progress(Progress(0, 1, f"GET {url}"))
    try:
        with urllib.request.urlopen(url, timeout=CONNECT_TIMEOUT_S) as response:
            payload = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        raise ConnectionError(f"the server answered {error.code} {error.reason} for {url}") from error
    except (urllib.error.URLError, OSError) as error:
        reason = getattr(error, "reason", error)
        raise ConnectionError(f"cannot reach {url}: {reason}") from error
    except ValueError as error:
        raise ConnectionError(f"{url} did not answer with JSON: {error}") from error
    models = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(models, list):
        raise ConnectionError(f"{url} answered, but not with an OpenAI-style model list")
    if progress:
        progress(Progress(1, 1, "connected"))
    return [str(m.get("id")) for m in models if isinstance(m, dict) and m.get("id")]


def describe_card(card: ModelCard, installed: bool) -> str:
    """Requirements and notes of a model card as a short rich-text paragraph."""
    state = "already downloaded" if installed else "not downloaded"
    return (f"<b>{card.id}</b> ({card.family}, {card.parameters_billion:g} B parameters, "
            f"licence {card.licence}) — {state}.<br>Disk ≈ {card.memory_gib_bf16:.1f} GiB; memory "
            f"≈ {card.memory_gib_bf16:.1f} GiB on a GPU (bf16), ≈ {card.memory_gib_float32:.1f} GiB "
            f"on the CPU.<br>{card.notes}")


def _format_count(count: int) -> str:
    for unit, size in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return str(count)


class ModelManagerDialog(QDialog):
    """The Qt view of the model settings: judge and scorer choice, downloads, connection test."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.setWindowTitle("Models")
        self._job: JobHandle | None = None
        self._cards: list[ModelCard] = _read_cards()
        self._build()
        self._load_settings()
        self._device_job = context.runner.submit(
            "Detect device", detect_device, on_done=self._show_device,
            on_error=lambda error: self.device_label.setText(f"Device: unknown ({error})"))

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

        self.source_pages = QStackedWidget()
        none_page = QLabel("No judge: the app works fully; set one whenever you like.")
        none_page.setWordWrap(True)
        self.source_pages.addWidget(none_page)
        self.source_pages.addWidget(self._folder_page())
        self.source_pages.addWidget(self._hub_page())
        self.source_pages.addWidget(self._server_page())
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

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
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

    def _folder_page(self) -> QWidget:
        page = QWidget()
        self.folder_edit = QLineEdit()
        self.folder_edit.setPlaceholderText("A folder with config.json and *.safetensors")
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_folder)
        self.inspect_button = QPushButton("Check")
        self.inspect_button.clicked.connect(self.inspect)
        self.folder_info = QLabel()
        self.folder_info.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.folder_edit, 1)
        row.addWidget(browse)
        row.addWidget(self.inspect_button)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.folder_info)
        layout.addStretch(1)
        return page

    def _hub_page(self) -> QWidget:
        page = QWidget()
        self.hub_combo = QComboBox()
        self.hub_combo.setEditable(True)
        for card in self._cards:
            if card.role == "judge":
                self.hub_combo.addItem(card.id)
        self.hub_combo.currentTextChanged.connect(self._show_card)
        self.download_button = QPushButton("Download")
        self.download_button.setToolTip("Downloads the model's safetensors weights into the "
                                        "standard Hugging Face cache (network needed once)")
        self.download_button.clicked.connect(self.download)
        self.card_info = QLabel()
        self.card_info.setWordWrap(True)
        self.card_info.setTextFormat(Qt.TextFormat.RichText)
        self.cards_table = self._cards_table()
        row = QHBoxLayout()
        row.addWidget(self.hub_combo, 1)
        row.addWidget(self.download_button)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.card_info)
        layout.addWidget(QLabel("Judges known to work (from the model cards):"))
        layout.addWidget(self.cards_table, 1)
        return page

    def _cards_table(self) -> QTableWidget:
        judges = [c for c in self._cards if c.role == "judge"]
        table = QTableWidget(len(judges), len(CARD_COLUMNS))
        table.setHorizontalHeaderLabels(CARD_COLUMNS)
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        for row, card in enumerate(judges):
            values = (card.id, f"{card.parameters_billion:g} B", f"{card.memory_gib_bf16:.1f} GiB",
                      f"{card.memory_gib_float32:.1f} GiB", card.licence,
                      "yes" if _is_installed(card.id) else "no")
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(value)
                table.setItem(row, column, item)
        header = table.horizontalHeader()
        licence = CARD_COLUMNS.index("Licence")
        for column in range(len(CARD_COLUMNS)):
            mode = QHeaderView.ResizeMode.Stretch if column == licence else QHeaderView.ResizeMode.ResizeToContents
            header.setSectionResizeMode(column, mode)
        table.setTextElideMode(Qt.TextElideMode.ElideRight)
        table.setWordWrap(False)
        table.cellClicked.connect(lambda row, _column: self.hub_combo.setCurrentText(judges[row].id))
        return table

    def _server_page(self) -> QWidget:
        page = QWidget()
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("http://localhost:8000/v1")
        self.server_model_edit = QLineEdit()
        self.server_model_edit.setPlaceholderText("model name the server serves")
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.test_server)
        self.server_info = QLabel()
        self.server_info.setWordWrap(True)
        form = QFormLayout()
        url_row = QHBoxLayout()
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.test_button)
        form.addRow("Server URL:", url_row)
        form.addRow("Model:", self.server_model_edit)
        key_note = QLabel(
            "Images are sent to this server when the judge runs; nothing is sent before. If the "
            "server needs an API key, set it in the AESTHETE_API_KEY environment variable (or the "
            "system keyring under “aesthete” and this URL); it is never stored in the profile.")
        key_note.setWordWrap(True)
        key_note.setEnabled(False)  # muted: a note, not a control
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(form)
        layout.addWidget(self.server_info)
        layout.addWidget(key_note)
        layout.addStretch(1)
        return page

    # -- settings ------------------------------------------------------------------------------
    def _load_settings(self) -> None:
        settings = self.context.settings
        judge = settings.get("judge")
        source = judge_source(judge)
        self.source_buttons[source].setChecked(True)
        if source == "folder":
            self.folder_edit.setText(judge)
        elif source == "hub":
            self.hub_combo.setCurrentText(judge)
        elif source == "server":
            self.url_edit.setText(judge)
            self.server_model_edit.setText(settings.get("judge_server_model") or "")
        self.scorer_combo.setCurrentText(settings.get("scorer") or "builtin")
        self._show_card(self.hub_combo.currentText())

    def selected_source(self) -> str:
        """The judge source whose radio button is checked."""
        return next(s for s, b in self.source_buttons.items() if b.isChecked())

    def chosen_judge(self) -> str | None:
        """The judge the dialog would save (None for no judge)."""
        source = self.selected_source()
        value = {"none": "", "folder": self.folder_edit.text(), "hub": self.hub_combo.currentText(),
                 "server": self.url_edit.text()}[source].strip()
        return value or None

    def save(self) -> None:
        """Write the judge and scorer choice to the settings and close."""
        judge = self.chosen_judge()
        source = self.selected_source()
        if source != "none" and judge is None:
            self.job_status.setText("Fill in the judge's folder, hub id or server URL first "
                                    "(or choose No judge).")
            return
        if source == "folder" and not Path(judge or "").expanduser().is_dir():
            self.job_status.setText(f"{judge} is not a folder.")
            return
        if source == "server":
            self.context.set_setting("judge_server_model", self.server_model_edit.text().strip())
        self.context.set_setting("judge", judge)
        self.context.set_setting("scorer", self.scorer_combo.currentText().strip() or "builtin")
        self.accept()

    # -- jobs ----------------------------------------------------------------------------------
    def inspect(self) -> JobHandle:
        """Read the local folder's size and memory needs in a job."""
        self.folder_info.setText("Reading the model folder…")
        return self._start("Inspect model folder", inspect_folder, self.folder_edit.text(),
                           on_done=self.folder_info.setText,
                           on_error=lambda e: self.folder_info.setText(f"Not usable: {e}"))

    def download(self) -> JobHandle:
        """Download the chosen hub model as a job with progress and Cancel."""
        model_id = self.hub_combo.currentText().strip()
        self.card_info.setText(f"Downloading {model_id}…")
        return self._start(f"Download {model_id}", download_model, model_id,
                           on_done=lambda folder: self._show_card(model_id, f"Downloaded to {folder}."),
                           on_error=lambda e: self._show_card(model_id, f"Download failed: {e}"))

    def test_server(self) -> JobHandle:
        """Ask the server for its model list in a job."""
        url = self.url_edit.text().strip()
        self.server_info.setText(f"Connecting to {url}…")
        return self._start("Test server connection", test_connection, url,
                           on_done=self._show_server_models,
                           on_error=lambda e: self.server_info.setText(f"Connection failed: {e}"))

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
        self.job_status.setText({"cancelled": f"{job.name}: cancelled.",
                                 "failed": f"{job.name}: failed."}.get(job.state.value, ""))

    def _show_device(self, text: str) -> None:
        self.device_label.setText(f"Device: models would run on the {text}.")

    def _show_server_models(self, models: list[str]) -> None:
        if not models:
            self.server_info.setText("Connected; the server lists no models.")
            return
        self.server_info.setText(f"Connected. Models served: {', '.join(models[:8])}")
        if not self.server_model_edit.text().strip():
            self.server_model_edit.setText(models[0])

    def _show_card(self, model_id: str, extra: str = "") -> None:
        card = next((c for c in self._cards if c.id == model_id.strip()), None)
        if card is None:
            text = (f"<b>{model_id}</b> has no model card: it may work if it is a Qwen-VL style "
                    "model; its size is shown after download." if model_id.strip() else "")
        else:
            text = describe_card(card, _is_installed(card.id))
        self.card_info.setText(text + (f"<br>{extra}" if extra else ""))

    def _on_source_toggled(self) -> None:
        source = next((s for s, b in self.source_buttons.items() if b.isChecked()), "none")
        self.source_pages.setCurrentIndex(SOURCES.index(source))

    def _browse_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Model folder", self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)
            self.inspect()

    def done(self, result: int) -> None:
        """Closing the dialog cancels its running job."""
        self.cancel_job()
        super().done(result)


def _available_scorers(context: AppContext) -> list[str]:
    """The built-in scorer and the profile's distilled students."""
    from aesthete_gui.services.scoring import available_scorers

    try:
        return available_scorers(context.profile)
    except Exception as error:  # an unreadable student card must not hide the built-in scorer
        log.warning("scorers unavailable: %s", error)
        return ["builtin"]


def _read_cards() -> list[ModelCard]:
    from aesthete_gui.ml.registry import ModelCardError, list_cards

    try:
        return list_cards()
    except (FileNotFoundError, ModelCardError) as error:
        log.warning("model cards unavailable: %s", error)
        return []


def _is_installed(model_id: str) -> bool:
    from aesthete_gui.ml.registry import installed_path

    return installed_path(model_id) is not None
