"""The board's voice: what it says (phrases, announcer: pure), the espeak-ng process that says it (speaker), and its companion to the service."""
