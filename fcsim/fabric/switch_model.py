"""Switch models: the parameters of one kind of switch, with their provenance.

A :class:`SwitchModel` is read from a TOML file in the project's ``models/``
catalog (``models/switches/<name>.toml``): every value there names its source
("data sheet ...", "standard ...", "assumption ...", "calibrated on claim X").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcsim.catalog import ModelFile, read_model, sourced
from fcsim.fabric.routing import POLICIES
from fcsim.schema.fields import Count, Flag, PositiveTime, Time, choice, integer, number
from fcsim.schema.section import REQUIRED, key


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
    request, s. *routing*: how it chooses among equal-cost next hops, one of
    :data:`fcsim.fabric.routing.POLICIES`. *npiv_logins*: FDISC logins (N_Port
    IDs beyond the FLOGI's, NPIV) an F_Port accepts; the next is refused with
    LS_RJT. *max_port_credit*: the most receive buffers one port can be given
    (a long-distance E_Port given its port group's shared pool; None: no more
    than *bb_credit*); it is read by credit planning, not by the simulation.
    *sources*: provenance per parameter.
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
    routing: str = "exchange-based"
    npiv_logins: int = 255
    max_port_credit: int | None = None
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
        if not 0 <= self.npiv_logins <= 255:
            raise ValueError(f"{self.name}: npiv_logins must be 0..255")
        if self.max_port_credit is not None and self.max_port_credit < self.bb_credit:
            raise ValueError(f"{self.name}: max_port_credit must be >= bb_credit")
        if self.routing not in POLICIES:
            raise ValueError(f"{self.name}: routing must be one of {', '.join(POLICIES)}")


def _entry(help: str, value: Any, source: str, required: bool = False) -> Any:
    return key(REQUIRED if required else None, help, {"value": value, "source": source})


Ports = sourced(integer(2, text="an integer >= 2"), "Ports")
Frames = sourced(Count, "Count")
Delay = sourced(Time, "Time")
Timeout = sourced(PositiveTime, "PositiveTime")
Yes = sourced(Flag, "Flag")
Speedup = sourced(number("a number >= 1", 1.0), "Speedup")
PerSecond = sourced(number("a number > 0 (per second)", above=True), "PerSecond")
NpivLogins = sourced(integer(0, 255, "an integer 0..255 (the N_Port ID's last byte)"),
                     "NpivLogins")
Policy = sourced(choice(dict(zip(POLICIES, POLICIES, strict=True))), "RoutingPolicy")


class SwitchFile(ModelFile):
    """A switch model file (`models/switches/<name>.toml`): how one kind of
    switch forwards frames, read into `fcsim.fabric.switch_model.SwitchModel`."""

    where = "in a switch model file"
    defaults_from = SwitchModel

    ports: Ports = _entry("Number of ports.", 16, "data sheet", True)
    bb_credit: Frames = _entry("Receive buffers per port, offered as BB credit.", 4,
                               "data sheet", True)
    routing_latency: Delay = _entry("From the moment a frame may be forwarded (its header "
                                    "in, for cut-through; its EOF in, for store-and-forward) "
                                    "to the moment it may start on the output, s.", "2 us",
                                    "assumption", True)
    cut_through: Yes = _entry("Forward after the header rather than the whole frame.", False,
                              "data sheet")
    virtual_output_queues: Yes = _entry("One queue per output at each input instead of one "
                                        "FIFO per input.", False, "assumption")
    crossbar_speedup: Speedup = _entry("How much faster than the input link a frame crosses "
                                       "the crossbar.", 1.0, "assumption")
    routing_rate: PerSecond = _entry("Frames per second the shared central router decides "
                                     "(default: no limit).", 2e6, "data sheet")
    hold_time: Timeout = _entry("A Class 2/3 frame that has waited this long in the switch "
                                "is answered F_BSY or discarded, s (default: never).",
                                "500 ms", "standard")
    service_time: Delay = _entry("How long the fabric services take to answer a login or "
                                 "name-server request, s.", "100 us", "assumption")
    routing: Policy = _entry("How the switch chooses among equal-cost next hops: "
                             "'port-based' (by ingress port), 'device-based' (a hash of "
                             "S_ID and D_ID) or 'exchange-based' (a hash of S_ID, D_ID and "
                             "OX_ID); see docs/fabrics.md.", "exchange-based",
                             "vendor guide")
    npiv_logins: NpivLogins = _entry(
        "FDISC logins (NPIV: N_Port IDs beyond the FLOGI's) an F_Port accepts; the next "
        "is refused with LS_RJT. 255 is the most the N_Port ID's last byte allows "
        "(Brocade Adapters Administrator's Guide 53-1001583-01: at most 255 virtual PIDs "
        "per N_Port on a switch).", 255, "vendor guide")
    max_port_credit: Frames = _entry("The most receive buffers one port can be given (a "
                                     "long-distance port given its port group's shared "
                                     "buffers); read by `fcsim credits`, not by a run "
                                     "(default: bb_credit).", 1500, "data sheet")


def load_switch_model(name: str, directory: Path | None = None) -> SwitchModel:
    """The catalog model *name* (file ``models/switches/<name>.toml``; see
    :mod:`fcsim.catalog`). Raises ValueError naming the file and key on bad content."""
    values, sources = read_model("switches", name, SwitchFile, directory)
    return SwitchModel(name=name, sources=sources, **values)
