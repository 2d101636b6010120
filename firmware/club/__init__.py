"""Club night, the board's side: publish the game to the club's MQTT broker (docs/club.md)."""
