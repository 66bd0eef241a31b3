#!/usr/bin/env sh
# Refuses, in one line, to start the first install where the disk cannot hold it: the virtual
# environment keeps about 6.4 GB (CUDA torch wheels), and pip needs the downloaded wheels beside it
# while installing (7.2 GB at the peak, measured on 2026-11-28 with --no-cache-dir). Without this, pip stops minutes in with "OSError:
# [Errno 28] No space left on device" and a half-made .venv. Usage: disk-space.sh VENV_DIR
set -eu
venv="$1"
need_gb=8
# torch already in the environment: the big part is done, a re-install needs little room.
if ls "$venv"/lib/python*/site-packages/torch/__init__.py >/dev/null 2>&1; then
  exit 0
fi
dir=$(dirname "$venv")
free_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
case "$free_kb" in
  ''|*[!0-9]*) exit 0 ;;  # df printed something unexpected: let pip try
esac
if [ "$free_kb" -lt $((need_gb * 1024 * 1024)) ]; then
  free_gb=$(awk -v kb="$free_kb" 'BEGIN { printf "%.1f", kb / 1048576 }')
  echo "not enough disk space to install: $free_gb GB free where $venv goes, about $need_gb GB needed while installing (6.4 GB stays); free some space and run the command again" >&2
  exit 1
fi
