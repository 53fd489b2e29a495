"""Switch models: the parameters of one kind of switch, with their provenance.

A :class:`SwitchModel` is read from a TOML file in the project's ``models/``
catalog (``models/switches/<name>.toml``): every value there names its source
("data sheet ...", "standard ...", "assumption ...", "calibrated on claim X").
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

from fcsim.units import parse_time

CATALOG_DIR = Path(__file__).resolve().parents[2] / "models" / "switches"
"""Where the switch catalog lives (``models/switches`` in the project)."""


@dataclass(frozen=True)
class SwitchModel:
    """How one kind of switch forwards frames.

    *ports*: number of ports. *bb_credit*: receive buffers per port, offered to
    the attached port as BB credit. *routing_latency*: from the moment a frame
    may be forwarded (its header in, for cut-through; its EOF in, for
    store-and-forward) to the moment it may start on the output, s.
    *cut_through*: forward after the header rather than the whole frame.
    *virtual_output_queues*: one queue per output at each input instead of one
    FIFO per input (no head-of-line blocking). *crossbar_speedup*: how much
    faster than the input link a frame crosses the crossbar (1: an input
    feeds one frame at a time at its own speed). *routing_rate*: frames per
    second the shared central router decides (None: no limit). *hold_time*: a
    Class 2/3 frame that has waited this long in the switch is answered F_BSY
    (Class 2) or discarded (Class 3), s (None: never). *service_time*: how
    long the switch's fabric services take to answer a login or name-server
    request, s. *sources*: provenance per parameter.
    """

    name: str
    ports: int
    bb_credit: int
    routing_latency: float
    cut_through: bool = False
    virtual_output_queues: bool = False
    crossbar_speedup: float = 1.0
    routing_rate: float | None = None
    hold_time: float | None = None
    service_time: float = 0.0
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.ports < 2 or self.bb_credit < 1 or self.routing_latency < 0:
            raise ValueError(f"{self.name}: need ports >= 2, bb_credit >= 1, latency >= 0")
        if self.crossbar_speedup < 1:
            raise ValueError(f"{self.name}: crossbar_speedup must be >= 1")
        if self.routing_rate is not None and self.routing_rate <= 0:
            raise ValueError(f"{self.name}: routing_rate must be > 0 frames/s")
        if self.hold_time is not None and self.hold_time <= 0:
            raise ValueError(f"{self.name}: hold_time must be > 0 s")
        if self.service_time < 0:
            raise ValueError(f"{self.name}: service_time must be >= 0 s")


_TIMES = {"routing_latency", "hold_time", "service_time"}


def load_switch_model(name: str, directory: Path = CATALOG_DIR) -> SwitchModel:
    """The catalog model *name* (file ``<directory>/<name>.toml``).

    Each parameter is a table ``{ value = ..., source = "..." }``; times carry
    units ("2 us"). Raises ValueError naming the file and key on bad content.
    """
    path = directory / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in directory.glob("*.toml"))
        raise ValueError(f"no switch model {name!r}; known: {', '.join(known)}")
    raw = tomllib.loads(path.read_text())
    allowed = {f.name for f in fields(SwitchModel)} - {"name", "sources"}
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    for key, entry in raw.items():
        if key == "description":
            continue
        if key not in allowed or not isinstance(entry, dict) or set(entry) != {"value", "source"}:
            raise ValueError(f"{path}: {key}: expected one of {sorted(allowed)} as "
                             "{ value = ..., source = \"...\" }")
        value = entry["value"]
        values[key] = parse_time(value) if key in _TIMES and isinstance(value, str) else value
        sources[key] = entry["source"]
    return SwitchModel(name=name, sources=sources, **values)  # type: ignore[arg-type]
