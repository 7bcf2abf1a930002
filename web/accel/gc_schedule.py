"""Garbage collection between requests in gunicorn's sync workers (gunicorn.conf.py).

Private API (CPython): the meaning of the collector's thresholds and counts
(``gc.get_threshold``, ``gc.get_count``, ``gc.set_threshold``), which is the three-generation
schedule of Python 3.11-3.13; 3.14's collector is incremental and gives them other meanings, so
:attr:`CollectBetweenRequests.APPLIES` is false there.

CPython collects its youngest generation every 700 new container objects, on whichever line of a
request that falls, walking the request's still-live objects again each time. A sync worker runs
one request at a time, so the collections can wait for its end: the automatic trigger moves up
to ``ceiling`` new objects (a safety net for one very large request), and ``after_request``
applies CPython's own generational schedule to what is left (without the check that skips a full
collection while few objects were promoted: after ``gc.freeze()`` a full collection walks only
what was created since).
"""

import gc
import sys

PRIVATE_API = ("gc.get_threshold", "gc.get_count", "gc.set_threshold")


class CollectBetweenRequests:
    """Run the garbage collector after a response instead of in the middle of one.

    See the module docstring; only for the collector of Python 3.11-3.13 (``APPLIES``).
    """

    APPLIES = sys.version_info < (3, 14)

    def __init__(self, ceiling: int = 100_000) -> None:
        self.thresholds = gc.get_threshold()
        gc.set_threshold(ceiling, *self.thresholds[1:])

    def after_request(self) -> int | None:
        """Collect as CPython would have by now; the generation collected, or None.

        CPython's rule: once more than ``threshold0`` new objects are tracked, collect the oldest
        generation whose count exceeds its threshold (a generation's count is the number of
        collections of the next younger one since its own last collection)."""
        young, middle, old = gc.get_count()
        every_young, every_middle, every_old = self.thresholds
        if young <= every_young:
            return None
        if old > every_old:
            generation = 2
        elif middle > every_middle:
            generation = 1
        else:
            generation = 0
        gc.collect(generation)
        return generation

    def stop(self) -> None:
        """Restore the thresholds found at the start."""
        gc.set_threshold(*self.thresholds)
