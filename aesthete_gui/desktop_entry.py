"""Add Aesthete to the desktop for one user (menu entry, icon, AppStream data, "Open folder with") and remove it.

Files go under $XDG_DATA_HOME (default ~/.local/share); the folder association is an "Added
Associations" line in $XDG_CONFIG_HOME/mimeapps.list, so Aesthete is offered for folders without
becoming the default folder handler. Nothing outside those two places is touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from aesthete_gui.resources import resource_file

APP_ID = "org.aesthete.Aesthete"
DESKTOP_FILE = f"{APP_ID}.desktop"
FOLDER_MIME_TYPE = "inode/directory"
_ADDED = "[Added Associations]"


@dataclass
class DesktopPlaces:
    """Where the desktop files of one user live."""

    data_home: Path
    config_home: Path

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> DesktopPlaces:
        """$XDG_DATA_HOME and $XDG_CONFIG_HOME, or their ~/.local/share and ~/.config defaults."""
        env = os.environ if env is None else env
        home = Path(env.get("HOME") or Path.home())
        data = env.get("XDG_DATA_HOME") or str(home / ".local" / "share")
        config = env.get("XDG_CONFIG_HOME") or str(home / ".config")
        return cls(Path(data), Path(config))

    @property
    def applications(self) -> Path:
        """The folder of menu entries."""
        return self.data_home / "applications"

    def files(self) -> dict[str, Path]:
        """Each installed file keyed by the shipped file it comes from."""
        return {
            DESKTOP_FILE: self.applications / DESKTOP_FILE,
            f"{APP_ID}.svg": self.data_home / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
            f"{APP_ID}.metainfo.xml": self.data_home / "metainfo" / f"{APP_ID}.metainfo.xml",
        }

    @property
    def mimeapps(self) -> Path:
        """The user's MIME association list."""
        return self.config_home / "mimeapps.list"


@dataclass
class DesktopReport:
    """What install or uninstall did, for printing."""

    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def gui_command() -> list[str]:
    """The command that starts this installation's desktop app, with absolute paths."""
    if getattr(sys, "frozen", False):  # the desktop bundle: aesthete-gui lies beside aesthete
        return [str(Path(sys.executable).with_name("aesthete-gui"))]
    for folder in (Path(sys.argv[0]).absolute().parent, Path(sys.executable).parent):
        candidate = folder / "aesthete-gui"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return [str(candidate)]
    found = shutil.which("aesthete-gui")
    return [found] if found else [sys.executable, "-m", "aesthete_gui"]


def desktop_entry_text(command: list[str]) -> str:
    """The shipped desktop entry with Exec/TryExec pointing at `command`."""
    exec_line = " ".join(_quote_exec(part) for part in command)
    lines = []
    for line in resource_file("desktop", DESKTOP_FILE).read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_line} --open %f"
        elif line.startswith("TryExec="):
            continue
        lines.append(line)
        if line.startswith("Exec="):
            lines.append("TryExec=" + command[0].replace("\\", "\\\\"))  # a string value escapes "\\"
    return "\n".join(lines) + "\n"


def _quote_exec(argument: str) -> str:
    """Quote one Exec argument as the desktop entry specification asks (quoting, then string escapes)."""
    if argument and not any(c in argument for c in ' \t\n"\'\\><~|&;$*?#()`%='):
        return argument
    quoted = argument.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace("$", "\\$")
    # a backslash is also escaped once more as a string value; `%` is doubled as it is no field code
    return '"' + quoted.replace("\\", "\\\\").replace("%", "%%") + '"'


def install(places: DesktopPlaces, command: list[str] | None = None) -> DesktopReport:
    """Write the menu entry, icon and AppStream data, and offer Aesthete for opening folders."""
    report = DesktopReport()
    targets = places.files()
    for name, target in targets.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        if name == DESKTOP_FILE:
            target.write_text(desktop_entry_text(command or gui_command()), encoding="utf-8")
        else:
            shutil.copyfile(resource_file("desktop", name), target)
        report.written.append(target)
    if _edit_association(places.mimeapps, add=True):
        report.updated.append(places.mimeapps)
    report.notes += _refresh_caches(places)
    return report


def uninstall(places: DesktopPlaces) -> DesktopReport:
    """Remove what install wrote; other entries in mimeapps.list stay as they were."""
    report = DesktopReport()
    for target in places.files().values():
        if target.is_file():
            target.unlink()
            report.removed.append(target)
    if _edit_association(places.mimeapps, add=False):
        report.updated.append(places.mimeapps)
    report.notes += _refresh_caches(places)
    return report


def _edit_association(mimeapps: Path, add: bool) -> bool:
    """Add or drop our entry on the inode/directory line of [Added Associations]; True if changed."""
    lines = mimeapps.read_text(encoding="utf-8").splitlines() if mimeapps.is_file() else []
    section = next((i for i, line in enumerate(lines) if line.strip() == _ADDED), None)
    if section is None:
        if not add:
            return False
        lines += ([""] if lines else []) + [_ADDED]
        section = len(lines) - 1
    end = next((i for i in range(section + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    key = f"{FOLDER_MIME_TYPE}="
    row = next((i for i in range(section + 1, end) if lines[i].replace(" ", "").startswith(key)), None)
    apps = [a for a in lines[row].split("=", 1)[1].strip().split(";") if a] if row is not None else []
    if (DESKTOP_FILE in apps) == add:
        return False
    apps = [*apps, DESKTOP_FILE] if add else [a for a in apps if a != DESKTOP_FILE]
    new_row = f"{key}{';'.join(apps)};"
    if row is None:
        lines.insert(section + 1, new_row)
    elif apps:
        lines[row] = new_row
    else:
        del lines[row]
    mimeapps.parent.mkdir(parents=True, exist_ok=True)
    mimeapps.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return True


def _refresh_caches(places: DesktopPlaces) -> list[str]:
    """Rebuild the menu's MIME cache when the tool is there (desktops also rescan on their own)."""
    tool = shutil.which("update-desktop-database")
    if tool is None:
        return ["update-desktop-database not found: the menu picks the entry up at next login"]
    if not places.applications.is_dir():
        return []
    result = subprocess.run([tool, str(places.applications)], capture_output=True, text=True, check=False)
    return [] if result.returncode == 0 else [f"update-desktop-database: {result.stderr.strip()}"]


def describe(report: DesktopReport) -> str:
    """Lines for the terminal."""
    lines = [f"wrote   {p}" for p in report.written] + [f"removed {p}" for p in report.removed]
    lines += [f"updated {p} ({FOLDER_MIME_TYPE} association)" for p in report.updated]
    return "\n".join([*lines, *(f"note: {n}" for n in report.notes)] or ["nothing to do"])
