"""The club night's wire format, shared by the board's publisher and the hub: MQTT topics, the broker's address and credentials, the messages' JSON."""
