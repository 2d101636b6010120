"""Opponents of the board's player: the interface (base), a UCI engine, and Lichess's Board API."""
from firmware.opponents.base import (Action, ActionNotSupported, ActionRefused, ChallengeEvent, ChatLine, ClockTimes, GameEnd,
                   GameSync, LinkState, Offer, OfferKind, Opponent, OpponentGone, OpponentListener, Player,
                   ServerClock, assistance_allowed)

__all__ = ["Action", "ActionNotSupported", "ActionRefused", "ChallengeEvent", "ChatLine", "ClockTimes", "GameEnd",
           "GameSync", "LinkState", "Offer", "OfferKind", "Opponent", "OpponentGone", "OpponentListener", "Player",
           "ServerClock", "assistance_allowed"]
