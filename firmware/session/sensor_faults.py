"""The board's faulty sensors kept in the state directory: written by the session when one is found, read by the doctor."""
from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path

from chess_core.squares import parse_square, square_name

from durable.atomic_file import write_atomically
from durable.bounded_read import read_bounded

__all__ = ["FAULTS_FILE", "record_fault", "clear_fault", "read_faults", "known_faults"]

FAULTS_FILE = "sensor-faults.json"   # {"f3": {"reads_piece": false, "since": ISO time}, ...}
MAX_FAULTS_BYTES = 64 * 1024         # the file read back (64 squares' faults take under 6 KB)

log = logging.getLogger(__name__)


def read_faults(state_dir: str | Path) -> dict[str, dict[str, object]]:
    """The faults on record by square name ({} when none, or when the file cannot be read)."""
    try:
        read = read_bounded(Path(state_dir) / FAULTS_FILE, MAX_FAULTS_BYTES)
        data = json.loads(read.data.decode("utf-8")) if not read.cut else None
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    found = {}
    for name, fault in data.items():
        try:
            parse_square(str(name))
        except ValueError:
            continue
        if isinstance(fault, dict):
            found[str(name)] = {"reads_piece": bool(fault.get("reads_piece")), "since": str(fault.get("since", ""))}
    return found


def known_faults(state_dir: str | Path) -> dict[int, bool]:
    """The faults on record by square number (what each sensor reads: True, a piece)."""
    return {parse_square(name): bool(fault["reads_piece"]) for name, fault in read_faults(state_dir).items()}


def _write(state_dir: str | Path, faults: dict[str, dict[str, object]]) -> None:
    try:
        Path(state_dir).mkdir(parents=True, exist_ok=True)
        write_atomically(Path(state_dir) / FAULTS_FILE, json.dumps(faults, indent=1, sort_keys=True) + "\n")
    except OSError as exc:   # a full disk: the fault is in the journal and the game's file still
        log.warning("could not keep the sensor fault for the doctor: %s", exc)


def record_fault(state_dir: str | Path, square: int, reads_piece: bool, when: datetime) -> None:
    faults = read_faults(state_dir)
    faults[square_name(square)] = {"reads_piece": reads_piece, "since": when.isoformat(timespec="seconds")}
    _write(state_dir, faults)


def clear_fault(state_dir: str | Path, square: int) -> None:
    faults = read_faults(state_dir)
    if faults.pop(square_name(square), None) is not None:
        _write(state_dir, faults)
