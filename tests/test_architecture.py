"""The architecture as a test: which package may import which, no cycles, a docstring line per module.

The layers, lowest first (docs/architecture.md): chess_core, board_driver and netserver (none
imports another nor anything of ours; durable, the one atomic write), firmware's configuration and words, the
referee and the LEDs' compositor (pure: no asyncio, no I/O), the opponents, the session, the service and the web
companion, the commands. Imports inside functions count: a cycle hidden in a function is a
cycle. The sizes the house keeps (the session a conductor, the match and the page's server
focused) and the session's distance from its referee's parts are rules too.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from tests.cycles import cycles

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("chess_core", "board_driver", "netserver", "club_wire", "uci", "durable", "firmware", "club_hub")
OURS = PACKAGES + ("coprocessor",)

# Layer of each part (a module belongs to the longest prefix listed); imports go to a lower or the
# same layer only.
LAYERS = {
    "chess_core": 0,
    "board_driver": 0,
    "netserver": 0,
    "club_wire": 0,
    "uci": 0,
    "durable": 0,
    "firmware.config": 1,
    "firmware.words": 1,
    "firmware.sdnotify": 1,
    "firmware.heap": 1,
    "firmware.tasks": 1,
    "firmware.openings": 1,
    "firmware.referee": 2,
    "firmware.leds": 2,
    "firmware.training": 3,
    "firmware.opponents": 3,
    "firmware.analysis": 3,
    "firmware.session": 4,
    "firmware.library": 4,
    "firmware.service": 5,
    "firmware.companion": 5,
    "firmware.web": 5,
    "firmware.club": 5,
    "club_hub": 5,
    "firmware.emulation": 5,
    "firmware.voice": 5,
    "firmware.sim": 6,
    "firmware.commands": 6,
    "firmware.cli": 7,
    "firmware": 7,
}
# What the pure parts may not import, from the standard library or outside it.
NOT_IN_PURE = {"asyncio", "threading", "socket", "subprocess", "aiohttp", "httpx", "serial", "time", "os"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def _type_checking_only(node: ast.AST, parents: dict) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return True
    return False


def imports_of(name: str) -> set[str]:
    """Every module ``name`` imports, at the top or inside a function (TYPE_CHECKING ones left out)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if _type_checking_only(node, parents):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            for alias in node.names:   # `from pkg import module`
                if f"{module}.{alias.name}" in MODULES:
                    found.add(f"{module}.{alias.name}")
    return found


def ours(imported: str) -> str | None:
    """The module of ours that ``imported`` names (a package's __init__ for a package), or None."""
    if imported.split(".")[0] not in OURS:
        return None
    while imported and imported not in MODULES:
        imported = imported.rpartition(".")[0]
    return imported or None


def layer(name: str) -> int:
    best = max((p for p in LAYERS if name == p or name.startswith(p + ".")), key=len)
    return LAYERS[best]


GRAPH = {name: {m for m in map(ours, imports_of(name)) if m and m != name} for name in MODULES}


# The bottom packages and what of ours each may import besides itself: the rules (chess_core);
# the HTTP/1.1 and WebSocket server, which knows nothing of the application that serves pages
# with it (netserver); the club night's topics and messages, which the board and the hub share
# and which know neither (club_wire); Stockfish's driver, which serves the opponent, the coach,
# the library and echiquier analyse, and knows moves and positions only (uci); the one atomic
# write, which the board's files and the hub's store share (durable).
BOTTOM = [("chess_core", ()), ("netserver", ()), ("club_wire", ()), ("uci", ("chess_core",)), ("durable", ())]


@pytest.mark.parametrize("package, allowed", BOTTOM)
def test_the_bottom_packages_import_the_standard_library_and_what_they_are_allowed(package, allowed):
    for name in (n for n in MODULES if n.split(".")[0] == package):
        for imported in imports_of(name):
            top = imported.split(".")[0]
            assert top in (package, *allowed) or top in sys.stdlib_module_names, f"{name} imports {imported}"


