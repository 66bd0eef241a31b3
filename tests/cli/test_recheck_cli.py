"""`aesthete recheck` and `--shoot-type` on import and images: one remembered setting, judged again from stored numbers."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from PIL import Image
from skimage import data as skdata

from aesthete_gui.cli import main
from aesthete_gui.services.verdicts import settings_path

sys.path.append(str(Path(__file__).resolve().parents[2] / "benchmarks"))  # after site-packages: never shadows a package
import culling_data as degrade


def _run(profile: Path, *args: str) -> int:
    return main(["--profile", str(profile), *args])


@pytest.fixture
def shoot(tmp_path: Path) -> Path:
    folder = tmp_path / "shoot"
    folder.mkdir()
    Image.fromarray(skdata.chelsea()).save(folder / "clean.jpg", quality=92)
    # grain of sigma 15.6 at normal viewing size: a warning in general, a reject on a tripod
    degrade.noise(Image.fromarray(skdata.astronaut()), 18.0).save(folder / "grainy.jpg", quality=95)
    degrade.defocus(Image.fromarray(skdata.coffee()), 0.02).save(folder / "soft.jpg", quality=92)
    return folder


def test_recheck_lists_the_suggested_rejects_with_reasons_under_a_shoot_type(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "import", str(shoot), "--quiet", "--workers", "1") == 0
    capsys.readouterr()
    assert _run(profile, "recheck", "--json") == 0
    general = json.loads(capsys.readouterr().out)
    assert general["shoot_type"] == "general" and general["judged_again"] == 0
    assert [Path(r["path"]).name for r in general["suggested_rejects"]] == ["soft.jpg"]
    assert any("soft" in reason for reason in general["suggested_rejects"][0]["reasons"])

    assert _run(profile, "recheck", "--shoot-type", "landscape") == 0
    out = capsys.readouterr().out
    assert out.startswith("shoot type: Landscape; 3 verdicts judged again; 2 suggested rejects")
    assert "grainy.jpg: heavy noise" in out and "soft.jpg:" in out
    assert json.loads(settings_path(profile).read_text(encoding="utf-8"))["shoot_type"] == "landscape"

    # images --shoot-type judges again too, and the choice is remembered for the next command
    assert _run(profile, "images", "--json", "--shoot-type", "wedding") == 0
    rows = {Path(r["path"]).name: r for r in json.loads(capsys.readouterr().out)}
    assert rows["grainy.jpg"]["suggested_reject"] is False and rows["soft.jpg"]["suggested_reject"] is True
    assert _run(profile, "recheck", "--json") == 0
    assert json.loads(capsys.readouterr().out)["shoot_type"] == "wedding"


def test_import_takes_the_shoot_type_and_a_wrong_one_is_a_clear_error(
    tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "p.db"
    assert _run(profile, "import", str(shoot), "--quiet", "--workers", "1", "--shoot-type", "landscape") == 0
    capsys.readouterr()
    assert _run(profile, "recheck", "--json") == 0
    result = json.loads(capsys.readouterr().out)
    assert result["shoot_type"] == "landscape" and len(result["suggested_rejects"]) == 2
    with pytest.raises(SystemExit) as exit_info:
        _run(profile, "recheck", "--shoot-type", "macro")
    assert exit_info.value.code == 2
    assert "invalid choice: 'macro'" in capsys.readouterr().err


@pytest.fixture
def outdated(tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A profile of the shoot whose checks an older Aesthete measured (its own measuring version)."""
    import sqlite3

    profile = tmp_path / "p.db"
    assert _run(profile, "import", str(shoot), "--quiet", "--workers", "1") == 0
    with sqlite3.connect(profile) as conn:
        conn.execute("UPDATE image_checks SET version = '6+faces', checks = '[]', worst = 'ok'")
    capsys.readouterr()
    return profile


def test_recheck_measures_again_what_an_older_version_checked(outdated: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = outdated
    assert _run(profile, "recheck") == 0
    out = capsys.readouterr().out
    assert out.startswith("3 photographs were checked by an older version of Aesthete: measuring them again")
    assert "1 suggested rejects" in out and "soft.jpg:" in out
    assert _run(profile, "recheck", "--json") == 0
    again = json.loads(capsys.readouterr().out)
    assert again["measured_again"] == 0 and [Path(r["path"]).name for r in again["suggested_rejects"]] == ["soft.jpg"]


def test_recheck_says_which_outdated_photographs_it_could_not_measure(
    tmp_path: Path, shoot: Path, outdated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shoot.rename(tmp_path / "moved away")
    assert _run(outdated, "recheck", "--json") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["measured_again"] == 0
    assert "3 photographs checked by an older version could not be measured again" in captured.err


def test_recheck_names_the_frames_of_each_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # held12/13 trial: "set: exposure bracket of 3 frames (-2.5, 0, +2 EV)" did not say which frames
    from tests.services.test_verdicts import write_bracket_shoot

    folder = write_bracket_shoot(tmp_path)
    profile = tmp_path / "p.db"
    assert _run(profile, "import", str(folder)) == 0
    capsys.readouterr()
    assert _run(profile, "recheck") == 0
    (line,) = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("  set: ")]
    assert line.startswith("  set: exposure bracket of 3 frames") and line.endswith(": bracket_0.jpg, bracket_1.jpg, bracket_2.jpg")
    assert _run(profile, "recheck", "--json") == 0
    (listed,) = json.loads(capsys.readouterr().out)["set_list"]
    assert [Path(p).name for p in listed["paths"]] == ["bracket_0.jpg", "bracket_1.jpg", "bracket_2.jpg"]


def test_images_bursts_and_export_show_verdicts_judged_by_this_version(tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # an attack: after an update, `images --json`, `export` and `bursts` printed the older version's
    # verdicts until someone ran `recheck`
    from tests.qt.test_outdated_checks import _as_an_older_version_judged

    profile = tmp_path / "p.db"
    assert _run(profile, "import", str(shoot), "--quiet", "--workers", "1") == 0
    for command in (["images", "--json"], ["bursts"], ["export", "--format", "csv"]):
        _as_an_older_version_judged(profile)
        capsys.readouterr()
        assert _run(profile, *command) == 0
        assert "judged by an older version" not in profile.read_bytes().decode("utf-8", "replace"), command
        with sqlite3.connect(profile) as conn:
            assert conn.execute("SELECT value FROM library_state WHERE key = 'burst_grouping'").fetchone()[0] != "older", command


def test_recheck_after_an_update_counts_what_it_judged_again(tmp_path: Path, shoot: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a review: recheck brought the verdicts up to date first and then said "verdicts up to date"
    from tests.qt.test_outdated_checks import _as_an_older_version_judged

    profile = tmp_path / "p.db"
    assert _run(profile, "import", str(shoot), "--quiet", "--workers", "1") == 0
    _as_an_older_version_judged(profile)
    capsys.readouterr()
    assert _run(profile, "recheck", "--json") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["judged_again"] == 3
    assert "grouping the bursts again for this version" in captured.err
