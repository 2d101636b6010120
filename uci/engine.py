"""A UCI engine client over an asyncio subprocess: handshake, options, go/stop, crash and hang detection."""
from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from chess_core import BLACK, STARTING_FEN, WHITE, InvalidMoveError, Move

from uci.tasks import cancel_and_wait

log = logging.getLogger(__name__)

DEFAULT_ENGINE_PATH = "/usr/games/stockfish"
HANDSHAKE_TIMEOUT = 10.0   # s for "uci" -> "uciok" and "isready" -> "readyok"
GO_GRACE = 5.0             # s beyond the time the engine was given before it counts as hung
STOP_GRACE = 2.0           # s for the bestmove after "stop" before the engine counts as hung
QUIT_GRACE = 1.0           # s after "quit" before the process is terminated, then killed
UNBOUNDED_SEARCH = 30.0    # s allowed to a search with no time in it (depth / nodes only)


class EngineError(Exception):
    """The engine cannot be used: not found, refused an option, or failed (see subclasses)."""


class EngineCrashed(EngineError):
    """The engine process ended while we needed it."""


class EngineHung(EngineError):
    """The engine did not answer in time; its process has been killed."""


class EngineState(enum.Enum):
    IDLE = "idle"            # not started yet
    STARTING = "starting"    # process spawned, handshake under way
    READY = "ready"          # waiting for a command
    THINKING = "thinking"    # a "go" is running
    FAILED = "failed"        # crashed or hung: the process is gone (reaped); start a new client
    CLOSED = "closed"        # closed on purpose


@dataclass(frozen=True)
class ClockTimes:
    """The times an engine is told with ``go`` (ms); the session builds it from its clock."""

    wtime: int
    btime: int
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None


@dataclass(frozen=True)
class EngineLaunch:
    """How to launch and drive the engine (not the [engine] section of the configuration,
    firmware.config.EngineConfig): ``options`` are UCI options set after the handshake."""

    path: str = DEFAULT_ENGINE_PATH
    args: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    handshake_timeout: float = HANDSHAKE_TIMEOUT
    go_grace: float = GO_GRACE
    stop_grace: float = STOP_GRACE
    quit_grace: float = QUIT_GRACE


@dataclass(frozen=True)
class EngineOption:
    """An option the engine announced (``option name ... type ...``)."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()

    @classmethod
    def parse(cls, line: str) -> "EngineOption":
        """Read ``option name <name...> type <t> [default <d>] [min <n>] [max <n>] [var <v>]*``.

        >>> EngineOption.parse("option name Skill Level type spin default 20 min 0 max 20")
        EngineOption(name='Skill Level', type='spin', default='20', min=0, max=20, vars=())
        """
        words = line.split()[1:]
        name_words: list[str] = []
        fields: list[tuple[str, list[str]]] = []
        in_name = False
        for word in words:
            if word == "name" and not fields and not in_name:
                in_name = True
            elif in_name and word != "type":
                name_words.append(word)
            elif word in ("type", "default", "min", "max", "var"):
                in_name = False
                fields.append((word, []))
            elif fields:
                fields[-1][1].append(word)
        values = {key: " ".join(v) for key, v in fields if key != "var"}

        def num(key: str) -> int | None:
            text = values.get(key, "")
            return int(text) if text.lstrip("-").isdigit() else None

        return cls(" ".join(name_words), values.get("type", ""), values.get("default"), num("min"), num("max"),
                   tuple(" ".join(v) for key, v in fields if key == "var"))


@dataclass(frozen=True)
class SearchLimit:
    """What ``go`` is told: a fixed time, a depth, nodes, and/or the clock's times."""

    movetime_ms: int | None = None
    depth: int | None = None
    nodes: int | None = None
    times: ClockTimes | None = None

    def command(self) -> str:
        words = ["go"]
        if self.times is not None:
            t = self.times
            words += ["wtime", str(max(0, t.wtime)), "btime", str(max(0, t.btime)),
                      "winc", str(t.winc), "binc", str(t.binc)]
            if t.movestogo:
                words += ["movestogo", str(t.movestogo)]
        if self.movetime_ms is not None:
            words += ["movetime", str(self.movetime_ms)]
        if self.depth is not None:
            words += ["depth", str(self.depth)]
        if self.nodes is not None:
            words += ["nodes", str(self.nodes)]
        return " ".join(words)

    def budget(self, side: int) -> float:
        """The longest the engine may think, in seconds, before it counts as hung (grace aside)."""
        bounds = []
        if self.movetime_ms is not None:
            bounds.append(self.movetime_ms / 1000)
        if self.times is not None:
            t = self.times
            own = (t.wtime + t.winc) if side == WHITE else (t.btime + t.binc)
            bounds.append(max(0, own) / 1000)
        return min(bounds) if bounds else UNBOUNDED_SEARCH