def test_the_hub_is_an_application_of_its_own():
    """The hub runs on another machine than the board: it takes the wire format, the server and
    the rules, never the board's session, referee, web companion or driver; and only the
    ``echiquier hub`` command imports it."""
    for name in (n for n in MODULES if n.startswith("club_hub")):
        for imported in imports_of(name):
            assert not imported.startswith(("firmware.session", "firmware.referee", "firmware.web", "board_driver",
                                            "firmware.club")), f"{name} imports {imported}"
    for name in (n for n in MODULES if not n.startswith("club_hub")):
        assert not any(i.split(".")[0] == "club_hub" for i in imports_of(name)) or name == "firmware.commands.hub", name


def test_board_driver_never_imports_chess_or_the_service():
    for name in (n for n in MODULES if n.startswith("board_driver")):
        for imported in imports_of(name):
            assert imported.split(".")[0] not in ("chess_core", "firmware", "chess"), f"{name} imports {imported}"


def test_the_referee_is_pure():
    for name in (n for n in MODULES if n.startswith(("firmware.referee", "firmware.leds"))):
        for imported in imports_of(name):
            top = imported.split(".")[0]
            assert top not in NOT_IN_PURE, f"{name} imports {imported}"
            assert not imported.startswith(("firmware.session", "firmware.web", "firmware.service",
                                            "firmware.opponents", "firmware.commands")), f"{name} imports {imported}"


# The pure parts, each with what of ours it may import besides chess_core: the codecs of the emulated
# boards (firmware.emulation: bytes and the time in, events out); what the board says (firmware.voice:
# the session's states and the time in, words out: never the speaker nor its companion); training's
# rules (firmware.training: positions, puzzles and analyses in, plans, verdicts and choices out; the
# miner alone drives an engine, and training reuses the analysis's judgement, never the session's parts).
EMULATION_CODECS = ("firmware.emulation.board", "firmware.emulation.chesslink", "firmware.emulation.dgt",
                    "firmware.emulation.chessnut")
VOICE_WORDS = ("firmware.voice.phrases", "firmware.voice.announcer")
TRAINING_RULES = ("firmware.training.setup_plan", "firmware.training.setup_guide", "firmware.training.puzzles",
                  "firmware.training.themes", "firmware.training.drill", "firmware.training.exercises",
                  "firmware.training.glicko2")
PURE_PARTS = ([(name, lambda i: i.startswith("firmware.emulation.")) for name in EMULATION_CODECS]
              + [(name, lambda i: not i.startswith(("firmware.voice.speaker", "firmware.voice.companion")))
                 for name in VOICE_WORDS]
              + [(name, lambda i: i.startswith(("firmware.training.", "firmware.analysis.judgement")))
                 for name in TRAINING_RULES])


@pytest.mark.parametrize("name, allowed", PURE_PARTS, ids=[name for name, _ in PURE_PARTS])
def test_the_pure_parts_import_no_io_and_only_what_they_may(name, allowed):
    assert name in MODULES
    for imported in imports_of(name):
        top = imported.split(".")[0]
        assert top not in NOT_IN_PURE, f"{name} imports {imported}"
        assert top in ("chess_core", "firmware") or top in sys.stdlib_module_names, f"{name} imports {imported}"
        assert not imported.startswith("firmware.") or allowed(imported), f"{name} imports {imported}"


def test_training_stays_below_the_session():
    for name in (n for n in MODULES if n.startswith("firmware.training")):
        for imported in imports_of(name):
            assert not imported.startswith(("firmware.session", "firmware.web", "firmware.service",
                                            "firmware.opponents", "firmware.commands")), f"{name} imports {imported}"


def test_only_the_club_hub_imports_aiohttp():
    """The board's page runs on netserver (importing aiohttp took 14 MB of resident memory)."""
    for name in (n for n in MODULES if not n.startswith("club_hub")):
        for imported in imports_of(name):
            assert imported.split(".")[0] != "aiohttp", f"{name} imports {imported}"


