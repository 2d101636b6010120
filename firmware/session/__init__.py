"""The game session: the referee, the recorder, the LEDs and the opponent of one board, behind one object."""
from firmware.session.session import Session, SessionError

__all__ = ["Session", "SessionError"]
