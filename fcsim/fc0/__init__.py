"""FC-0, the physical layer: line rates, transmission codes and cables (the
link that joins two ports is :mod:`fcsim.link`, shared by every technology)."""

from fcsim.fc0.cable import DEFAULT_PROPAGATION, Cable
from fcsim.fc0.speed import CATALOG, CODING_8B10B, CODING_64B66B, Coding, Speed, speed_named

__all__ = [
    "CATALOG",
    "CODING_64B66B",
    "CODING_8B10B",
    "DEFAULT_PROPAGATION",
    "Cable",
    "Coding",
    "Speed",
    "speed_named",
]
