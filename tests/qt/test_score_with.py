"""Scoring ▸ Score with lists every registered scorer, and the GUI scores with the one chosen."""

from __future__ import annotations

import itertools

from aesthete_gui.qt import actions
from aesthete_gui.qt.main_window import MainWindow
from aesthete_gui.qt.task_runner import JobState
from aesthete_gui.services import taste
from tests.qt.conftest import write_test_images


def test_score_with_lists_registered_scorers_and_scores_with_a_taste_adapter(qtbot, app_context, tmp_path) -> None:
    app_context.settings["welcome_done"] = True
    window = MainWindow(app_context)
    qtbot.addWidget(window)
    window.show()
    write_test_images(tmp_path / "shoot", 6)
    handle = window.import_folders([tmp_path / "shoot"])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    profile = app_context.profile
    images = profile.catalog.images(status="ok")
    for a, b in itertools.islice(itertools.cycle(itertools.combinations(images, 2)), 30):
        taste.record_choice(profile, a.path, b.path, "a" if a.id < b.id else "b")
    taste.train_taste(profile, name="mine", base_scorer="builtin")

    window.fill_scorer_menu(window.scorer_menu)
    entries = {a.toolTip(): a for a in window.scorer_menu.actions()}
    assert list(entries)[:2] == ["builtin", "taste:mine"]
    assert entries["builtin"].isChecked()
    entries["taste:mine"].trigger()
    assert app_context.settings["scorer"] == "taste:mine"
    assert actions.base_scorer_for("taste:mine") is None  # an adapter is never another adapter's base
    assert actions.base_scorer_for("student:s") == "student:s" and actions.base_scorer_for(None) == "builtin"

    with qtbot.waitSignal(app_context.signals.scores_changed, timeout=60_000):
        job = window.score_library()
    qtbot.waitUntil(lambda: job.done, timeout=60_000)
    assert job.state is JobState.FINISHED, job.error_text
    stored = profile.scores.of_scorer("taste:mine")
    assert set(stored) == {r.id for r in images}
    window.marks.close()


def test_the_configured_server_is_a_scorer_and_scores_the_library(qtbot, app_context, tmp_path) -> None:
    from tests.ml.chat_server import ChatServer
    from tests.ml.logprob_server import LogprobServerScript

    app_context.settings["welcome_done"] = True
    window = MainWindow(app_context)
    qtbot.addWidget(window)
    window.show()
    write_test_images(tmp_path / "shoot", 4)
    handle = window.import_folders([tmp_path / "shoot"])
    qtbot.waitUntil(lambda: handle.done, timeout=60_000)
    script = LogprobServerScript()
    with ChatServer(script) as server:
        app_context.set_setting("judge", {"model": "qwen-vl", "endpoint": server.base_url})
        assert "qwen-vl on " + server.base_url in window.model_label.text()
        window.fill_scorer_menu(window.scorer_menu)
        entries = {a.toolTip(): a for a in window.scorer_menu.actions()}
        assert "server:qwen-vl" in entries and "log-probabilities" in entries["server:qwen-vl"].text()
        entries["server:qwen-vl"].trigger()
        assert not actions.scorer_uses_gpu("server:qwen-vl")  # the model runs on the server
        with qtbot.waitSignal(app_context.signals.scores_changed, timeout=60_000):
            job = window.score_library()
        qtbot.waitUntil(lambda: job.done, timeout=60_000)
    assert job.state is JobState.FINISHED, job.error_text
    stored = app_context.profile.scores.of_scorer("server:qwen-vl")
    assert len(stored) == 4 and all(len(v) == 5 for v in stored.values())
    assert script.peak <= 8
    window.marks.close()


def test_a_malformed_judge_setting_is_no_judge_and_an_old_string_still_reads(app_context) -> None:
    app_context.settings["judge"] = {"model": 5}
    assert actions.configured_judge(app_context.settings) is None
    app_context.settings["judge"] = {"endpoint": "ftp://x", "model": "m"}
    assert actions.configured_judge(app_context.settings) is None
    app_context.settings["judge"] = "http://gpu:8000/v1"  # written by an earlier version
    app_context.settings["judge_server_model"] = "m"
    judge = actions.configured_judge(app_context.settings)
    assert judge is not None and judge.endpoint == "http://gpu:8000/v1" and judge.model == "m"
    app_context.settings["judge"] = "/models/qwen"
    assert actions.configured_judge(app_context.settings).endpoint is None
