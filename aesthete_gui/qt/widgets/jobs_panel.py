"""The Jobs panel: every running job with its progress, message and a Cancel button."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from aesthete_gui.jobs import Progress
from aesthete_gui.qt.task_runner import JobHandle, JobState, TaskRunner

LINGER_MS = 4000
"""How long a finished job stays listed with its outcome."""


class JobRow(QFrame):
    """One job: name, progress bar, last message, Cancel."""

    expired = Signal(int)  # job id, a while after the job ended

    def __init__(self, handle: JobHandle, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.handle = handle
        self.setObjectName("jobRow")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel(handle.name, self)
        self.title.setObjectName("jobTitle")
        self.title.setWordWrap(True)  # long job names wrap instead of pushing Cancel out of view
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 0)  # busy until the first report says how much there is
        self.bar.setTextVisible(True)
        self.bar.setMinimumWidth(60)
        self.message = QLabel("waiting…" if handle.state is JobState.QUEUED else "", self)
        self.message.setObjectName("jobMessage")
        self.message.setWordWrap(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.clicked.connect(self._cancel)
        layout = QGridLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setColumnStretch(0, 1)
        layout.addWidget(self.title, 0, 0)
        layout.addWidget(self.cancel_button, 0, 1, 2, 1)
        layout.addWidget(self.bar, 1, 0)
        layout.addWidget(self.message, 2, 0, 1, 2)
        handle.started.connect(self._started)
        handle.progress.connect(self._progress)
        handle.ended.connect(self._ended)
        if handle.last_progress is not None:
            self._progress(handle.last_progress)

    def _started(self) -> None:
        self.message.setText("running…")

    def _progress(self, progress: Progress) -> None:
        if progress.total:
            self.bar.setRange(0, int(progress.total))
            self.bar.setValue(min(int(progress.done), int(progress.total)))
            self.bar.setFormat(f"{progress.done} / {progress.total}")
        self.message.setText(progress.message)

    def _cancel(self) -> None:
        self.handle.cancel()
        self.cancel_button.setEnabled(False)
        self.message.setText("cancelling…")

    def _ended(self) -> None:
        self.cancel_button.setEnabled(False)
        state = self.handle.state
        if state is JobState.FINISHED:
            if self.bar.maximum() == 0:
                self.bar.setRange(0, 1)
            self.bar.setValue(self.bar.maximum())
            self.message.setText("done")
        elif state is JobState.CANCELLED:
            self.message.setText("cancelled — everything finished so far is kept")
        else:
            error = self.handle.error
            self.message.setText(f"failed: {error}" if error else "failed")
            self.message.setProperty("error", True)
        if self.bar.maximum() == 0:
            self.bar.setRange(0, 1)
        QTimer.singleShot(LINGER_MS, self, self._expire)

    def _expire(self) -> None:
        self.expired.emit(self.handle.job_id)


class JobsPanel(QWidget):
    """Lists the runner's visible jobs; finished ones stay a few seconds with their outcome."""

    def __init__(self, runner: TaskRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jobsPanel")
        self._rows: dict[int, JobRow] = {}
        self._list = QWidget(self)
        self._layout = QVBoxLayout(self._list)
        self._layout.setContentsMargins(4, 4, 4, 4)
        self._layout.setSpacing(4)
        self._empty = QLabel("No jobs running.", self._list)
        self._empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._empty.setObjectName("jobsEmpty")
        self._layout.addWidget(self._empty)
        self._layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self._list)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(scroll)
        runner.job_added.connect(self.add_job)
        for handle in runner.active_jobs():
            self.add_job(handle)

    def rows(self) -> list[JobRow]:
        """The job rows shown, oldest first."""
        return list(self._rows.values())

    def add_job(self, handle: JobHandle) -> None:
        """List a job (ignored when it asked not to be shown)."""
        if not handle.visible:
            return
        row = JobRow(handle, self._list)
        self._rows[handle.job_id] = row
        self._layout.insertWidget(self._layout.count() - 1, row)
        self._empty.hide()
        row.expired.connect(self._remove)

    def _remove(self, job_id: int) -> None:
        row = self._rows.pop(job_id, None)
        if row is not None:
            row.deleteLater()
        self._empty.setVisible(not self._rows)
