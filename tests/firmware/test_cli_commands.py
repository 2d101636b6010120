"""`echiquier COMMAND` imports its own command's module alone; `echiquier --help` still lists them all."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from firmware.cli import COMMANDS, build_parser

ROOT = Path(__file__).resolve().parents[2]


def test_the_full_parser_lists_every_command():
    text = build_parser().format_help()
    assert all(name in text for name in COMMANDS)


def test_a_command_imports_no_other_commands_module():
    """Another command's module is not loaded (their helpers, such as fen_check, may be)."""
    code = ("import sys\nfrom firmware.cli import COMMANDS, main\nmain(['perft', '--depth', '1'])\n"
            "print(sorted(m for m in sys.modules if m.removeprefix('firmware.commands.') in COMMANDS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.splitlines()[-1] == "['firmware.commands.perft']"


def test_an_unknown_command_is_refused_with_the_list_of_commands(capsys):
    from firmware.cli import main
    with pytest.raises(SystemExit) as exc:
        main(["nosuch"])
    assert exc.value.code == 2
    assert "hub" in capsys.readouterr().err