def test_imports_go_down_the_layers():
    upward = [f"{name} -> {target}" for name, targets in GRAPH.items() for target in targets
              if layer(target) > layer(name)]
    assert not upward, "imports that go up a layer:\n" + "\n".join(sorted(upward))


def test_no_import_cycles():
    # (a package's __init__ re-exporting its own modules is no cycle)
    found = cycles(GRAPH, skip=lambda node, nxt: nxt.startswith(node + "."))
    assert not found, "import cycles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_in_tree_imports_are_never_guarded():
    """An import of ours that fails is a bug to see, not a case to handle."""
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and any(
                    isinstance(h.type, ast.Name) and h.type.id in ("ImportError", "ModuleNotFoundError")
                    for h in node.handlers):
                for inner in ast.walk(ast.Module(body=node.body, type_ignores=[])):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        names = [a.name for a in inner.names] if isinstance(inner, ast.Import) else [inner.module or ""]
                        assert not any(n.split(".")[0] in OURS for n in names) and not (
                            isinstance(inner, ast.ImportFrom) and inner.level), f"{name}: guarded import of ours"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_says_what_it_is_for_in_its_first_line(name):
    doc = ast.get_docstring(ast.parse(MODULES[name].read_text()))
    assert doc and doc.splitlines()[0].strip(), f"{name}: no docstring"


def test_the_coprocessor_firmware_stands_apart():
    for path in sorted((ROOT / "coprocessor").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.split(".")[0] not in PACKAGES, f"{path.name} imports {node.module}"
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] in PACKAGES for a in node.names), path.name


def test_only_the_game_sets_its_own_outcome():
    """A game's outcome changes through Game's methods (end, decide...), never by assignment from outside."""
    for name, path in MODULES.items():
        if name == "chess_core.game":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
            for target in targets:
                for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                    if isinstance(t, ast.Attribute) and t.attr == "outcome" and "game" in ast.unparse(t.value).lower():
                        raise AssertionError(f"{name}:{node.lineno} assigns {ast.unparse(t)}")


# The hub's wait is on its own stop event (a cancellation lost there meets the stop, which ends the loop).
WAIT_FOR_LEFT = ("club_hub.app",)


def test_no_asyncio_wait_for_that_could_drop_a_cancellation():
    """asyncio.wait_for (Python 3.11) returns a result landing in the same turn as a cancellation and
    drops the cancellation: a stop then waits for ever (the Lichess stream). asyncio.timeout instead."""
    found = []
    for name, path in MODULES.items():
        if name.startswith(WAIT_FOR_LEFT):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in ("asyncio.wait_for", "wait_for"):
                found.append(f"{name}:{node.lineno}")
    assert not found, "asyncio.wait_for in: " + ", ".join(found)


def _methods(name: str, cls: str) -> list[str]:
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            return [b.name for b in node.body if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))]
    raise AssertionError(f"no class {cls} in {name}")


# (module, class, most methods): the session conducts, its parts do the work; the match and the
# page's server stay focused. Every def in the class body counts, properties and dunders too.
SIZES = [("firmware.session.session", "Session", 30), ("firmware.referee.match", "Match", 40),
         ("firmware.referee.inference", "MoveInference", 40), ("firmware.web.server", "WebCompanion", 30),
         ("firmware.session.seat", "OpponentSeat", 40)]
LINES = [("firmware.session.session", 450)]


@pytest.mark.parametrize("name, cls, most", SIZES)
def test_the_classes_that_grow_stay_within_their_size(name, cls, most):
    methods = _methods(name, cls)
    assert len(methods) <= most, f"{cls} has {len(methods)} methods (at most {most}): {methods}"


def test_no_class_in_the_firmware_is_over_forty_methods():
    """The house's ceiling for every class of the board's program (the SIZES above hold some lower)."""
    found = [f"{name}.{node.name}: {count}" for name, path in MODULES.items() if name.startswith("firmware")
             for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ClassDef)
             if (count := sum(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in node.body)) > 40]
    assert not found, "classes over 40 methods: " + ", ".join(found)


