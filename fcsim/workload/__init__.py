"""Traffic sources that drive FC-2: saturating streams and open-loop generators."""

from fcsim.workload.base import Workload, WorkloadStats
from fcsim.workload.distributions import Constant, Distribution, Exponential, Uniform
from fcsim.workload.generator import Generator
from fcsim.workload.stream import Stream

__all__ = [
    "Constant",
    "Distribution",
    "Exponential",
    "Generator",
    "Stream",
    "Uniform",
    "Workload",
    "WorkloadStats",
]
