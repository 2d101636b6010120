"""The referee: pure decisions on explicit times (inference, match, gestures, LED feedback); no asyncio, no I/O."""
