#!/usr/bin/env bash
# Installs Échiquier on a Raspberry Pi: a venv in /opt/echiquier, the echiquier user, the unit.
#
#   sudo systemd/install.sh [--no-start] [--dry-run]
#
# Run from a checkout (or an unpacked sdist). Safe to run again to upgrade: the venv is
# updated in place, an existing /etc/echiquier/config.toml is kept, the service restarted.
set -euo pipefail

PREFIX=${PREFIX:-/opt/echiquier}
CONFDIR=${CONFDIR:-/etc/echiquier}
UNITDIR=${UNITDIR:-/etc/systemd/system}
SERVICE_USER=${SERVICE_USER:-echiquier}
PYTHON=${PYTHON:-python3}
SYSROOT=${SYSROOT:-/}   # where /proc is read from (tests emulate a model)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
START=1
DRY=0

for arg in "$@"; do
  case "$arg" in
    --no-start) START=0 ;;
    --dry-run) DRY=1 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

run() {
  echo "+ $*"
  if [ "$DRY" -eq 0 ]; then "$@"; fi
}

if [ "$DRY" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root (sudo $0)" >&2
  exit 1
fi

# 1. The service user: no login, no home; in the groups that own /dev/gpiomem, /dev/gpiochip*,
#    /dev/spidev*, the serial ports and the sound cards on Raspberry Pi OS (created here when missing).
if ! id -u "$SERVICE_USER" >/dev/null 2>&1; then
  run useradd --system --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin "$SERVICE_USER"
fi
for group in gpio spi dialout audio; do
  getent group "$group" >/dev/null 2>&1 || run groupadd --system "$group"
  run usermod --append --groups "$group" "$SERVICE_USER"
done

# 2. The package in its own venv, with the libraries of this Pi's model (read from
#    /proc/device-tree/model as the libraries read it): RPi.GPIO + rpi_ws281x on a Pi 1-4 and
#    Zero 2 W, rpi-lgpio + gpiod + the RP1 NeoPixel package on a Pi 5; then each is imported.
run install -d -m 0755 "$PREFIX"
[ -x "$PREFIX/venv/bin/python" ] || run "$PYTHON" -m venv "$PREFIX/venv"
run "$PREFIX/venv/bin/pip" install --quiet --upgrade pip
platform() { PYTHONPATH="$SRC" "$PYTHON" -m board_driver.pi_platform --root "$SYSROOT" "$@"; }
model=$(platform --model)
extras=$(platform --extras)
echo "model: $model${extras:+ (extras $extras)}"
case ",$extras," in
  *,pi5,*)  # rpi-lgpio provides the RPi.GPIO module: the real RPi.GPIO must go first
    if [ -x "$PREFIX/venv/bin/python" ] && "$PREFIX/venv/bin/pip" show --quiet RPi.GPIO >/dev/null 2>&1; then
      run "$PREFIX/venv/bin/pip" uninstall --quiet --yes RPi.GPIO
    fi ;;
esac
run "$PREFIX/venv/bin/pip" install --quiet --upgrade "$SRC${extras:+[$extras]}"
if [ -n "$extras" ] && ! run "$PREFIX/venv/bin/python" -m board_driver.pi_platform --root "$SYSROOT" --check; then
  echo "install.sh: the hardware libraries for $model do not import (see above); the service would not start" >&2
  exit 1
fi

# 3. Configuration: the documented example and the reference pin map, unless already there.
run install -d -m 0755 "$CONFDIR"
if [ ! -e "$CONFDIR/config.toml" ]; then
  run install -m 0640 -g "$SERVICE_USER" "$SRC/hardware/config.example.toml" "$CONFDIR/config.toml"
fi
if [ -e "$SRC/hardware/reference-board.toml" ] && [ ! -e "$CONFDIR/pinmap.toml" ]; then
  run install -m 0640 -g "$SERVICE_USER" "$SRC/hardware/reference-board.toml" "$CONFDIR/pinmap.toml"
fi

# 4. The unit.
run install -m 0644 "$SRC/systemd/echiquier.service" "$UNITDIR/echiquier.service"
run systemctl daemon-reload
if [ "$START" -eq 1 ]; then
  run systemctl enable echiquier.service
  run systemctl restart echiquier.service
else
  run systemctl enable echiquier.service
fi
case "$(grep -s '^dtparam=spi=on' /boot/firmware/config.txt /boot/config.txt)" in
  "") echo "note: LEDs on GPIO 10 need SPI: sudo raspi-config nonint do_spi 0, then reboot" ;;
esac
echo "check the wiring first: sudo -u $SERVICE_USER $PREFIX/venv/bin/echiquier hwtest --doctor"
echo "installed: journalctl -u echiquier -f to follow it; edit $CONFDIR/config.toml and restart."
