"""The one door into a session: every input a message, handed to the one loop that carries them out in order.

Contract
========

* A :class:`Command` is a player's or a companion's command by name (one of :data:`COMMANDS`: the
  page's, the club's pairing, the buttons', an app attached, a layer of LEDs pushed or removed),
  with its arguments; its answer is the command's (a
  :class:`~firmware.session.commands.SessionError` when it is refused).
* :class:`News` is what a helper running beside the session brings back once its own waiting is
  done (the opponent's move or offer, an engine started or swapped, the coach's search found): the
  session part's handler and its arguments, carried out on the loop like any other input.
* A :class:`Door` takes them: ``send(message)`` when the sender wants the answer (an awaitable of
  it, or the answer itself from a door that carries out at once), ``post(message)`` when it does
  not; ``post_threadsafe(message)`` from another thread (paho's). The service's door is its queue
  (:class:`firmware.service.Service`); :class:`AtOnce` carries a message out as it comes, for a
  session with no service around it (the tests, ``echiquier replay``).
* ``inside()``: the caller is the loop that carries the messages out. The session refuses any
  change made from elsewhere (``Session.refresh``), so nothing reaches into it but through here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Protocol

from firmware.session import game_commands as g
from firmware.session.commands import attach_app, helper_failed, push_layer, remove_layer, show_on_board
from firmware.session.online_answers import accept_takeback, claim_when_gone, decline_takeback
from firmware.session.setup_guidance import set_up_position

if TYPE_CHECKING:
    from firmware.session.session import Session

__all__ = ["Command", "News", "Message", "Door", "AtOnce", "COMMANDS", "carry_out", "through_the_door"]


def _commands() -> dict[str, Callable[["Session"], Callable[..., Any]]]:
    def on(fn: Callable[..., Any]) -> Callable[["Session"], Callable[..., Any]]:
        return lambda s: partial(fn, s)
    return {
        "new_game": lambda s: s.new_game, "set_round": on(g.set_round), "resign": on(g.resign),
        "offer_draw": on(g.offer_draw), "accept_draw": on(g.accept_draw), "decline_draw": on(g.decline_draw),
        "claim_draw": on(g.claim_draw), "choose_promotion": on(g.choose_promotion), "correct": on(g.correct),
        "pause": on(g.pause), "resume": on(g.resume), "takeback": on(g.takeback),
        "update_settings": on(g.update_settings), "button": on(g.button),
        "take_over": lambda s: s.seat.takeovers.take_over, "give_back": lambda s: s.seat.takeovers.give_back,
        "accept_takeback": on(accept_takeback), "decline_takeback": on(decline_takeback),
        "claim_when_gone": on(claim_when_gone),
        "lichess_login": lambda s: s.seat.lichess.login, "lichess_logout": lambda s: s.seat.lichess.logout,
        "show_on_board": on(show_on_board), "attach_app": on(attach_app),
        "publish": lambda s: s.publish, "helper_failed": on(helper_failed),
        "push_layer": on(push_layer), "remove_layer": on(remove_layer),
        "set_up_position": on(set_up_position), "start_training": lambda s: s.trainer.start,
        "next_training": lambda s: s.trainer.next, "stop_training": lambda s: s.trainer.stop,
    }


COMMANDS = _commands()
"""The commands a message may name: name -> the session's method that carries it out."""


@dataclass(frozen=True)
class Command:
    """A command for the session, by name (a key of :data:`COMMANDS`), with its arguments."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.name not in COMMANDS:
            raise ValueError(f"no session command {self.name!r}")


@dataclass(frozen=True)
class News:
    """What a helper beside the session brings back: ``handler(*args)`` on the loop (a method of a
    session part: the other side's news, the seat's engine swapped, the coach's search found)."""

    handler: Callable[..., Any]
    args: tuple[Any, ...] = ()


Message = Command | News


def carry_out(session: "Session", message: Message) -> Any:
    """Carry ``message`` out on ``session`` (the loop's part of a door): the command's answer."""
    if isinstance(message, Command):
        return COMMANDS[message.name](session)(*message.args, **message.kwargs)
    return message.handler(*message.args)


class Door(Protocol):
    """Where messages go into a session; see the module docstring."""

    def send(self, message: Message) -> Any:
        """Hand ``message`` in for its answer: an awaitable of it, or the answer (``AtOnce``)."""

    def post(self, message: Message) -> None:
        """Hand ``message`` in, from the loop's thread; no answer is awaited."""

    def post_threadsafe(self, message: Message) -> None:
        """Hand ``message`` in from another thread."""

    def inside(self) -> bool:
        """The caller is the loop that carries the messages out."""


class AtOnce:
    """The door of a session with no loop around it: each message carried out as it comes."""

    def __init__(self, session: "Session") -> None:
        self.session = session

    def send(self, message: Message) -> Any:
        return carry_out(self.session, message)

    def post(self, message: Message) -> None:
        carry_out(self.session, message)

    post_threadsafe = post

    def inside(self) -> bool:
        return True


def through_the_door(door: Door) -> None:
    """Refuse a change of the session made from outside the loop that carries its messages out."""
    if not door.inside():
        raise RuntimeError("the session was changed from outside its loop: send the change through its door "
                           "(firmware.session.door)")
