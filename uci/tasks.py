"""Ending a task for sure: a cancellation it swallowed is repeated, and the wait for it is bounded (the driver's, and the firmware's through firmware.tasks)."""
from __future__ import annotations

import asyncio
import logging
from typing import Any

log = logging.getLogger(__name__)

STOP_GRACE = 1.0   # s a cancelled task gets to end before it is cancelled again
STOP_TRIES = 5     # cancellations before a task that will not end is left behind (and logged)


async def cancel_and_wait(task: "asyncio.Task[Any]", *, grace: float = STOP_GRACE, tries: int = STOP_TRIES) -> bool:
    """Cancel ``task`` and wait until it has ended; True once it has.

    A task may live on after ``cancel()``: code that catches CancelledError, or asyncio.wait_for
    (Python 3.11), which returns a result that lands in the same turn of the loop as the
    cancellation and drops the cancellation. So the task is cancelled again after ``grace``
    seconds, ``tries`` times; then it is left behind, logged, and False returned: a stop never
    waits forever. The caller's own cancellation is never swallowed here. What the task raised
    (other than its cancellation) is logged, not raised: the task is being stopped.
    """
    for _ in range(tries):
        if task.done():
            break
        task.cancel()
        await asyncio.wait({task}, timeout=grace)
    if not task.done():
        log.error("task %s did not end after %d cancellations; left behind", task.get_name(), tries)
        return False
    if not task.cancelled() and task.exception() is not None:
        exc = task.exception()
        log.error("task %s ended with %s: %s", task.get_name(), type(exc).__name__, exc)
    return True


__all__ = ["STOP_GRACE", "STOP_TRIES", "cancel_and_wait"]
