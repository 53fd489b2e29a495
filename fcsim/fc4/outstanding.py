"""A limit on the commands an initiator keeps outstanding, and the commands it
holds back over it: the one rule the FCP and FC-NVMe initiators share
(:mod:`fcsim.fc4.throttle` moves the limit)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

C = TypeVar("C")


class OutstandingLimit(Protocol):
    """A limit on the commands an initiator keeps outstanding
    (:class:`fcsim.fc4.throttle.CongestionThrottle`)."""

    def allows(self, outstanding: int) -> bool:
        """True if one more command may go with *outstanding* out."""


class HeldCommands(Generic[C]):
    """The commands an initiator holds back over its :attr:`limit` (None: no
    limit, nothing held), in submission order."""

    def __init__(self) -> None:
        self.limit: OutstandingLimit | None = None
        self.queue: deque[C] = deque()
        self.held_back = 0
        """Commands held back before being sent."""

    def holds(self, command: C, outstanding: int) -> bool:
        """True if *command* must wait (it is then queued): the limit does not
        allow one more with *outstanding* out, or others wait before it."""
        limit = self.limit
        if limit is None or (not self.queue and limit.allows(outstanding)):
            return False
        self.queue.append(command)
        self.held_back += 1
        return True

    def release(self, outstanding: Callable[[], int], send: Callable[[C], None]) -> None:
        """*send* the held commands, oldest first, while the limit allows one more
        with *outstanding()* out."""
        limit = self.limit
        while self.queue and limit is not None and limit.allows(outstanding()):
            send(self.queue.popleft())