@pytest.mark.parametrize("name, most", LINES)
def test_the_modules_that_grow_stay_within_their_lines(name, most):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= most, f"{name} has {lines} lines (at most {most})"


def test_nothing_answers_for_missing_attributes_by_magic():
    """No __getattribute__ or __getattr__ in the product: a missing method is a bug to see (the
    opponent's listener once filled in missing ones behind the session's back)."""
    found = [f"{name}:{node.lineno}" for name, path in MODULES.items()
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.FunctionDef) and node.name in ("__getattribute__", "__getattr__")]
    assert not found, "attribute magic in: " + ", ".join(found)


# The referee's parts the session and its parts never touch: they ask the Referee
# (firmware.referee.referee), and give it orders (firmware.referee.orders).
REFEREE_INSIDES = {"debouncer", "to_arrange", "gestures", "restart", "inference", "settled", "verdict"}


def test_the_session_never_reaches_inside_its_referee():
    found = []
    for name, path in MODULES.items():
        if not name.startswith("firmware.session"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in REFEREE_INSIDES and "referee" in ast.unparse(node.value):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not found, "the session reaches inside its referee: " + ", ".join(found)


def test_the_session_takes_each_input_to_its_referee_once():
    """feed and poll hand their input to the referee's step in one call each, and nothing else of it."""
    tree = ast.parse(MODULES["firmware.session.session"].read_text())
    session = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "Session")
    for method in ("feed", "poll"):
        body = next(b for b in session.body if isinstance(b, ast.FunctionDef) and b.name == method)
        calls = [ast.unparse(c.func) for c in ast.walk(body) if isinstance(c, ast.Call)
                 and ast.unparse(c.func).startswith("self.referee.")]
        assert calls == ["self.referee.step"], (method, calls)


def test_nobody_reaches_the_match_around_its_referee():
    """The referee's match is private: outside firmware/referee/, nothing reads ``referee.match``
    or a ``_match``; commands go in as orders through ``Referee.step``, and what is read of the
    game comes from the referee's properties and frozen views."""
    found = []
    for name, path in MODULES.items():
        if name.startswith("firmware.referee"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and (node.attr == "_match" or (
                    node.attr == "match" and "referee" in ast.unparse(node.value).lower())):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not found, "the match reached around its referee: " + ", ".join(found)


def test_one_spelling_of_optional_types():
    """X | None, never Optional[X] or Union[X, None], in the typed packages."""
    found = [f"{name}:{node.lineno}" for name, path in MODULES.items()
             if name.startswith(("chess_core", "board_driver", "netserver", "firmware"))
             for node in ast.walk(ast.parse(path.read_text()))
             if (isinstance(node, (ast.Name, ast.Attribute)) and ast.unparse(node) in ("Optional", "typing.Optional"))
             or (isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Union", "typing.Union")
                 and "None" in ast.unparse(node.slice))]
    assert not found, "Optional[...] in: " + ", ".join(found[:20]) + (f" and {len(found) - 20} more" if len(found) > 20 else "")


def test_only_the_seat_writes_its_fields():
    """The opponent's seat owns its state (the online game, offers, the choice of opponent): the
    session and its parts call its methods, never assign its fields."""
    found = []
    for name, path in MODULES.items():
        if name == "firmware.session.seat":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and ast.unparse(target.value).endswith("seat"):
                    found.append(f"{name}:{node.lineno} {ast.unparse(target)}")
    assert not found, "the seat's fields written from outside: " + ", ".join(found)


# What changes a session: its commands (firmware.session.door.COMMANDS) and its inputs.
SESSION_ENTRIES = {"feed", "poll", "finish", "restore", "refresh", "apply", "publish", "next_game", "set_names",
                   "change_config", "new_game", "set_round", "resign", "offer_draw", "accept_draw", "decline_draw",
                   "claim_draw", "choose_promotion", "correct", "pause", "resume", "takeback", "update_settings",
                   "button", "take_over", "give_back", "login", "logout", "attach_app", "show_on_board",
                   "push_layer", "remove_layer"}
# The loops that own a session: the service's, and ``echiquier replay``'s (a session of its own, no service).
SESSION_OWNERS = ("firmware.service", "firmware.commands.replay")


def test_one_door_into_the_session():
    """Outside the session's package, nothing calls into a session but its owner's loop: the page,
    the club, the apps, the voice send messages through ``session.door`` (firmware.session.door)."""
    found = []
    for name, path in MODULES.items():
        if name.startswith("firmware.session") or name in SESSION_OWNERS:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SESSION_ENTRIES:
                receiver = ast.unparse(node.func.value)
                if receiver.split(".")[-1] in ("session", "seat", "takeovers", "lichess", "coach") \
                        or ".session." in f".{receiver}.":
                    found.append(f"{name}:{node.lineno} {ast.unparse(node.func)}")
    assert not found, "calls into the session past its door: " + ", ".join(found)


def test_the_door_names_every_command_a_message_may_carry():
    """Each command a message may name is a command of the session (its method, or a function of the session's commands)."""
    from firmware.session.door import COMMANDS, Command
    from firmware.session.session import Session
    from firmware.config import load_config

    session = Session(load_config(None))
    for name, command in COMMANDS.items():
        assert callable(command(session)), name
    with pytest.raises(ValueError):
        Command("__init__")


def _session_fields() -> set[str]:
    """The fields Session's constructor sets (self.<name> = ...)."""
    for node in ast.walk(ast.parse(MODULES["firmware.session.session"].read_text())):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            return {t.attr for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AnnAssign))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                    if isinstance(t, ast.Attribute) and ast.unparse(t.value) == "self"}
    raise AssertionError("no Session.__init__")


