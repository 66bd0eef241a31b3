"""Desktop integration: the shipped files pass the freedesktop validators; install/uninstall for one user."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

from aesthete_gui.cli import main
from aesthete_gui.desktop_entry import (
    DESKTOP_FILE,
    DesktopPlaces,
    desktop_entry_text,
    gui_command,
    install,
    uninstall,
)
from aesthete_gui.resources import resource_file

# packaging/system-deps.sh installs both (Debian packages desktop-file-utils and appstream).
DESKTOP_FILE_VALIDATE = shutil.which("desktop-file-validate")
APPSTREAMCLI = shutil.which("appstreamcli")


def validate_desktop_file(path: Path) -> None:
    assert DESKTOP_FILE_VALIDATE, "desktop-file-validate is missing: run packaging/system-deps.sh"
    result = subprocess.run([DESKTOP_FILE_VALIDATE, str(path)], capture_output=True, text=True)
    assert result.returncode == 0 and not result.stdout.strip(), result.stdout + result.stderr


def test_shipped_desktop_entry_and_appstream_metadata_validate() -> None:
    validate_desktop_file(resource_file("desktop", DESKTOP_FILE))
    assert APPSTREAMCLI, "appstreamcli is missing: run packaging/system-deps.sh"
    metainfo = resource_file("desktop", "org.aesthete.Aesthete.metainfo.xml")
    result = subprocess.run([APPSTREAMCLI, "validate", "--no-net", str(metainfo)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Validation was successful" in result.stdout


def _entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment, method-assign]
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_install_and_uninstall_for_one_user(tmp_path: Path) -> None:
    places = DesktopPlaces.from_environment({"HOME": str(tmp_path)})
    assert places.data_home == tmp_path / ".local" / "share"
    mimeapps = tmp_path / ".config" / "mimeapps.list"
    mimeapps.parent.mkdir(parents=True)
    theirs = "[Default Applications]\ninode/directory=org.gnome.Nautilus.desktop\n\n[Added Associations]\nimage/jpeg=viewer.desktop;\n"
    mimeapps.write_text(theirs, encoding="utf-8")

    command = gui_command()
    report = install(places, command)
    entry_path = places.applications / DESKTOP_FILE
    assert set(report.written) == set(places.files().values())
    assert all(path.is_file() for path in report.written)
    validate_desktop_file(entry_path)
    entry = _entry(entry_path)
    assert entry["Exec"].endswith("--open %f") and entry["TryExec"] == command[0]
    assert Path(command[0]).is_file(), command  # the menu entry starts this installation's app
    assert "inode/directory;" in entry["MimeType"]
    associations = mimeapps.read_text(encoding="utf-8")
    assert "inode/directory=org.gnome.Nautilus.desktop\n" in associations  # the default is not taken over
    assert f"inode/directory={DESKTOP_FILE};" in associations and "image/jpeg=viewer.desktop;" in associations
    assert (places.applications / "mimeinfo.cache").is_file()  # update-desktop-database ran

    assert install(places, command).updated == []  # a second install changes no association
    assert mimeapps.read_text(encoding="utf-8").count(DESKTOP_FILE) == 1

    removed = uninstall(places)
    assert set(removed.removed) == set(places.files().values())
    assert not any(path.exists() for path in places.files().values())
    assert mimeapps.read_text(encoding="utf-8").strip() == theirs.strip()
    assert uninstall(places).removed == []


def test_cli_writes_a_quoted_exec_line_under_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    launcher = tmp_path / "My Apps" / "aesthete-gui"
    assert main(["desktop", "install", "--exec", f"'{launcher}'"]) == 0
    entry_path = tmp_path / "data" / "applications" / DESKTOP_FILE
    assert f'Exec="{launcher}" --open %f' in entry_path.read_text(encoding="utf-8")
    validate_desktop_file(entry_path)
    assert (tmp_path / "data" / "icons" / "hicolor" / "scalable" / "apps" / "org.aesthete.Aesthete.svg").is_file()
    assert f"inode/directory={DESKTOP_FILE};" in (tmp_path / "config" / "mimeapps.list").read_text(encoding="utf-8")
    assert main(["desktop", "uninstall"]) == 0
    assert not entry_path.exists()
    output = capsys.readouterr().out
    assert "wrote" in output and "removed" in output


def test_exec_lines_with_reserved_characters_validate(tmp_path: Path) -> None:
    for launcher in ('/opt/say "cheese"/aesthete-gui', "/opt/$HOME/50%/aesthete-gui", "/opt/back\\slash/aesthete-gui"):
        entry_path = tmp_path / DESKTOP_FILE
        entry_path.write_text(desktop_entry_text([launcher]), encoding="utf-8")
        validate_desktop_file(entry_path)
        assert _entry(entry_path)["TryExec"] == launcher.replace("\\", "\\\\")  # a string value escapes "\"
