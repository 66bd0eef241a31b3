#!/usr/bin/env sh
# Refuses, in one line, to start the first install where the disk cannot hold it: the virtual
# environment keeps about 6.4 GB (CUDA torch wheels), and pip needs the downloaded wheels beside it
# while installing (7.2 GB at the peak, measured on 2026-11-28 with --no-cache-dir, wheels and
# environment on one disk). Without this, pip stops minutes in with "OSError: [Errno 28] No space
# left on device" and a half-made .venv. Usage: disk-space.sh VENV_DIR [PYTHON]
set -eu
venv="${1:?usage: disk-space.sh VENV_DIR [PYTHON]}"
python="${2:-python3}"
need_gb=8
# torch already in the environment: the big part is done, a re-install needs little room.
if ls "$venv"/lib/python*/site-packages/torch/__init__.py >/dev/null 2>&1; then
  exit 0
fi
# the disk the environment lands on: its own folder when it exists (a link to another disk
# included), else the folder it will be made in. Python reads the free space: df's columns shift
# when a file system's name holds a space (a network share).
where="$venv"
[ -e "$where" ] || where=$(dirname "$venv")
free_kb=$("$python" -c 'import shutil, sys; print(shutil.disk_usage(sys.argv[1]).free // 1024)' "$where" 2>/dev/null) || exit 0
case "$free_kb" in
  ''|*[!0-9]*) exit 0 ;;  # not a number: let pip try
esac
if [ "$free_kb" -lt $((need_gb * 1024 * 1024)) ]; then
  free_gb=$(awk -v kb="$free_kb" 'BEGIN { printf "%.1f", kb / 1048576 }')
  echo "not enough disk space to install: $free_gb GB free where $venv goes, about $need_gb GB needed while installing (6.4 GB stays); free some space and run the command again" >&2
  exit 1
fi
