#!/usr/bin/env bash
# Installs the Debian packages the tests need (stockfish, pgn-extract, chromium, systemd-analyze,
# mosquitto: the club night broker, openssl: its TLS test's certificates, espeak-ng: the board's voice,
# dbus-daemon: a private bus for the Bluetooth board's tests),
# skipping those already present. Needs root or sudo; does nothing when all are there.
set -euo pipefail
need=()
[ -x /usr/games/stockfish ] || need+=(stockfish)
[ -x /usr/games/pgn-extract ] || command -v pgn-extract >/dev/null 2>&1 || need+=(pgn-extract)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
{ [ -x /usr/sbin/mosquitto ] || command -v mosquitto >/dev/null 2>&1; } || need+=(mosquitto)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v espeak-ng >/dev/null 2>&1 || need+=(espeak-ng)
command -v dbus-daemon >/dev/null 2>&1 || need+=(dbus-daemon)   # a private bus for the BLE board's tests (bluezoo)
# make's virtual environment: Debian's python3 has no ensurepip without python3-venv
if [ "$(command -v python3)" = /usr/bin/python3 ] && ! python3 -m ensurepip --version >/dev/null 2>&1; then
  need+=(python3-venv)
fi
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "installing Debian packages: ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