@dataclass(frozen=True)
class BestMove:
    """The engine's answer. ``move`` is None when it has no legal move (``bestmove (none)``).

    ``info``: the last ``info`` of the main line (``multipv 1``). ``lines``: with the ``MultiPV``
    option above 1, the last ``info`` of each line the engine reported, best first (``lines[0]``
    is ``info``); empty when it reported none.
    """

    move: Move | None
    ponder: Move | None = None
    info: Mapping[str, str] = field(default_factory=dict)
    lines: tuple[Mapping[str, str], ...] = ()


def position_command(start_fen: str, moves: Sequence[Move]) -> str:
    """The UCI ``position`` line for a game.

    >>> position_command(STARTING_FEN, [Move.from_uci("e2e4")])
    'position startpos moves e2e4'
    """
    head = "position startpos" if start_fen == STARTING_FEN else f"position fen {start_fen}"
    return head + (" moves " + " ".join(m.uci() for m in moves) if moves else "")


def _parse_move(text: str) -> Move | None:
    if text in ("(none)", "0000"):
        return None
    try:
        return Move.from_uci(text)
    except InvalidMoveError:
        raise EngineError(f"the engine answered a move that is not UCI: {text!r}") from None


_INFO_FLAGS = {"lowerbound", "upperbound"}


def _parse_info(line: str) -> dict[str, str]:
    """The fields of an ``info`` line; ``score`` keeps its unit (``cp 31``, ``mate -2``).

    >>> _parse_info("info depth 9 score cp 31 upperbound nodes 900 pv e2e4 e7e5")
    {'depth': '9', 'score': 'cp 31', 'upperbound': '', 'nodes': '900', 'pv': 'e2e4 e7e5'}
    """
    words = line.split()[1:]
    info: dict[str, str] = {}
    i = 0
    while i < len(words):
        key = words[i]
        if key in _INFO_FLAGS:
            info[key] = ""
            i += 1
        elif key == "score" and i + 2 < len(words):
            info["score"] = f"{words[i + 1]} {words[i + 2]}"
            i += 3
        elif key in ("pv", "string", "refutation", "currline"):
            info[key] = " ".join(words[i + 1:])
            break
        else:
            info[key] = words[i + 1] if i + 1 < len(words) else ""
            i += 2
    return info


