"""Build the wheel (through the sdist, as `python -m build` does) and install it into a fresh venv.

The venv gets the package only from the wheel. Third-party dependencies (torch alone is ~5 GB) are
taken from the test's own environment through a .pth line appended after the venv's site-packages,
so nothing is downloaded; a plain path line does not run that environment's own .pth files, so a
development (editable) install of the checkout stays invisible there.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def build_wheel(out: Path) -> Path:
    """Build the sdist from the checkout, then the wheel from the unpacked sdist; return the wheel."""
    out.mkdir(parents=True, exist_ok=True)
    sdist = out / _call_backend(REPO, "build_sdist", out)
    unpacked = out / "sdist"
    with tarfile.open(sdist) as archive:
        # our own sdist; the "data" filter where this Python has it (3.11.4 and later: Debian 12's 3.11.2 has none)
        archive.extractall(unpacked, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (source,) = unpacked.iterdir()
    return out / _call_backend(source, "build_wheel", out)


def _call_backend(source: Path, hook: str, out: Path) -> str:
    """Run one PEP 517 hook of setuptools in `source`; return the file name it reports."""
    script = f"import setuptools.build_meta as backend; print(backend.{hook}({str(out)!r}))"
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=source, capture_output=True, text=True, timeout=300,
        env=clean_env(),
    )
    assert result.returncode == 0, f"{hook} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout.strip().splitlines()[-1]


def make_venv(folder: Path, wheel: Path) -> Path:
    """A fresh venv holding `wheel` (no dependencies resolved); return its bin/ folder."""
    venv.EnvBuilder(with_pip=False).create(folder)
    python = folder / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
               "--no-index", "--isolated", "--quiet", str(wheel)]  # fmt: skip
    result = subprocess.run(install, capture_output=True, text=True, timeout=300, env=clean_env())
    assert result.returncode == 0, result.stderr
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    # "zz" sorts last: the venv's own packages (the wheel) come first on sys.path.
    (Path(purelib) / "zz_third_party_deps.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    return folder / "bin"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything pointing Python at the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def run(command: list[str], cwd: Path, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
    """Run an installed command from a folder outside the checkout; fail with its output."""
    result = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=clean_env(**env)
    )
    assert result.returncode == 0, f"{command} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    return result
