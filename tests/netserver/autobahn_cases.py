"""Autobahn|Testsuite's fuzzingclient cases of families 1-7 and 9, re-expressed as our own test data.

Source: the case definitions of crossbario/autobahn-testsuite (autobahntestsuite/autobahntestsuite/
case/case1_1_1.py ... case9_7_X.py, Apache-2.0), read and written again here as data: what the
client sends, what it expects back, and how the connection must end. Family 6's UTF-8 sequences
come from Markus Kuhn's UTF-8 decoder test (https://www.cl.cam.ac.uk/~mgk25/ucs/examples/
UTF-8-test.txt), as Autobahn's case6_x_x.py groups them; whether each is valid UTF-8 is written
by hand from RFC 3629, not computed by the decoder under test.

A case's verdict follows Autobahn's rules (case.py): the events received (echoed messages, pongs,
"timeout" marks) must equal one of the case's expectations ("OK", or "NON-STRICT" where the case
allows it), and the close must come from the right side (``by_client``: the client began the
closing handshake), cleanly if ``clean`` (both close frames, then the server closes TCP), with a
close code among ``codes`` if the server's close frame has one. "INFORMATIONAL" cases are judged
on nothing but an orderly end.

Where our server is not Autobahn's echo server, the case says so in ``note``:

* binary messages: the page speaks text only, and netserver's WebSocket reads a binary message
  (bounded like any other) and drops it. RFC 6455 leaves what an application does with a message
  to the application; the echo is Autobahn's convention. Each binary case keeps Autobahn's
  expectation (the echo) as "OK" and adds "NON-STRICT": nothing comes back, and the client's close
  (sent once the frames are out) is answered cleanly with 1000, which proves the server read past
  the whole binary message.
* Autobahn's timed pauses become waits for an event where one is expected (5.19/5.20: the first
  pong before the rest of the message); 6.4.x measures whether the server fails a bad text message
  "fast", at its first bad fragment: a window of ``WINDOW_S`` there (Autobahn: 1 s).
* 9.3.x/9.4.x: a message in at most ``MAX_FRAGMENTS`` frames (netserver closes 1008 past that,
  RFC 6455 10.4): a 4 MiB message in fragments of 64 B-16 KiB is scaled down to MAX_FRAGMENTS
  fragments of that size. Every other size is Autobahn's (the echo route allows 16 MiB messages).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from netserver.websocket import MAX_FRAGMENTS

CONT, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
NORMAL, PROTOCOL_ERROR, INVALID_PAYLOAD = 1000, 1002, 1007
WINDOW_S = 0.2
BINARY_NOTE = "binary messages are read and dropped by design (text only): no echo, a clean close"


@dataclass(frozen=True)
class Send:
    """One frame from the client (masked by the runner). Frames are written together unless
    ``sync`` (its own write, as Autobahn's sync=True) or ``chop`` (written in pieces of that many
    bytes, as Autobahn's chopsize)."""

    opcode: int
    payload: bytes = b""
    fin: bool = True
    rsv: int = 0               # the three reserved bits as a number, 0-7
    sync: bool = False
    chop: int | None = None


@dataclass(frozen=True)
class Chunk:
    """Part of a frame's bytes: ``frame``'s payload from ``start`` to ``end`` (its head with the first)."""

    frame: Send
    start: int
    end: int


@dataclass(frozen=True)
class WaitFor:
    """Until ``count`` events have been received (or the connection ended)."""

    count: int


@dataclass(frozen=True)
class Pause:
    """Autobahn's timed wait: ``WINDOW_S`` for the server to act; a ("timeout", label) event if the
    connection is still open then, and the steps go on; otherwise they stop."""

    label: str


@dataclass(frozen=True)
class EchoEach:
    """``count`` messages one after the other, each sent once the previous one is echoed (9.7)."""

    frame: Send
    count: int


Step = Send | Chunk | WaitFor | Pause | EchoEach
Event = tuple


@dataclass(frozen=True)
class Case:
    id: str
    steps: tuple[Step, ...]
    expected: dict[str, list[Event]]          # "OK" / "NON-STRICT" -> the events received
    by_client: bool = True                    # Autobahn's closedByMe
    codes: tuple[int, ...] = (NORMAL,)
    clean: bool = True                        # requireClean
    close_when_done: bool = True              # the client closes (1000) once the events match
    wrong_end_fatal: bool = False             # closedByWrongEndpointIsFatal (the UTF-8 cases)
    informational: bool = False
    slow: bool = False
    timeout_s: float = 10.0
    note: str = ""
    ours: str = field(default="OK")           # the verdict our server gets (see NON_STRICT_HERE)


def message(payload: bytes | str, binary: bool = False) -> Event:
    return ("message", payload.encode("utf-8") if isinstance(payload, str) else payload, binary)


def pong(payload: bytes | str = b"") -> Event:
    return ("pong", payload.encode("utf-8") if isinstance(payload, str) else payload)


def repeat(unit: bytes, length: int) -> bytes:
    """Autobahn's payload_len: ``unit`` repeated to ``length`` bytes."""
    return (unit * (length // len(unit) + 1))[:length]


def fragments(opcode: int, payload: bytes, size: int, *, sync: bool = False) -> tuple[Send, ...]:
    """A message in frames of ``size`` bytes (Autobahn's sendMessage with fragmentSize)."""
    parts = [payload[i:i + size] for i in range(0, len(payload), size)] or [b""]
    return tuple(Send(opcode if i == 0 else CONT, part, fin=i == len(parts) - 1, sync=sync)
                 for i, part in enumerate(parts))


def echoed(case_id: str, steps: tuple[Step, ...], payload: bytes, *, binary: bool = False, slow: bool = False,
           timeout_s: float = 10.0) -> Case:
    """A message that comes back as sent, then the client's clean close; a binary one adapted (module docstring)."""
    if binary:
        return Case(case_id, steps, {"OK": [message(payload, True)], "NON-STRICT": []}, slow=slow,
                    timeout_s=timeout_s, note=BINARY_NOTE, ours="NON-STRICT")
    return Case(case_id, steps, {"OK": [message(payload)]}, slow=slow, timeout_s=timeout_s)


def failed(case_id: str, steps: tuple[Step, ...], *, code: int = PROTOCOL_ERROR, first: list[Event] | None = None,
           utf8: bool = False) -> Case:
    """The server fails the connection (its close frame, if any, with ``code``); ``first``: an echo
    expected before (then none at all is NON-STRICT, as Autobahn allows)."""
    expected: dict[str, list[Event]] = {"OK": first} if first else {"OK": []}
    if first:
        expected["NON-STRICT"] = []
    return Case(case_id, steps, expected, by_client=False, codes=(code,), clean=False, wrong_end_fatal=utf8)


# -- 1: framing ----------------------------------------------------------------------------------------

def _family1() -> list[Case]:
    cases = []
    sizes = (0, 125, 126, 127, 128, 65535, 65536)
    for n, size in enumerate(sizes, 1):
        cases.append(echoed(f"1.1.{n}", (Send(TEXT, b"*" * size),), b"*" * size))
    cases.append(echoed("1.1.8", (Send(TEXT, b"*" * 65536, chop=997),), b"*" * 65536))
    for n, size in enumerate(sizes, 1):
        cases.append(echoed(f"1.2.{n}", (Send(BINARY, b"\xfe" * size),), b"\xfe" * size, binary=True))
    cases.append(echoed("1.2.8", (Send(BINARY, b"\xfe" * 65536, chop=997),), b"\xfe" * 65536, binary=True))
    return cases


# -- 2: pings and pongs ----------------------------------------------------------------------------------

def _family2() -> list[Case]:
    def ponged(case_id: str, payload: bytes, chop: int | None = None) -> Case:
        return Case(case_id, (Send(PING, payload, chop=chop),), {"OK": [pong(payload)]})

    tens = [f"payload-{i}".encode() for i in range(10)]
    return [
        ponged("2.1", b""),
        ponged("2.2", b"Hello, world!"),
        ponged("2.3", b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff"),
        ponged("2.4", b"\xfe" * 125),
        failed("2.5", (Send(PING, b"\xfe" * 126),)),
        ponged("2.6", b"\xfe" * 125, chop=1),
        Case("2.7", (Send(PONG), Send(CLOSE, NORMAL.to_bytes(2, "big"))), {"OK": []}),
        Case("2.8", (Send(PONG, b"unsolicited pong payload"), Send(CLOSE, NORMAL.to_bytes(2, "big"))), {"OK": []}),
        Case("2.9", (Send(PONG, b"unsolicited pong payload"), Send(PING, b"ping payload")),
             {"OK": [pong(b"ping payload")]}),
        Case("2.10", tuple(Send(PING, p) for p in tens), {"OK": [pong(p) for p in tens]}),
        Case("2.11", tuple(Send(PING, p, chop=1) for p in tens), {"OK": [pong(p) for p in tens]}),
    ]


# -- 3: reserved bits --------------------------------------------------------------------------------------

def _family3() -> list[Case]:
    hello = b"Hello, world!"
    return [
        failed("3.1", (Send(TEXT, hello, rsv=1),)),
        failed("3.2", (Send(TEXT, hello), Send(TEXT, hello, rsv=2), Send(PING)), first=[message(hello)]),
        failed("3.3", (Send(TEXT, hello, sync=True), Send(TEXT, hello, rsv=3, sync=True), Send(PING, sync=True)),
               first=[message(hello)]),
        failed("3.4", (Send(TEXT, hello, chop=1), Send(TEXT, hello, rsv=4, chop=1), Send(PING, chop=1)),
               first=[message(hello)]),
        failed("3.5", (Send(BINARY, b"\x00\xff\xfe\xfd\xfc\xfb\x00\xff", rsv=5),)),
        failed("3.6", (Send(BINARY, hello, rsv=6),)),
        failed("3.7", (Send(CLOSE, rsv=7),)),
    ]


# -- 4: reserved opcodes -------------------------------------------------------------------------------------

def _family4() -> list[Case]:
    hello = b"Hello, world!"
    cases = []
    for group, (first, second, third, fourth, fifth) in ((1, (3, 4, 5, 6, 7)), (2, (11, 12, 13, 14, 15))):
        cases += [
            failed(f"4.{group}.1", (Send(first),)),
            failed(f"4.{group}.2", (Send(second, b"reserved opcode payload"),)),
            failed(f"4.{group}.3", (Send(TEXT, hello), Send(third), Send(PING)), first=[message(hello)]),
            failed(f"4.{group}.4", (Send(TEXT, hello), Send(fourth, hello), Send(PING)), first=[message(hello)]),
            failed(f"4.{group}.5", (Send(TEXT, hello, chop=1), Send(fifth, hello, chop=1), Send(PING, chop=1)),
                   first=[message(hello)]),
        ]
    return cases


# -- 5: fragmentation ------------------------------------------------------------------------------------------

def _family5() -> list[Case]:
    f1, f2 = b"fragment1", b"fragment2"
    ping = b"ping payload"

    def nothing_to_continue(case_id: str, fin: bool, sync: bool = False, chop: int | None = None) -> Case:
        return failed(case_id, (Send(CONT, b"non-continuation payload", fin=fin, sync=sync, chop=chop),
                                Send(TEXT, b"Hello, world!", sync=sync, chop=chop)))

    def in_two(case_id: str, *, sync: bool = False, chop: int | None = None, with_ping: bool = False) -> Case:
        steps: tuple[Step, ...] = (Send(TEXT, f1, fin=False, sync=sync, chop=chop),)
        if with_ping:
            steps += (Send(PING, ping, sync=sync, chop=chop),)
        steps += (Send(CONT, f2, sync=sync, chop=chop),)
        return Case(case_id, steps, {"OK": ([pong(ping)] if with_ping else []) + [message(f1 + f2)]})

    def interleaved(case_id: str, sync: bool) -> Case:
        parts = [f"fragment{i}".encode() for i in range(1, 6)]
        pings = [b"pongme 1!", b"pongme 2!"]
        return Case(case_id, (Send(TEXT, parts[0], fin=False, sync=sync), Send(CONT, parts[1], fin=False, sync=sync),
                              Send(PING, pings[0], sync=sync), WaitFor(1),   # the first pong before the rest
                              Send(CONT, parts[2], fin=False, sync=sync), Send(CONT, parts[3], fin=False, sync=sync),
                              Send(PING, pings[1], sync=sync), Send(CONT, parts[4], sync=sync)),
                    {"OK": [pong(pings[0]), pong(pings[1]), message(b"".join(parts))]},
                    note="Autobahn waits 1 s after the first ping; we wait for its pong")

    return [
        failed("5.1", (Send(PING, f1, fin=False), Send(CONT, f2))),
        failed("5.2", (Send(PONG, f1, fin=False), Send(CONT, f2))),
        in_two("5.3"),
        in_two("5.4", sync=True),
        in_two("5.5", chop=1),
        in_two("5.6", with_ping=True),
        in_two("5.7", sync=True, with_ping=True),
        in_two("5.8", chop=1, with_ping=True),
        nothing_to_continue("5.9", True),
        nothing_to_continue("5.10", True, sync=True),
        nothing_to_continue("5.11", True, chop=1),
        nothing_to_continue("5.12", False),
        nothing_to_continue("5.13", False, sync=True),
        nothing_to_continue("5.14", False, chop=1),
        failed("5.15", (Send(TEXT, f1, fin=False), Send(CONT, f2), Send(CONT, b"fragment3", fin=False),
                        Send(TEXT, b"fragment4")), first=[message(f1 + f2)]),
        failed("5.16", (Send(CONT, f1, fin=False), Send(TEXT, f2, fin=False), Send(CONT, b"fragment3")) * 2),
        failed("5.17", (Send(CONT, f1), Send(TEXT, f2, fin=False), Send(CONT, b"fragment3")) * 2),
        failed("5.18", (Send(TEXT, f1, fin=False), Send(TEXT, f2))),
        interleaved("5.19", sync=False),
        interleaved("5.20", sync=True),
    ]


# -- 6: UTF-8 ----------------------------------------------------------------------------------------------------

KOSME = bytes.fromhex("cebae1bdb9cf83cebcceb5")     # "κόσμε", the example of Kuhn's file
HELLO_UTF8 = "Hello-µ@ßöäüàá-UTF-8!!".encode("utf-8")
INVALID_AT_12 = KOSME + bytes.fromhex("f4908080") + b"edited"   # U+110000 in the UTF-8 scheme: out of range


def _sequences() -> list[list[tuple[bool, bytes]]]:
    """Kuhn's test sequences in Autobahn's groups 6.5-6.23: (valid UTF-8, bytes)."""
    h = bytes.fromhex
    ok, bad = True, False
    missing = [h(x) for x in ("c0", "e080", "f08080", "f8808080", "fc80808080",
                              "df", "efbf", "f7bfbf", "fbbfbfbf", "fdbfbfbfbf")]
    nonchars = [(ok, h("efbfbe")), (ok, h("efbfbf"))]
    for z1 in (0xF0, 0xF1, 0xF2, 0xF3, 0xF4):
        for z2 in (0x8F, 0x9F, 0xAF, 0xBF):
            if z1 == 0xF4 and z2 != 0x8F:
                continue                                          # beyond U+10FFFF
            for z3 in (0xBE, 0xBF):
                seq = bytes([z1, z2, 0xBF, z3])
                if seq not in (h("f08fbfbe"), h("f08fbfbf")):    # overlong
                    nonchars.append((ok, seq))
    return [
        [(ok, b"hello$world"), (ok, b"hello\xc2\xa2world"), (ok, b"hello\xe2\x82\xacworld"),
         (ok, b"hello\xf0\xa4\xad\xa2world"), (ok, KOSME)],                                       # 6.5
        [(n in (2, 5, 7, 9, 11), KOSME[:n]) for n in range(1, 12)],                                # 6.6: code point ends
        [(ok, h("00")), (ok, h("c280")), (ok, h("e0a080")), (ok, h("f0908080"))],                  # 6.7
        [(bad, h("f888808080")), (bad, h("fc8480808080"))],                                        # 6.8
        [(ok, h("7f")), (ok, h("dfbf")), (ok, h("efbfbf")), (ok, h("f48fbfbf"))],                  # 6.9
        [(bad, h("f7bfbfbf")), (bad, h("fbbfbfbfbf")), (bad, h("fdbfbfbfbfbf"))],                   # 6.10
        [(ok, h("ed9fbf")), (ok, h("ee8080")), (ok, h("efbfbd")), (ok, h("f48fbfbf")), (bad, h("f4908080"))],
        [(bad, h(x)) for x in ("80", "bf", "80bf", "80bf80", "80bf80bf", "80bf80bf80", "80bf80bf80bf")]
        + [(bad, bytes(range(0x80, 0xBF)))],                                                       # 6.12
        [(bad, b"".join(bytes([i, 0x20]) for i in range(lo, hi)))
         for lo, hi in ((0xC0, 0xDF), (0xE0, 0xEF), (0xF0, 0xF7), (0xF8, 0xFB), (0xFC, 0xFD))],  # 6.13
        [(bad, x) for x in missing],                                                               # 6.14
        [(bad, b"".join(missing))],                                                                # 6.15
        [(bad, h("fe")), (bad, h("ff")), (bad, h("fefeffff"))],                                    # 6.16
        [(bad, h(x)) for x in ("c0af", "e080af", "f08080af", "f8808080af", "fc80808080af")],        # 6.17
        [(bad, h(x)) for x in ("c1bf", "e09fbf", "f08fbfbf", "f887bfbfbf", "fc83bfbfbfbf")],        # 6.18
        [(bad, h(x)) for x in ("c080", "e08080", "f0808080", "f880808080", "fc8080808080")],        # 6.19
        [(bad, h(x)) for x in ("eda080", "edadbf", "edae80", "edafbf", "edb080", "edbe80", "edbfbf")],  # 6.20
        [(bad, h(x)) for x in ("eda080edb080", "eda080edbfbf", "edadbfedb080", "edadbfedbfbf",
                               "edae80edb080", "edae80edbfbf", "edafbfedb080", "edafbfedbfbf")],   # 6.21
        nonchars,                                                                                  # 6.22
        [(ok, h(x)) for x in ("efbfb9", "efbfba", "efbfbb", "efbfbc", "efbfbd", "efbfbe", "efbfbf")],  # 6.23
    ]


def _family6() -> list[Case]:
    fail_fast: list[Case] = []
    for n, (first, rest) in enumerate(((12, 16), (12, 13)), 1):
        # 6.4.1/6.4.2 in three frames, 6.4.3/6.4.4 in three chunks of one frame, a window after each of the first two
        frames = (Send(TEXT, INVALID_AT_12[:first], fin=False), Pause("A"),
                  Send(CONT, INVALID_AT_12[first:rest], fin=False), Pause("B"), Send(CONT, INVALID_AT_12[rest:]))
        whole = Send(TEXT, INVALID_AT_12)
        chunks = (Chunk(whole, 0, first), Pause("A"), Chunk(whole, first, rest), Pause("B"),
                  Chunk(whole, rest, len(INVALID_AT_12)))
        for case_id, steps in ((f"6.4.{n}", frames), (f"6.4.{n + 2}", chunks)):
            fail_fast.append(Case(case_id, steps, {"OK": [("timeout", "A")],
                                                   "NON-STRICT": [("timeout", "A"), ("timeout", "B")]},
                                  by_client=False, codes=(INVALID_PAYLOAD,), clean=False, wrong_end_fatal=True,
                                  ours="NON-STRICT",
                                  note="netserver checks UTF-8 once the message is whole (RFC 6455 8.1 asks that "
                                       "invalid text fail the connection, not at which fragment)"))
    fail_fast.sort(key=lambda c: c.id)
    surrogate = KOSME + bytes.fromhex("eda080") + b"edited"
    cases = [
        echoed("6.1.1", (Send(TEXT),), b""),
        echoed("6.1.2", (Send(TEXT, fin=False), Send(CONT, fin=False), Send(CONT)), b""),
        echoed("6.1.3", (Send(TEXT, fin=False), Send(CONT, b"middle frame payload", fin=False), Send(CONT)),
               b"middle frame payload"),
        echoed("6.2.1", (Send(TEXT, HELLO_UTF8),), HELLO_UTF8),
        echoed("6.2.2", (Send(TEXT, "Hello-µ@ßöä".encode(), fin=False), Send(CONT, "üàá-UTF-8!!".encode())), HELLO_UTF8),
        echoed("6.2.3", fragments(TEXT, HELLO_UTF8, 1), HELLO_UTF8),
        echoed("6.2.4", fragments(TEXT, KOSME, 1), KOSME),
        failed("6.3.1", (Send(TEXT, surrogate),), code=INVALID_PAYLOAD, utf8=True),
        failed("6.3.2", fragments(TEXT, surrogate, 1), code=INVALID_PAYLOAD, utf8=True),
        *fail_fast,
    ]
    for group, sequences in enumerate(_sequences(), 5):
        for n, (valid, payload) in enumerate(sequences, 1):
            case_id = f"6.{group}.{n}"
            cases.append(echoed(case_id, (Send(TEXT, payload),), payload) if valid else
                         failed(case_id, (Send(TEXT, payload),), code=INVALID_PAYLOAD, utf8=True))
    return cases


# -- 7: closing ---------------------------------------------------------------------------------------------------

def _close(code: int | None, reason: bytes = b"") -> Send:
    return Send(CLOSE, b"" if code is None else code.to_bytes(2, "big") + reason)


def _family7() -> list[Case]:
    hello = b"Hello World!"

    def closing(case_id: str, steps: tuple[Step, ...], codes: tuple[int, ...] = (NORMAL,), clean: bool = True,
                informational: bool = False) -> Case:
        return Case(case_id, steps, {"OK": []}, codes=codes, clean=clean, close_when_done=False,
                    informational=informational, ours="INFORMATIONAL" if informational else "OK")

    cases = [
        Case("7.1.1", (Send(TEXT, hello),), {"OK": [message(hello)]}),
        closing("7.1.2", (_close(NORMAL), Send(CLOSE))),
        closing("7.1.3", (_close(NORMAL), Send(PING))),
        closing("7.1.4", (_close(NORMAL), Send(TEXT, hello))),
        closing("7.1.5", (Send(TEXT, b"fragment1", fin=False), _close(NORMAL), Send(CONT, b"fragment2"))),
        closing("7.1.6", (Send(TEXT, repeat(b"BAsd7&jh23", 256 * 1024)), Send(TEXT, hello), _close(NORMAL), Send(PING)),
                informational=True),
        closing("7.3.1", (_close(None),)),
        closing("7.3.2", (Send(CLOSE, b"a"),), codes=(PROTOCOL_ERROR,), clean=False),
        closing("7.3.3", (_close(NORMAL),)),
        closing("7.3.4", (_close(NORMAL, hello),)),
        closing("7.3.5", (_close(NORMAL, b"*" * 123),)),
        closing("7.3.6", (_close(NORMAL, b"*" * 124),), codes=(PROTOCOL_ERROR,), clean=False),
        closing("7.5.1", (_close(NORMAL, KOSME + bytes.fromhex("eda080") + b"edited"),),
                codes=(PROTOCOL_ERROR, INVALID_PAYLOAD), clean=False),
    ]
    for n, code in enumerate((1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999), 1):
        cases.append(closing(f"7.7.{n}", (_close(code),), codes=(NORMAL, code)))
    for n, code in enumerate((0, 999, 1004, 1005, 1006, 1016, 1100, 2000, 2999), 1):
        cases.append(closing(f"7.9.{n}", (_close(code),), codes=(PROTOCOL_ERROR,), clean=False))
    for n, code in enumerate((5000, 65535), 1):
        cases.append(closing(f"7.13.{n}", (_close(code),), codes=(NORMAL, code, PROTOCOL_ERROR), clean=False,
                             informational=True))
    return cases


# -- 9: limits and performance -------------------------------------------------------------------------------------

def _family9() -> list[Case]:
    cases = []
    sizes = (64 * 2**10, 256 * 2**10, 2**20, 4 * 2**20, 8 * 2**20, 16 * 2**20)
    for n, size in enumerate(sizes, 1):
        text = repeat(b"BAsd7&jh23", size)
        cases.append(echoed(f"9.1.{n}", (Send(TEXT, text),), text, slow=size >= 2**20, timeout_s=60))
    for n, size in enumerate(sizes, 1):
        data = repeat(b"\x00\xfe\x23\xfa\xf0", size)
        cases.append(echoed(f"9.2.{n}", (Send(BINARY, data),), data, binary=True, slow=size >= 2**20, timeout_s=60))
    frag_sizes = (64, 256, 2**10, 4 * 2**10, 16 * 2**10, 64 * 2**10, 256 * 2**10, 2**20, 4 * 2**20)
    for family, opcode, unit in ((3, TEXT, b"*"), (4, BINARY, b"\xfe")):
        for n, frag in enumerate(frag_sizes, 1):
            size = min(4 * 2**20, MAX_FRAGMENTS * frag)      # scaled: at most MAX_FRAGMENTS frames
            payload = unit * size
            case = echoed(f"9.{family}.{n}", fragments(opcode, payload, frag), payload, binary=opcode == BINARY,
                          slow=True, timeout_s=60)
            if size < 4 * 2**20:
                case = Case(**{**case.__dict__, "note": (case.note + "; " if case.note else "")
                               + f"scaled to {MAX_FRAGMENTS} fragments: {size} bytes, not 4 MiB"})
            cases.append(case)
    for family, opcode, unit in ((5, TEXT, b"BAsd7&jh23"), (6, BINARY, b"\x00\xfe\x23\xfa\xf0")):
        for n, chop in enumerate((64, 128, 256, 512, 1024, 2048), 1):
            payload = repeat(unit, 2**20)
            cases.append(echoed(f"9.{family}.{n}", (Send(opcode, payload, chop=chop),), payload,
                                binary=opcode == BINARY, slow=True, timeout_s=120))
    for n, size in enumerate((0, 16, 64, 256, 1024, 4096), 1):
        frame = Send(TEXT, b"*" * size)
        cases.append(Case(f"9.7.{n}", (EchoEach(frame, 1000),), {"OK": [message(b"*" * size)] * 1000},
                          slow=True, timeout_s=120))
    for n, size in enumerate((0, 16, 64, 256, 1024, 4096), 1):
        frame = Send(BINARY, b"\xfe" * size)
        cases.append(Case(f"9.8.{n}", (frame,) * 1000, {"OK": [message(b"\xfe" * size, True)] * 1000,
                                                        "NON-STRICT": []},
                          slow=True, timeout_s=120, ours="NON-STRICT",
                          note=BINARY_NOTE + "; all 1000 sent at once, none to wait for"))
    return cases


CASES: list[Case] = _family1() + _family2() + _family3() + _family4() + _family5() + _family6() + _family7() + \
    _family9()
