"""Shared helpers: build point-to-point scenarios in code."""

from __future__ import annotations

from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed, speed_named
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.model import (
    LinkConfig,
    NodeConfig,
    RunConfig,
    Scenario,
    WorkloadConfig,
)


def p2p(
    workloads: tuple[WorkloadConfig, ...],
    duration: float,
    warmup: float = 0.0,
    speed: Speed | str = "1GFC",
    length: float = 1.0,
    a: ServiceParameters | None = None,
    b: ServiceParameters | None = None,
    bit_error_rate: float = 0.0,
    seed: int = 1,
    repetitions: int = 1,
) -> Scenario:
    """A point-to-point scenario between nodes "a" and "b"."""
    speed = speed_named(speed) if isinstance(speed, str) else speed
    return Scenario(
        name="test",
        topology="point-to-point",
        run=RunConfig(duration, warmup, seed, repetitions),
        nodes=(NodeConfig("a", params=a or ServiceParameters()),
               NodeConfig("b", params=b or ServiceParameters())),
        links=(LinkConfig("link", ("a", "b"), speed, Cable(length), bit_error_rate),),
        workloads=workloads,
    )
