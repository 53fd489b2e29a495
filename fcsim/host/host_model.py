"""Host models: processor costs, bus, adapter and background load of one kind
of machine, each value with its source (``models/hosts/<name>.toml``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from fcsim.catalog import read_model
from fcsim.host.bus import BUS_TYPES


@dataclass(frozen=True)
class HostModel:
    """One kind of host. Costs are processor time in s (per call, per byte, per
    packet or per frame as named).

    *syscall*: one send() or recv() call. *copy_per_byte*: copying between user
    and kernel memory. *checksum_per_byte*: the TCP checksum, on send and on
    receive. *tcp_output_per_packet* / *tcp_input_per_packet*: TCP/IP protocol
    processing of one packet. *interrupt*: taking one receive interrupt (one
    per IP packet). *driver_per_frame*: the FC driver's work per frame
    received. *context_switch*: waking a process that blocked in send() or
    recv(). *timer_tick*: the TCP timer routines on each 200 ms fast and
    500 ms slow tick (4.4BSD tcp_fasttimo / tcp_slowtimo).
    *send_copy_per_byte*: the copy into the kernel on send(), where a stack's
    send path costs other than its receive path (None: *copy_per_byte*).
    *copy_avoidance*: pages are remapped instead of copied
    (*page_remap* per 4 KiB page). *bus*: bus standard (``fcsim.host.bus``)
    with its sustained *bus_bandwidth* (bytes/s) and *bus_overhead* per DMA
    transfer. *adapter_frame_time*: the adapter's own time per frame.
    *background_utilisation* / *background_job*: the load of other processes
    (fraction of the processor, mean job length in s). *adapter*: the catalog
    adapter (``models/adapters/``) that supplied the bus and adapter values, if
    any. *sources*: provenance.
    """

    name: str
    syscall: float = 0.0
    copy_per_byte: float = 0.0
    send_copy_per_byte: float | None = None
    checksum_per_byte: float = 0.0
    tcp_output_per_packet: float = 0.0
    tcp_input_per_packet: float = 0.0
    interrupt: float = 0.0
    driver_per_frame: float = 0.0
    context_switch: float = 0.0
    timer_tick: float = 0.0
    copy_avoidance: bool = False
    page_remap: float = 0.0
    bus: str = "PCI-64/66"
    bus_bandwidth: float = 533e6
    bus_overhead: float = 0.0
    adapter_frame_time: float = 0.0
    background_utilisation: float = 0.0
    background_job: float = 1e-3
    adapter: str | None = None
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        costs = ("syscall", "copy_per_byte", "send_copy_per_byte", "checksum_per_byte",
                 "tcp_output_per_packet", "tcp_input_per_packet", "interrupt",
                 "driver_per_frame", "context_switch", "timer_tick", "page_remap",
                 "bus_overhead", "adapter_frame_time")
        for name in costs:
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{self.name}: {name} must be >= 0")
        if self.bus not in BUS_TYPES:
            raise ValueError(f"{self.name}: bus must be one of {', '.join(BUS_TYPES)}")
        if not 0 < self.bus_bandwidth <= BUS_TYPES[self.bus].peak:
            raise ValueError(f"{self.name}: bus_bandwidth must be in (0, "
                             f"{BUS_TYPES[self.bus].peak:g}] bytes/s for {self.bus}")
        if not 0 <= self.background_utilisation < 1 or self.background_job <= 0:
            raise ValueError(f"{self.name}: background_utilisation in [0, 1), "
                             "background_job > 0 s")


_TIMES = {"syscall", "tcp_output_per_packet", "tcp_input_per_packet", "interrupt",
          "driver_per_frame", "context_switch", "timer_tick", "page_remap", "bus_overhead",
          "adapter_frame_time",
          "background_job"}


ADAPTER_KEYS = {"bus", "bus_bandwidth", "bus_overhead", "adapter_frame_time"}
"""What an adapter model (``models/adapters/<name>.toml``) gives its host."""


def load_host_model(name: str, directory: Path | None = None) -> HostModel:
    """The catalog host model *name* (``models/hosts/<name>.toml``).

    A host naming an ``adapter`` takes the bus and adapter values from that
    adapter's model (``models/adapters/<adapter>.toml``, or beside *directory*).
    """
    allowed = {f.name for f in fields(HostModel)} - {"name", "sources"}
    values, sources = read_model("hosts", name, allowed, _TIMES, directory)
    adapter = values.get("adapter")
    if adapter is not None:
        clash = ADAPTER_KEYS & values.keys()
        if clash:
            raise ValueError(f"host model {name!r}: {', '.join(sorted(clash))} come from "
                             f"adapter {adapter!r}; give them in one place")
        folder = directory.parent / "adapters" if directory is not None else None
        card, card_sources = read_model("adapters", adapter, ADAPTER_KEYS, _TIMES, folder)
        values.update(card)
        sources.update({key: f"adapter {adapter}: {text}" for key, text in card_sources.items()})
    return HostModel(name=name, sources=sources, **values)
