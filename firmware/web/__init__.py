"""The web companion: the board's page (state over a websocket, commands, game library) and the simulator's hand."""
