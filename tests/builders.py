"""Shared helpers: build point-to-point, fabric and loop scenarios in code, and
check that a scenario file is refused in one precise line."""

from __future__ import annotations

from pathlib import Path

import pytest

from fcsim.fabric.switch_model import SwitchModel, load_switch_model
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed, speed_named
from fcsim.fc2.login import ServiceParameters
from fcsim.scenario.loader import ScenarioError, load_scenario
from fcsim.scenario.model import (
    AliasGroupConfig,
    LinkConfig,
    LoopConfig,
    LoopPortConfig,
    NodeConfig,
    RunConfig,
    Scenario,
    SwitchConfig,
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


def fabric(
    nodes: dict[str, str],
    workloads: tuple[WorkloadConfig, ...],
    duration: float,
    warmup: float = 0.0,
    switches: dict[str, SwitchModel | str] | None = None,
    isls: tuple[tuple[str, str], ...] = (),
    speed: Speed | str = "1GFC",
    length: float = 10.0,
    params: ServiceParameters | None = None,
    seed: int = 1,
    login: bool = True,
    ports: dict[str, int] | None = None,
    alias_groups: tuple[AliasGroupConfig, ...] = (),
    speeds: dict[str, Speed | str] | None = None,
    bit_error_rate: float = 0.0,
) -> Scenario:
    """A fabric scenario: *nodes* maps N_Port name -> "switch:port"; *ports* gives
    nodes several N_Ports (their others, NAME.1 ..., are in *nodes* too);
    *speeds* sets the speed of some N_Ports' links."""
    speed = speed_named(speed) if isinstance(speed, str) else speed
    switches = switches or {"sw": "generic-nonblocking"}
    speeds = {n: speed_named(v) if isinstance(v, str) else v for n, v in (speeds or {}).items()}
    links = [LinkConfig(f"l-{name}", (name, end), speeds.get(name, speed), Cable(length),
                        bit_error_rate) for name, end in nodes.items()]
    ports = ports or {}
    extra = {f"{n}.{i}" for n, k in ports.items() for i in range(1, k)}
    links += [LinkConfig(f"isl{i}", (a, b), speed, Cable(length)) for i, (a, b) in enumerate(isls)]
    return Scenario(
        name="test-fabric", topology="fabric",
        run=RunConfig(duration, warmup, seed, 1, login=login),
        nodes=tuple(NodeConfig(n, params=params or ServiceParameters(), ports=ports.get(n, 1))
                    for n in nodes if n not in extra),
        links=tuple(links), workloads=workloads, alias_groups=alias_groups,
        switches=tuple(SwitchConfig(name, load_switch_model(m) if isinstance(m, str) else m)
                       for name, m in switches.items()),
    )


def loop(
    n: int,
    workloads: tuple[WorkloadConfig, ...],
    duration: float,
    warmup: float = 0.0,
    speed: Speed | str = "1GFC",
    hop_length: float = 1.0,
    repeat_delay: int = 12,
    ports: dict[str, LoopPortConfig] | None = None,
    params: dict[str, ServiceParameters] | None = None,
    lip_at: tuple[float, ...] = (),
    bit_error_rate: float = 0.0,
    seed: int = 1,
) -> Scenario:
    """An arbitrated loop of nodes "p0" .. "p<n-1>" in ring order; *ports* and
    *params* set a node's loop-port and login values by name."""
    speed = speed_named(speed) if isinstance(speed, str) else speed
    names = [f"p{i}" for i in range(n)]
    ports, params = ports or {}, params or {}
    return Scenario(
        name="test-loop", topology="loop", run=RunConfig(duration, warmup, seed, 1),
        nodes=tuple(NodeConfig(name, params=params.get(name, ServiceParameters()),
                               loop=ports.get(name, LoopPortConfig())) for name in names),
        links=(LoopConfig("loop", tuple(names), speed, Cable(hop_length), bit_error_rate,
                          repeat_delay, lip_at),),
        workloads=workloads,
    )


def assert_refused(tmp_path: Path, base: str, edit: tuple[str, str], key: str, given: str,
                   allowed: str) -> None:
    """*base* with *edit* (old, new; old must be in it) is refused: the first line
    of its error names the file, the key path *key*, *given* and what is
    *allowed* (a part of the text)."""
    old, new = edit
    assert old in base, old
    path = tmp_path / "case.toml"
    path.write_text(base.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    first = str(info.value).splitlines()[0]
    assert first.startswith(f"{path}: {key}: {given}; ") and allowed in first, first
