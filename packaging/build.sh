#!/usr/bin/env bash
# Build the one-folder desktop bundle dist/aesthete/ (aesthete-gui, aesthete, _internal/) from a
# freshly built wheel, with CPU-only torch unless TORCH=cuda. Usage, from anywhere:
#   packaging/build.sh                 # CPU torch (about 1 GB smaller, runs everywhere)
#   TORCH=cuda packaging/build.sh      # the package index's CUDA torch + torchvision pair
# Settings (environment): PYTHON (python3.11), WORK (build/bundle), DIST (dist).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3.11}
TORCH=${TORCH:-cpu}
WORK=$(mkdir -p "${WORK:-$ROOT/build/bundle}" && cd "${WORK:-$ROOT/build/bundle}" && pwd)
DIST=$(mkdir -p "${DIST:-$ROOT/dist}" && cd "${DIST:-$ROOT/dist}" && pwd)
VENV=$WORK/venv-$TORCH
PY=$VENV/bin/python
TORCH_CPU_INDEX=${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}
start=$(date +%s)

if [ ! -f "$VENV/.ready" ]; then
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$PY" -m pip install -q --upgrade pip
  "$PY" -m pip install -q build "pyinstaller>=6.10,<7"
  case "$TORCH" in
    # No CPU build of torchvision exists; the bundle leaves it out (see docs/install.md).
    cpu) "$PY" -m pip install -q "torch==2.13.0+cpu" 2>/dev/null \
           || "$PY" -m pip install -q "torch==2.13.0+cpu" --extra-index-url "$TORCH_CPU_INDEX" ;;
    cuda) "$PY" -m pip install --isolated -q "torch==2.13.0" "torchvision==0.28.0" ;;
    *) echo "TORCH must be cpu or cuda, not $TORCH" >&2; exit 2 ;;
  esac
  touch "$VENV/.ready"
fi

rm -rf "$WORK/wheel"
"$PY" -m build --wheel --outdir "$WORK/wheel" "$ROOT" >"$WORK/build-wheel.log"
wheel=$(ls "$WORK"/wheel/aesthete_gui-*.whl)
# The wheel's own dependencies (read from its metadata), except the torch pair chosen above; then
# the wheel itself without them, so pip does not pull torchvision next to CPU torch.
"$PY" - "$wheel" >"$WORK/requirements.txt" <<'PY'
import sys, zipfile
from email.parser import Parser
with zipfile.ZipFile(sys.argv[1]) as wheel:
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    metadata = Parser().parsestr(wheel.read(name).decode("utf-8"))
for line in metadata.get_all("Requires-Dist") or []:
    requirement = line.split(";")[0].strip()
    if "extra ==" not in line and not requirement.startswith(("torch>", "torch=", "torchvision")):
        print(requirement)
PY
"$PY" -m pip install -q -r "$WORK/requirements.txt"
"$PY" -m pip install -q --force-reinstall --no-deps "$wheel"

cd "$WORK"  # keep the checkout off PyInstaller's search path
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
  --workpath "$WORK/pyinstaller" --distpath "$DIST" "$ROOT/packaging/aesthete.spec"
"$DIST/aesthete/aesthete" --version
echo "bundle: $DIST/aesthete ($(du -sh "$DIST/aesthete" | cut -f1)), built in $(( $(date +%s) - start )) s"
