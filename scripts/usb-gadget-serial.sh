#!/usr/bin/env bash
# The board as a USB serial device: a configfs gadget with one ACM function, so that the computer
# or phone at the other end of the USB cable sees a serial port (/dev/ttyACM0, COM3...) and an
# app (PicoChess, Lucas Chess, Arena...) finds the board there, as it finds a commercial board's
# USB port. The board's side is /dev/ttyGS0: [emulation] transport = "serial", link = "/dev/ttyGS0"
# (docs/emulation.md). Run by systemd/echiquier-usb-gadget.service; by hand:
#   sudo scripts/usb-gadget-serial.sh up|down|status [--dry-run]
#
# Needs a USB port that can be a device: the Pi Zero 2 W's USB (not PWR) port, a Pi 4's or 5's
# USB-C port (then powered through the GPIO header or a powered hub), with the dwc2 controller:
# "dtoverlay=dwc2,dr_mode=peripheral" under [all] in /boot/firmware/config.txt (or /boot/config.txt),
# then a reboot. libcomposite is the kernel's gadget framework (loaded here).
set -euo pipefail

GADGET=/sys/kernel/config/usb_gadget/echiquier
VENDOR=${ECHIQUIER_USB_VENDOR:-0x1d6b}      # Linux Foundation
PRODUCT=${ECHIQUIER_USB_PRODUCT:-0x0104}    # Multifunction Composite Gadget
SERIAL=${ECHIQUIER_USB_SERIAL:-$( (tr -d '\0' < /proc/device-tree/serial-number) 2>/dev/null || echo 0001)}
NAME=${ECHIQUIER_USB_NAME:-Echiquier chessboard}

action=${1:-status}
DRY=""
if [ "${2:-}" = "--dry-run" ] || [ "${1:-}" = "--dry-run" ]; then DRY=1; fi
[ "$action" = "--dry-run" ] && action=${2:-status}

run() {
  if [ -n "$DRY" ]; then echo "+ $*"; else "$@"; fi
}
write() {   # write VALUE FILE
  if [ -n "$DRY" ]; then echo "+ echo '$1' > $2"; else echo "$1" > "$2"; fi
}

udc() {
  { ls /sys/class/udc 2>/dev/null || true; } | head -n 1
}

up() {
  if [ -z "$DRY" ] && [ -e "$GADGET/UDC" ] && [ -n "$(cat "$GADGET/UDC")" ]; then
    echo "the gadget is up on $(cat "$GADGET/UDC")"
    return 0
  fi
  run modprobe libcomposite
  if [ -z "$DRY" ] && ! mountpoint -q /sys/kernel/config; then
    mount -t configfs none /sys/kernel/config
  fi
  local controller
  controller=$(udc)
  if [ -z "$controller" ] && [ -z "$DRY" ]; then
    echo "no USB device controller (/sys/class/udc is empty): add 'dtoverlay=dwc2,dr_mode=peripheral' to" \
         "/boot/firmware/config.txt and reboot; on a Pi 4 or 5 use the USB-C port" >&2
    return 1
  fi
  run mkdir -p "$GADGET"
  write "$VENDOR" "$GADGET/idVendor"
  write "$PRODUCT" "$GADGET/idProduct"
  write 0x0100 "$GADGET/bcdDevice"
  write 0x0200 "$GADGET/bcdUSB"
  run mkdir -p "$GADGET/strings/0x409"
  write "$SERIAL" "$GADGET/strings/0x409/serialnumber"
  write "Echiquier" "$GADGET/strings/0x409/manufacturer"
  write "$NAME" "$GADGET/strings/0x409/product"
  run mkdir -p "$GADGET/configs/c.1/strings/0x409"
  write "serial port" "$GADGET/configs/c.1/strings/0x409/configuration"
  write 250 "$GADGET/configs/c.1/MaxPower"
  run mkdir -p "$GADGET/functions/acm.usb0"
  if [ -n "$DRY" ] || [ ! -e "$GADGET/configs/c.1/acm.usb0" ]; then
    run ln -s "$GADGET/functions/acm.usb0" "$GADGET/configs/c.1/"
  fi
  write "${controller:-<udc>}" "$GADGET/UDC"
  echo "the gadget is up: the board answers on /dev/ttyGS0"
}

down() {
  if [ -z "$DRY" ] && [ ! -d "$GADGET" ]; then
    echo "no gadget"
    return 0
  fi
  if [ -n "$DRY" ] || [ -n "$(cat "$GADGET/UDC" 2>/dev/null)" ]; then write "" "$GADGET/UDC"; fi
  run rm -f "$GADGET/configs/c.1/acm.usb0"
  run rmdir "$GADGET/configs/c.1/strings/0x409" "$GADGET/configs/c.1" "$GADGET/functions/acm.usb0" \
      "$GADGET/strings/0x409" "$GADGET"
  echo "the gadget is down"
}

status() {
  if [ -e "$GADGET/UDC" ] && [ -n "$(cat "$GADGET/UDC")" ]; then
    echo "up on $(cat "$GADGET/UDC"): /dev/ttyGS0"
  else
    echo "down (controller: $(udc || true))"
  fi
}

case "$action" in
  up) up ;;
  down) down ;;
  status) status ;;
  *) echo "usage: $0 up|down|status [--dry-run]" >&2; exit 2 ;;
esac