class UciEngine:
    """One engine process, used once: ``start``, any number of ``play``, then ``close``.

    A crash (the process ends) or a hang (no answer within the timeouts of ``EngineLaunch``) fails
    the call with ``EngineCrashed`` / ``EngineHung``, and the process is always reaped. The process
    runs in a session of its own: a terminal's Ctrl-C (SIGINT to the whole foreground group)
    reaches the service alone, which quits it; a service killed outright closes its stdin, and a
    UCI engine ends at the end of its input (Stockfish does, even mid-search). To carry
    on after a failure, start a new ``UciEngine`` (``EngineOpponent`` does). ``on_exit`` is called
    when the process ends by itself (killed, crashed) while nothing was asked of it too.
    """

    def __init__(self, config: EngineLaunch = EngineLaunch(), *, on_exit: Callable[[], None] | None = None) -> None:
        self.config = config
        self.on_exit = on_exit
        self.state = EngineState.IDLE
        self.name: str = os.path.basename(config.path)
        self.options: dict[str, EngineOption] = {}
        self.returncode: int | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._waiting: dict[str, asyncio.Future[str]] = {}
        self._last_info: dict[str, str] = {}
        self._lines: dict[int, dict[str, str]] = {}     # multipv rank -> its last info (MultiPV)
        self._info_listener: Callable[[Mapping[str, str]], None] | None = None
        self._write_lock = asyncio.Lock()
        self._search_lock = asyncio.Lock()
        self._stop_asked = False

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        """Spawn the engine, do the UCI handshake, set the configured options; idempotent."""
        if self.state is not EngineState.IDLE:
            if self.state in (EngineState.FAILED, EngineState.CLOSED):
                raise EngineError(f"this engine client is {self.state.value}; start a new one")
            return
        self.state = EngineState.STARTING
        try:
            self._proc = await asyncio.create_subprocess_exec(
                self.config.path, *self.config.args, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            self.state = EngineState.FAILED
            raise EngineError(f"cannot run the engine {self.config.path!r}: {exc.strerror or exc}") from exc
        self._reader = asyncio.get_running_loop().create_task(self._read(), name=f"uci-read-{self.pid}")
        try:
            await self._ask("uci", "uciok", self.config.handshake_timeout)
            for name, value in self.config.options.items():
                await self.set_option(name, value)
            await self.ping()
        except BaseException:
            await self._fail_and_reap()
            raise
        self.state = EngineState.READY
        log.info("engine %s ready (pid %s)", self.name, self.pid)

    async def close(self) -> None:
        """Quit the engine (``quit``, then terminate, then kill) and reap it; idempotent."""
        proc = self._proc     # (no early return: a close interrupted by a cancellation is finished by the next)
        if self.state is not EngineState.FAILED:
            self.state = EngineState.CLOSED   # before "quit", so that its end is not taken for a crash
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(EngineError, OSError):
                await self._send("quit")
            await self._reap(proc, self.config.quit_grace)
        await self._stop_reader()
        self._fail_waiters(EngineError("the engine was closed"))

    async def __aenter__(self) -> "UciEngine":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- commands ------------------------------------------------------------------------------

    async def ping(self, timeout: float | None = None) -> None:
        """``isready`` -> ``readyok``; EngineHung if it does not come in time."""
        await self._ask("isready", "readyok", timeout or self.config.handshake_timeout)

    async def set_option(self, name: str, value: Any) -> None:
        """Set a UCI option the engine announced; spin values are clamped to its min/max."""
        option = self.options.get(name) or next(
            (o for o in self.options.values() if o.name.lower() == name.lower()), None)
        if option is None:
            raise EngineError(f"the engine {self.name} has no option {name!r}")
        if option.type == "button":
            await self._send(f"setoption name {option.name}")
            return
        if option.type == "check":
            text = "true" if value in (True, "true", "1", 1) else "false"
        elif option.type == "spin":
            number = int(value)
            if option.min is not None and number < option.min:
                log.warning("engine option %s=%s below its minimum %s: using %s", option.name, number,
                            option.min, option.min)
                number = option.min
            if option.max is not None and number > option.max:
                log.warning("engine option %s=%s above its maximum %s: using %s", option.name, number,
                            option.max, option.max)
                number = option.max
            text = str(number)
        else:
            text = str(value)
        await self._send(f"setoption name {option.name} value {text}")

    async def new_game(self) -> None:
        await self._send("ucinewgame")
        await self.ping()

    async def play(self, start_fen: str, moves: Sequence[Move], limit: SearchLimit, *,
                   on_info: Callable[[Mapping[str, str]], None] | None = None) -> BestMove:
        """Search the position after ``moves`` and return the engine's move.

        ``on_info``, if given, is called with every ``info`` line that has a score, as it comes
        (the search's progress: depth by depth, each MultiPV line).

        EngineHung when no bestmove comes within ``limit.budget()`` + ``go_grace`` (and then not
        within ``stop_grace`` of a ``stop``); EngineCrashed when the process dies meanwhile.
        """
        self._check_usable()
        async with self._search_lock:
            self._check_usable()
            side = _side_to_move(start_fen, len(moves))
            fut = self._expect("bestmove")
            self._last_info = {}
            self._lines = {}
            self._info_listener = on_info
            self.state = EngineState.THINKING
            self._stop_asked = False
            try:
                await self._send(position_command(start_fen, moves))
                await self._send(limit.command())
                if self._stop_asked:    # (asked while "go" was on its way: it came before it)
                    await self._send("stop")
                budget = limit.budget(side) + self.config.go_grace
                try:   # asyncio.timeout, not wait_for: a cancellation meeting the answer is kept (3.11)
                    async with asyncio.timeout(budget):
                        line = await asyncio.shield(fut)
                except asyncio.TimeoutError:
                    log.warning("engine %s silent after %.1f s of search: sending stop", self.name, budget)
                    with contextlib.suppress(EngineError, OSError):
                        await self._send("stop")
                    try:
                        async with asyncio.timeout(self.config.stop_grace):
                            line = await asyncio.shield(fut)
                    except asyncio.TimeoutError:
                        await self._fail_and_reap()
                        raise EngineHung(f"the engine {self.name} gave no move within {budget:.1f} s "
                                         f"nor {self.config.stop_grace:.1f} s after stop") from None
            finally:
                self._waiting.pop("bestmove", None)
                self._info_listener = None
                if self.state is EngineState.THINKING:
                    self.state = EngineState.READY
            words = line.split()
            move = _parse_move(words[1]) if len(words) > 1 else None
            ponder = _parse_move(words[3]) if len(words) > 3 and words[2] == "ponder" else None
            lines = tuple(dict(self._lines[rank]) for rank in sorted(self._lines))
            return BestMove(move, ponder, dict(self._last_info), lines)

    def stop_search(self) -> None:
        """Ask a running search to end now; ``play`` then returns the move found so far."""
        proc = self._proc
        if self.state is EngineState.THINKING and proc is not None and proc.stdin is not None:
            self._stop_asked = True
            with contextlib.suppress(OSError, RuntimeError):   # a dead engine is play()'s to report
                proc.stdin.write(b"stop\n")

    # -- plumbing ------------------------------------------------------------------------------

    def _check_usable(self) -> None:
        if self.state is EngineState.FAILED:   # (it ended since: killed while nothing was asked of it)
            raise EngineCrashed(f"the engine {self.name} failed: it ended (exit code {self.returncode})")
        if self.state not in (EngineState.READY, EngineState.THINKING):
            raise EngineError(f"the engine {self.name} is {self.state.value}")

    def _expect(self, token: str) -> asyncio.Future[str]:
        fut = asyncio.get_running_loop().create_future()
        self._waiting[token] = fut
        return fut

    async def _ask(self, command: str, answer: str, timeout: float) -> str:
        fut = self._expect(answer)
        try:
            await self._send(command)
            try:
                async with asyncio.timeout(timeout):
                    return await asyncio.shield(fut)
            except asyncio.TimeoutError:
                await self._fail_and_reap()
                raise EngineHung(f"the engine {self.name} did not answer {command!r} within "
                                 f"{timeout:.1f} s") from None
        finally:
            self._waiting.pop(answer, None)

    async def _send(self, line: str) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None or proc.returncode is not None:
            raise EngineCrashed(f"the engine {self.name} is not running (exit code {self.returncode})")
        async with self._write_lock:
            log.debug("engine << %s", line)
            try:
                proc.stdin.write(line.encode() + b"\n")
                await proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError) as exc:
                raise EngineCrashed(f"the engine {self.name} stopped reading: {exc}") from exc

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stdout = self._proc.stdout
        while True:
            try:
                raw = await stdout.readline()
            except (ValueError, OSError):    # a line over the stream limit, or the pipe broke
                raw = b""
            if not raw:
                break
            line = raw.decode(errors="replace").strip()
            if line:
                self._dispatch(line)
        # End of output: the process ended (or is about to). Reap it and fail whoever waits.
        self.returncode = await self._proc.wait()
        unexpected = self.state not in (EngineState.CLOSED, EngineState.FAILED)
        if self.state is not EngineState.CLOSED:
            if unexpected:
                log.error("engine %s ended unexpectedly (exit code %s)", self.name, self.returncode)
            self.state = EngineState.FAILED
        self._fail_waiters(EngineCrashed(f"the engine {self.name} ended (exit code {self.returncode})"))
        if unexpected and self.on_exit is not None:
            self.on_exit()

    def _dispatch(self, line: str) -> None:
        head = line.split(maxsplit=1)[0]
        handler = _HANDLERS.get(head)
        if handler is not None:
            handler(self, line)

    def _on_id(self, line: str) -> None:
        words = line.split(maxsplit=2)
        if len(words) == 3 and words[1] == "name":
            self.name = words[2]

    def _on_option(self, line: str) -> None:
        option = EngineOption.parse(line)
        if option.name:
            self.options[option.name] = option

    def _on_info(self, line: str) -> None:
        info = _parse_info(line)
        if "score" in info:   # the main line so far; "info string" and "currmove" lines are chatter
            rank = int(info["multipv"]) if info.get("multipv", "").isdigit() else 1
            self._lines[rank] = info
            if rank == 1:     # (with MultiPV, or a Skill Level's own, the other lines are not the move's)
                self._last_info = info
            if self._info_listener is not None:
                self._info_listener(info)

    def _on_answer(self, line: str) -> None:
        fut = self._waiting.get(line.split(maxsplit=1)[0])
        if fut is not None and not fut.done():
            fut.set_result(line)

    def _fail_waiters(self, exc: Exception) -> None:
        for fut in list(self._waiting.values()):
            if not fut.done():
                fut.set_exception(exc)
                fut.exception()  # retrieved: no "never retrieved" warning if nobody awaits it
        self._waiting.clear()

    async def _fail_and_reap(self) -> None:
        self.state = EngineState.FAILED
        if self._proc is not None:
            await self._reap(self._proc, 0.0)
        await self._stop_reader()

    async def _reap(self, proc: asyncio.subprocess.Process, grace: float) -> None:
        """Wait ``grace`` for the process to end, then terminate, then kill; always wait()."""
        for step in (None, proc.terminate, proc.kill):
            if step is not None:
                with contextlib.suppress(ProcessLookupError):
                    step()
            try:
                async with asyncio.timeout(grace if step is None else QUIT_GRACE):
                    self.returncode = await proc.wait()
                break
            except asyncio.TimeoutError:
                continue
        else:
            self.returncode = await proc.wait()
        if proc.stdin is not None:
            proc.stdin.close()
            with contextlib.suppress(Exception):
                await proc.stdin.wait_closed()

    async def _stop_reader(self) -> None:
        task, self._reader = self._reader, None
        if task is not None and task is not asyncio.current_task():
            await cancel_and_wait(task)   # bounded, and never swallows our own cancellation


_HANDLERS = {
    "id": UciEngine._on_id,
    "option": UciEngine._on_option,
    "info": UciEngine._on_info,
    "uciok": UciEngine._on_answer,
    "readyok": UciEngine._on_answer,
    "bestmove": UciEngine._on_answer,
}


def _side_to_move(start_fen: str, plies: int) -> int:
    first = BLACK if start_fen.split()[1:2] == ["b"] else WHITE
    return first ^ (plies & 1)


__all__ = ["BestMove", "ClockTimes", "DEFAULT_ENGINE_PATH", "EngineLaunch", "EngineCrashed", "EngineError", "EngineHung",
           "EngineOption", "EngineState", "SearchLimit", "UciEngine", "position_command"]
