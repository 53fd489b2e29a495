"""FC-0, the physical layer: line rates, transmission codes and cables."""

from fcsim.fc0.cable import DEFAULT_PROPAGATION, Cable
from fcsim.fc0.link import Link
from fcsim.fc0.speed import CATALOG, CODING_8B10B, CODING_64B66B, Coding, Speed, speed_named

__all__ = [
    "CATALOG",
    "CODING_64B66B",
    "CODING_8B10B",
    "DEFAULT_PROPAGATION",
    "Cable",
    "Coding",
    "Link",
    "Speed",
    "speed_named",
]
