"""Model manager: works with nothing installed; local folder, hub card, server test, save."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator

import pytest

from aesthete_gui.qt.actions import configured_judge
from aesthete_gui.qt.dialogs.model_manager import ModelManagerDialog, judge_source
from tests.fixtures.tiny_models import build_tiny_qwen3_vl


class _ModelsHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            body = json.dumps({"object": "list", "data": [{"id": "tiny-judge"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)
        else:
            self.send_error(404)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def models_server() -> Iterator[str]:
    """A local OpenAI-style /v1/models endpoint (the edge of the world)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ModelsHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture
def dialog(qtbot, app_context) -> Iterator[ModelManagerDialog]:
    window = ModelManagerDialog(app_context)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.reject()


def test_opens_with_nothing_installed_and_shows_the_device(qtbot, dialog) -> None:
    assert dialog.selected_source() == "none"
    assert dialog.chosen_judge() is None
    qtbot.waitUntil(lambda: "detecting" not in dialog.device_label.text(), timeout=30000)
    assert "CPU" in dialog.device_label.text() or "GPU" in dialog.device_label.text()


def test_hub_card_shows_disk_and_memory_needs(qtbot, dialog) -> None:
    dialog.source_buttons["hub"].setChecked(True)
    dialog.hub_combo.setCurrentText("Qwen/Qwen3-VL-4B-Instruct")
    text = dialog.card_info.text()
    assert "8.3 GiB" in text and "16.6 GiB" in text and "Apache-2.0" in text


@pytest.fixture
def unreachable_hub(monkeypatch, tmp_path) -> str:
    """The model hub pointed at a closed port on 127.0.0.1 (no network), with an empty cache."""
    import socket

    from huggingface_hub import constants

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{probe.getsockname()[1]}"
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    return endpoint


def test_download_without_network_says_so_in_one_line(qtbot, dialog, unreachable_hub, caplog) -> None:
    dialog.source_buttons["hub"].setChecked(True)
    dialog.hub_combo.setCurrentText("Qwen/Qwen3-VL-2B-Instruct")
    job = dialog.download()
    qtbot.waitUntil(lambda: job.done, timeout=60000)
    text = dialog.card_info.text()
    assert f"Download failed: no connection to the model hub ({unreachable_hub}):" in text
    assert "connect to the network" in text and "\\n" not in text and "Traceback" not in text
    assert not dialog.job_progress.isVisible()
    logged = [r for r in caplog.records if "failed" in r.getMessage()]
    assert logged and all(r.exc_info is None and "Traceback" not in r.getMessage() for r in logged)
    assert all("\n" not in r.getMessage() for r in logged)


def test_a_permissive_judge_is_preselected_and_each_model_shows_licence_size_memory_and_speed(qtbot, dialog) -> None:
    from aesthete_gui.ml.registry import card_for

    preselected = card_for(dialog.hub_combo.currentText())
    assert preselected is not None and preselected.permissive and preselected.licence == "Apache-2.0"
    assert preselected.id != "Qwen/Qwen2.5-VL-3B-Instruct"
    table = dialog.cards_table
    columns = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    rows = {table.item(r, 0).text(): {columns[c]: table.item(r, c).text() for c in range(len(columns))}
            for r in range(table.rowCount())}  # fmt: skip
    assert "non-commercial" in rows["Qwen/Qwen2.5-VL-3B-Instruct"]["Licence"]
    assert "check it before any commercial use" in rows["Qwen/Qwen2.5-VL-3B-Instruct"]["Licence"]
    assert rows["Qwen/Qwen3-VL-4B-Instruct"]["Licence"] == "Apache-2.0 (commercial use allowed)"
    assert rows["Qwen/Qwen3-VL-4B-Instruct"]["Download"] == "≈ 8.3 GiB"
    assert rows["Qwen/Qwen3-VL-4B-Instruct"]["Memory: GPU (bf16) / CPU (fp32)"] == "8.3 / 16.6 GiB"
    qtbot.waitUntil(lambda: "measuring" not in table.item(0, columns.index("Speed on this machine")).text(), timeout=60000)
    speeds = [table.item(r, columns.index("Speed on this machine")).text() for r in range(table.rowCount())]
    if "CPU" in dialog.device_label.text():  # this machine has no GPU: say so plainly
        assert all("impractically slow on this CPU" in s or "does not fit here" in s for s in speeds)
        assert any("min per photograph" in s or " s per photograph" in s for s in speeds)
    assert "Speed here:" in dialog.card_info.text() and "measuring" not in dialog.card_info.text()


def test_local_folder_is_inspected_and_saved(qtbot, dialog, app_context, tmp_path) -> None:
    folder = build_tiny_qwen3_vl(tmp_path / "tiny-qwen3")
    dialog.source_buttons["folder"].setChecked(True)
    dialog.folder_edit.setText(str(folder))
    job = dialog.inspect()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert "parameters" in dialog.folder_info.text()
    assert "MiB on disk" in dialog.folder_info.text()
    with qtbot.waitSignal(app_context.signals.settings_changed):
        dialog.save()
    assert app_context.settings["judge"] == {"model": str(folder)}  # a typed record
    assert app_context.settings["scorer"] == "builtin"
    assert judge_source(configured_judge(app_context.settings)) == "folder"


def test_folder_without_a_model_is_refused_clearly(qtbot, dialog, tmp_path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    dialog.source_buttons["folder"].setChecked(True)
    dialog.folder_edit.setText(str(empty))
    job = dialog.inspect()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert "Not usable" in dialog.folder_info.text()
    assert "config.json" in dialog.folder_info.text()


def test_server_connection_test_lists_models_and_saves(qtbot, dialog, app_context, models_server) -> None:
    dialog.source_buttons["server"].setChecked(True)
    dialog.url_edit.setText(models_server)
    job = dialog.test_server()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert "tiny-judge" in dialog.server_info.text()
    assert dialog.server_model_edit.text() == "tiny-judge"
    dialog.save()
    assert app_context.settings["judge"] == {"model": "tiny-judge", "endpoint": models_server}
    judge = configured_judge(app_context.settings)
    assert judge_source(judge) == "server" and judge.endpoints == (models_server,)


def test_unreachable_server_reports_the_failure(qtbot, dialog) -> None:
    dialog.source_buttons["server"].setChecked(True)
    dialog.url_edit.setText("http://127.0.0.1:9/v1")
    job = dialog.test_server()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert "Connection failed" in dialog.server_info.text()


def test_saving_an_empty_choice_keeps_the_dialog_open(qtbot, dialog, app_context) -> None:
    dialog.source_buttons["folder"].setChecked(True)
    dialog.save()
    assert dialog.isVisible()
    assert "Fill in" in dialog.job_status.text()
    assert app_context.settings["judge"] is None


def test_a_url_that_is_not_http_is_refused(qtbot, dialog, tmp_path) -> None:
    dialog.source_buttons["server"].setChecked(True)
    dialog.url_edit.setText(f"file://{tmp_path}")
    job = dialog.test_server()
    qtbot.waitUntil(lambda: job.done, timeout=30000)
    assert "starts with http://" in dialog.server_info.text()