def _a_session(node: ast.expr) -> bool:
    """``node`` names a session: ``session``, ``s`` (the parts' short name), ``self.session``, ``x.session``."""
    return ast.unparse(node).split(".")[-1] in ("session", "s", "restarted")


def test_only_session_py_assigns_the_sessions_fields():
    """The session keeps its values (its phase, the game's Play, names, the app...) and only
    session.py assigns them: its parts hand their decisions over as effects (Session.carry_out).
    Tuples, attribute chains and setattr on a session count."""
    fields = _session_fields()
    assert {"board_state", "config", "leds"} <= fields
    found = []
    for name, path in MODULES.items():
        if name == "firmware.session.session":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, (ast.AugAssign, ast.AnnAssign)) else []
            flat = [t for target in targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
            for t in flat:
                if isinstance(t, ast.Attribute) and t.attr in fields and _a_session(t.value):
                    found.append(f"{name}:{node.lineno} {ast.unparse(t)}")
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "setattr" and node.args \
                    and _a_session(node.args[0]):
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("append", "extend", "clear", "update") \
                    and ast.unparse(node.func.value).split(".")[-1] in fields \
                    and isinstance(node.func.value, ast.Attribute) and _a_session(node.func.value.value):
                found.append(f"{name}:{node.lineno} {ast.unparse(node.func)}")
    assert not found, "the session's fields written outside session.py: " + ", ".join(found)


def test_the_boards_state_is_one_value_replaced_in_one_place():
    """Issue 33: the phase, the game's Play, the names, the app... are one frozen BoardState, not
    fields of the session; in session.py one method replaces it (``_keep``), the constructor sets it."""
    import dataclasses

    from firmware.session.board_state import BoardState

    assert BoardState.__dataclass_params__.frozen
    held = {f.name for f in dataclasses.fields(BoardState)}
    assert {"phase", "play", "names", "given_names", "app", "failed_helpers", "lights"} <= held
    assert not held & _session_fields(), "fields of the board's state kept beside it on the session"
    assigning = set()
    for node in ast.walk(ast.parse(MODULES["firmware.session.session"].read_text())):
        if isinstance(node, ast.FunctionDef):
            for n in ast.walk(node):
                if isinstance(n, (ast.Assign, ast.AnnAssign)) and any(
                        ast.unparse(t) == "self.board_state" for t in (n.targets if isinstance(n, ast.Assign)
                                                                        else [n.target])):
                    assigning.add(node.name)
    assert assigning == {"__init__", "_keep"}, assigning


def test_the_game_state_a_part_decides_is_a_value():
    """What the parts hand the session is frozen: the game's Play, its problems, each effect."""
    import dataclasses

    from firmware.session import effects
    from firmware.session.play import Play, ProblemLog

    for cls in (Play, ProblemLog, *(getattr(effects, name) for name in effects.__all__ if name[0].isupper()
                                    and dataclasses.is_dataclass(getattr(effects, name)))):
        assert cls.__dataclass_params__.frozen, cls


# The languages are firmware.words' (firmware/words/languages.py finds its catalogues): outside
# firmware/words/ no module of the board names one, so that a language is added by its catalogue
# and its voice alone (the state and the answers carry messages, said in any language). One
# exception: the opening book, whose SAN is written in English letters (a file format, not a
# player's language).
NAMES_A_LANGUAGE = {"firmware.openings.book": 1}


def test_no_part_of_the_board_names_a_language_but_the_words():
    from firmware.words import LANGS

    found = {}
    for name, path in MODULES.items():
        if not name.startswith("firmware.") or name.startswith("firmware.words"):
            continue
        lines = [node.lineno for node in ast.walk(ast.parse(path.read_text()))
                 if isinstance(node, ast.Constant) and node.value in LANGS]
        if len(lines) > NAMES_A_LANGUAGE.get(name, 0):
            found[name] = sorted(lines)
    assert not found, "languages named outside firmware/words (read firmware.words.LANGS, FALLBACK): " + ", ".join(
        f"{name} lines {lines}" for name, lines in sorted(found.items()))
    assert {"en", "fr", "de"} <= set(LANGS)   # (the check sees the codes it must)


# The LEDs have one owner: the session shows the frame it composes from the layers (the game's, the
# coach's, a review's, an app's, the alarms, the pairing code: firmware.leds.compose), in one place.
LEDS_SHOWN_BY = "firmware.session.session"
# Not owners: the hardware tools that drive the LEDs with no session at all (echiquier hwtest,
# echiquier calibrate); and Pairing.show(until), the limiter's window, no LED sink.
LEDS_WITHOUT_SESSION = ("firmware.commands.hwtest", "firmware.commands.calibrate")
NOT_A_SINK = ("pairing",)


def _show_calls(name: str) -> list[tuple[int, str, list[str]]]:
    """Each ``x.show(...)`` call of ``name``: its line, its receiver, the functions it is in (innermost first)."""
    tree = ast.parse(MODULES[name].read_text())
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "show":
            within, up = [], node
            while up in parents:
                up = parents[up]
                if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    within.append(up.name)
            found.append((node.lineno, ast.unparse(node.func.value), within))
    return found


def test_one_place_shows_frames_on_the_leds():
    """Outside the LED sinks themselves (board_driver) and the hardware tools, one call shows a
    frame: the session's, in its one method for it. The page, the emulated board's apps and the
    coach hand it layers (through the session's door), never a frame to a sink."""
    found = [f"{name}:{line} {receiver}.show in {'.'.join(reversed(within))}"
             for name in MODULES if name.startswith("firmware") and name not in LEDS_WITHOUT_SESSION
             for line, receiver, within in _show_calls(name) if receiver.split(".")[-1] not in NOT_A_SINK]
    assert len(found) == 1 and found[0].startswith(f"{LEDS_SHOWN_BY}:") and found[0].endswith("_show_leds"), found


def test_the_led_sinks_show_only_inside_their_own_show():
    """In board_driver a frame goes to a sink only from inside a sink's own methods (a guarded
    sink passing its frame on, ``clear()``, ``close()`` turning them off, the NeoPixel library's
    ``show()``): nothing there decides what the LEDs show."""
    found = [f"{name}:{line} {receiver}.show in {within}"
             for name in MODULES if name.startswith("board_driver")
             for line, receiver, within in _show_calls(name)
             if not within or within[0] not in ("show", "clear", "close")]
    assert not found, found
