"""The page's script as ES modules (issue 34): the module graph, its sizes, its words, how it is served.

index.html loads one entry module (app.js); every other script of firmware/web/static/ is a module
reached from it by relative imports, each at most 300 lines, none importing another in a cycle.
The script writes no word of its own: every key it asks of its words (w("key"), wf("key", ...))
is a word of the page in every language (GET /api/words), and none of the page's English words
is written in the script.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import firmware.words as words
from firmware.web.server import STATIC_DIR
from tests.cycles import cycles

MOST_LINES = 300
ENTRY = "app.js"
MODULES = {path.name: path.read_text(encoding="utf-8") for path in sorted(STATIC_DIR.glob("*.js"))}
# import x from "./m.js"; import { a, b } from "./m.js"; import "./m.js" (over several lines too)
IMPORT = re.compile(r"""^\s*import\s+(?:[^;'"]*?\s+from\s+)?["']([^"']+)["']""", re.MULTILINE)
SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.DOTALL | re.IGNORECASE)


def imports_of(name: str) -> list[str]:
    return IMPORT.findall(MODULES[name])


def graph() -> dict[str, set[str]]:
    return {name: {spec.removeprefix("./") for spec in imports_of(name)} for name in MODULES}


def test_the_page_loads_its_entry_module_only():
    html = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    scripts = SCRIPT.findall(html)
    assert scripts == [(' type="module" src="/static/app.js"', "")], scripts


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_imports_modules_of_the_page_by_a_relative_name(name):
    for spec in imports_of(name):
        assert re.fullmatch(r"\./[a-z]+\.js", spec), f"{name} imports {spec!r}"
        assert spec[2:] in MODULES, f"{name} imports {spec}, which is not in {STATIC_DIR}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_is_over_300_lines(name):
    lines = len(MODULES[name].splitlines())
    assert lines <= MOST_LINES, f"{name} has {lines} lines (at most {MOST_LINES})"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_keeps_to_itself(name):
    """Modules share through their imports (ui.js holds the shared state), never through the
    window's globals; they are modules, strict already, and say what they are for in a first comment."""
    text = MODULES[name]
    assert not re.search(r"\bwindow\.[A-Za-z_$]+\s*=[^=]", text), f"{name} sets a global"
    assert '"use strict"' not in text
    assert text.startswith("// "), f"{name}: no comment to say what it is for"


def test_every_module_is_reached_from_the_entry():
    seen, todo = set(), [ENTRY]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph()[name])
    assert seen == set(MODULES), f"never imported: {sorted(set(MODULES) - seen)}"


def test_no_import_cycles():
    found = cycles(graph())
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_shared_state_imports_nothing():
    assert imports_of("ui.js") == []


# w("key"), w(`key_${side}`), w("key_" + piece), wf("key", {...}): the first argument of each call
WORD_CALL = re.compile(r"""\bwf?\(\s*(["'`])((?:(?!\1).)*)\1(\s*\+)?""")


def _asked_keys() -> list[tuple[str, str]]:
    return [(name, key + ("${...}" if joined else "")) for name, text in MODULES.items()
            for _, key, joined in WORD_CALL.findall(text)]


def test_the_script_asks_its_words_of_the_catalogues():
    asked = _asked_keys()
    assert len(asked) > 50
    for lang, page in words.PAGE.items():
        for name, key in asked:
            # a key built from a side, a state ...: some word of the page must fit it
            pattern = re.sub(r"\\\$\\\{[^}]*\\\}", r"\\w+", re.escape(key))
            assert any(re.fullmatch(pattern, k) for k in page), f"{name}: no page word {key!r} in {lang}"


def test_the_script_writes_none_of_the_pages_english_words():
    """The words are the catalogues' (firmware/words/en.py, fr.py), served by GET /api/words."""
    english = {text.strip() for text in words.PAGE["en"].values() if len(text.strip()) > 3}
    english |= {text for text in words.LED_ROLES["en"].values()}
    for name, text in MODULES.items():
        text = re.sub(r"(^|\s)//.*$", "", text, flags=re.MULTILINE)   # (the comments may quote the words)
        literals = re.findall(r'"((?:[^"\\\n]|\\.)*)"', text) + re.findall(r"'((?:[^'\\\n]|\\.)*)'", text)
        # (a lower-case word alone is a key: "empty", the squares' words for an empty square)
        written = {literal.strip() for literal in literals if not re.fullmatch(r"[a-z_]+", literal)} & english
        assert not written, f"{name} writes the page's words {sorted(written)}"


async def test_every_module_is_served_as_javascript_from_the_page_itself(serve):
    """A module script needs a JavaScript MIME type (a browser refuses one served otherwise); the
    page's Content-Security-Policy lets it load the board's own scripts, and nothing from elsewhere."""
    client, _, _ = await serve()
    policy = (await client.get("/")).headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy
    for name in MODULES:
        response = await client.get(f"/static/{name}")
        assert response.status == 200, name
        assert response.headers["Content-Type"].split(";")[0] == "text/javascript", name
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["ETag"] and response.headers["Cache-Control"] == "no-cache", name
        text = await response.text()
        assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text, name
