"""The package's metadata: what pip builds from pyproject.toml, without warnings, under the MIT licence."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_licence_is_an_spdx_string_with_its_text_beside_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT"
    for pattern in project["license-files"]:
        assert list(ROOT.glob(pattern)), f"{pattern} names no file"
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_building_the_metadata_prints_no_deprecation():
    # What `make sim` and `make test` run, up to the metadata: pip builds it with the backend's requirements.
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--dry-run", "--quiet", "-e", str(ROOT)],
        capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert "deprecated" not in output.lower(), output
