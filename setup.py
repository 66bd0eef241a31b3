"""Which files go into the wheel and sdist; everything else about the project is in pyproject.toml.

The repository keeps shipped data at its top level (resources/ and models/), while an installed app
must find it inside the package. So the data folders are mapped into the package as
`aesthete_gui/data/<kind>/` (read back through aesthete_gui/resources.py). Code packages and data
folders are discovered here rather than listed, so a new subpackage or resource folder cannot be
left out of the wheel by a forgotten list entry.
"""

from pathlib import Path

from setuptools import find_packages, setup

ROOT = Path(__file__).resolve().parent
# data package -> folder in the repository
DATA_FOLDERS = {"aesthete_gui.data": "resources", "aesthete_gui.data.models": "models"}
DATA_PATTERNS = ["*.toml", "*.json", "*.qss", "*.svg", "*.desktop", "*.xml", "*.md", "*.tflite", "LICENSE"]


def data_packages() -> dict[str, str]:
    """Every data package (one per folder under the mapped folders) and its folder."""
    found = {}
    for package, folder in DATA_FOLDERS.items():
        for directory in sorted(p for p in [ROOT / folder, *(ROOT / folder).rglob("*")] if p.is_dir()):
            relative = directory.relative_to(ROOT / folder)
            name = ".".join([package, *relative.parts])
            found[name] = directory.relative_to(ROOT).as_posix()
    return found


DATA = data_packages()
setup(
    packages=[*find_packages(include=["aesthete_gui", "aesthete_gui.*"]), *DATA],
    package_dir=DATA,
    package_data={"aesthete_gui": ["py.typed"], **dict.fromkeys(DATA, DATA_PATTERNS)},
)
