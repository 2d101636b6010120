"""A small HTTP/1.1 and WebSocket server on asyncio streams, standard library only (layer 0).

``netserver.http_server`` (requests, routes, the WebSocket upgrade), ``netserver.websocket``
(RFC 6455 frames and one open socket) and ``netserver.limits`` (connections, slow clients, JSON
bodies, log floods against a hostile LAN). It imports nothing of ours: what an application needs
to say (its error bodies, its limits) it passes in.
"""
