"""setup.py's optional compiled build: asked for by ECHIQUIER_MYPYC=1, all modules or none, pure Python when it cannot."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from setuptools import Distribution, Extension

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def setup_py():
    spec = importlib.util.spec_from_file_location("echiquier_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: setup() is not run
    return module


def test_pure_python_unless_asked(setup_py):
    def translate(*args, **kwargs):
        raise AssertionError("mypyc must not run unless ECHIQUIER_MYPYC=1")

    assert setup_py.compiled_extensions({}, translate) == []
    assert setup_py.compiled_extensions({"ECHIQUIER_MYPYC": "0"}, translate) == []


def test_the_listed_modules_are_translated_when_asked(setup_py):
    asked = []

    def translate(paths, **options):
        asked.extend(paths)
        return ["the extensions"]

    assert setup_py.compiled_extensions({"ECHIQUIER_MYPYC": "1"}, translate) == ["the extensions"]
    assert set(setup_py.MYPYC_MODULES) <= set(asked)
    assert all((ROOT / module).is_file() for module in setup_py.MYPYC_MODULES)


def test_pure_python_when_mypyc_is_missing_or_fails(setup_py, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mypyc.build", None)  # import mypyc.build raises ImportError
    assert setup_py.compiled_extensions({"ECHIQUIER_MYPYC": "1"}) == []
    assert "mypyc is not installed" in capsys.readouterr().err

    def type_error(paths, **options):
        sys.exit(1)  # what mypyc does on a type error

    assert setup_py.compiled_extensions({"ECHIQUIER_MYPYC": "1"}, type_error) == []
    assert "could not translate" in capsys.readouterr().err


@pytest.mark.slow
def test_a_failing_compiler_leaves_no_compiled_module(setup_py, tmp_path, capsys, monkeypatch):
    """The first module compiles, the second does not: the first is removed too (mypyc's modules
    share a runtime module; half of them would not import), and the build goes on."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.c").write_text('#include <Python.h>\nstatic struct PyModuleDef m = {PyModuleDef_HEAD_INIT, "good"};\n'
                                     "PyMODINIT_FUNC PyInit_good(void) { return PyModule_Create(&m); }\n")
    (tmp_path / "bad.c").write_text("this is not C\n")
    dist = Distribution({"name": "probe", "ext_modules": [Extension("good", ["good.c"]), Extension("bad", ["bad.c"])]})
    command = setup_py.AllOrNothingBuildExt(dist)
    command.build_lib = str(tmp_path / "lib")
    command.build_temp = str(tmp_path / "temp")
    command.ensure_finalized()
    command.run()
    err = capsys.readouterr().err
    assert "compiling chess_core failed" in err and "1 built module(s) removed" in err
    assert not list((tmp_path / "lib").rglob("*.so"))
