#!/usr/bin/env sh
# System packages the app and its tests use beyond pip: exiftool (the XMP round-trip test reads
# sidecars back with it), desktop-file-validate and appstreamcli (the desktop-integration tests
# validate the shipped files with them), the X/GL client libraries Qt loads even when offscreen, and the xcb
# libraries Qt 6's X11 plugin needs to open a window (aesthete_gui/display_check.py names them).
# Installs them with apt-get when run as root on Debian/Ubuntu; otherwise says what is missing.
set -eu
missing=""
ldconfig=$(command -v ldconfig || echo /sbin/ldconfig)
command -v exiftool >/dev/null 2>&1 || missing="$missing libimage-exiftool-perl"
command -v desktop-file-validate >/dev/null 2>&1 || missing="$missing desktop-file-utils"
command -v appstreamcli >/dev/null 2>&1 || missing="$missing appstream"
for lib in libEGL.so.1 libGL.so.1 libxkbcommon.so.0 libfontconfig.so.1 libdbus-1.so.3 \
  libxcb-cursor.so.0 libxcb-icccm.so.4 libxcb-keysyms.so.1 libxcb-image.so.0 \
  libxcb-render-util.so.0 libxkbcommon-x11.so.0; do
  if ! "$ldconfig" -p 2>/dev/null | grep -q "$lib"; then
    case "$lib" in
      libEGL*) missing="$missing libegl1" ;;
      libGL.*) missing="$missing libgl1" ;;
      libxkbcommon-x11*) missing="$missing libxkbcommon-x11-0" ;;
      libxkb*) missing="$missing libxkbcommon0" ;;
      libxcb-cursor*) missing="$missing libxcb-cursor0" ;;
      libxcb-icccm*) missing="$missing libxcb-icccm4" ;;
      libxcb-keysyms*) missing="$missing libxcb-keysyms1" ;;
      libxcb-image*) missing="$missing libxcb-image0" ;;
      libxcb-render-util*) missing="$missing libxcb-render-util0" ;;
      libfont*) missing="$missing libfontconfig1" ;;
      libdbus*) missing="$missing libdbus-1-3" ;;
    esac
  fi
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing system packages:$missing"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
else
  echo "note: missing system packages:$missing (install them with: sudo apt-get install$missing)" >&2
fi
