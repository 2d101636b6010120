"""Tests of netserver, the HTTP/1.1 and WebSocket server: independent implementations as oracles, Autobahn|Testsuite's cases."""
