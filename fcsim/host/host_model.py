"""Host models: processor costs, bus, adapter and background load of one kind
of machine, each value with its source (``models/hosts/<name>.toml``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcsim.catalog import ModelFile, read_model, sourced
from fcsim.host.adapter import ADAPTER_COMMAND_TIME
from fcsim.host.bus import BUS_TYPES
from fcsim.schema.fields import (
    Count,
    Flag,
    Name,
    PositiveTime,
    Time,
    choice,
    fraction,
    integer,
    number,
)
from fcsim.schema.section import key
from fcsim.transport.linux import RX_BUFFERS, STACKS

BUFFER_ROUNDINGS = ("up", "down")
"""How tcp_mss() rounds the socket buffers to MSS multiples (*tcp_buffer_rounding*)."""
SEND_PATHS = ("mbuf", "moretocome", "whole", "buffer")
"""How send() moves data to TCP (*send_path*): 4.4BSD-Lite2's sosend() (one
mbuf per PRU_SEND), FreeBSD's (the same, with PRUS_MORETOCOME),
4.3BSD-Tahoe's (each pass of the copy one PRU_SEND), and the simpler path of
the hosts whose stack's own is not modelled (:class:`~fcsim.host.sockets.Socket`)."""


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
    *copy_avoidance*: every copy is a page remap instead (*page_remap* per
    4 KiB page or part of one). *zero_copy_send* / *zero_copy_receive*: TCP
    sockets map whole pages copy-on-write on send() / rename them on recv()
    (*page_remap* a page; *cow_fault*: a process writing to a page still
    mapped), :mod:`fcsim.host.copies`. *page_size*: the virtual-memory page,
    bytes (4096 on the i386, 8192 on the Alpha): the unit of every remap.
    *remap_reads*: a file or raw-device read() of a page or more maps the
    kernel's pages into the process instead of copying them (FreeBSD 4.0's
    ``vfs.ioopt``); writes still copy. *message_send* / *message_receive*:
    the kernel's work per Trapeze message sent (NetRPC marshalling and the
    control message written into the card's send ring) and received (the
    receive ring read, the NetRPC call record found and its handler or
    continuation run), besides the *interrupt* that signals arrivals
    (:mod:`fcsim.trapeze`). *direct_block_io*: read() and write() of a block
    device move the data by DMA straight to and from the process's buffer, as
    raw devices do (AIX raw logical volumes, Linux raw(8)): no copy,
    *page_remap* a page to pin the buffer instead. *bus*: bus standard
    (``fcsim.host.bus``) with its sustained *bus_bandwidth* (bytes/s) and
    *bus_overhead* per DMA transfer (on PCI Express, packets of at most
    *bus_max_payload* bytes, each with the TLP overhead); the machine has *buses* such buses, each
    served on its own (a scenario places each card on one).
    *adapter_frame_time*: the adapter's own time per frame.
    *scsi_command_cpu* / *nvme_command_cpu*: the processor's time per command
    in the host's storage stack over FCP (SCSI mid-layer and the FC driver's
    FCP path) and over FC-NVMe (NVMe core and the FC-NVMe transport), s,
    charged with each request's system call (0: not modelled).
    *adapter_command_time*: the FC adapter's processor time per SCSI command it
    sends (:mod:`fcsim.host.adapter`; default
    :data:`~fcsim.host.adapter.ADAPTER_COMMAND_TIME`, from a data-sheet
    I/O-per-second rating).
    *rx_coalesce_frames* / *rx_coalesce_time*: an Ethernet NIC's receive
    interrupt moderation: one interrupt per that many frames, or once that
    long has passed since the first frame not yet signalled (1 and 0: an
    interrupt per frame). *checksum_offload*: an Ethernet NIC computes and
    checks the TCP/UDP checksums, so the processor spends no
    *checksum_per_byte*. *rx_interrupt_interval*: an Ethernet NIC raises its
    receive interrupt at most once per this interval, s (interrupt
    throttling: a frame arriving later waits for it; 0: no limit).
    *rx_buffers*: how the NIC driver sizes its receive buffers ("frame" or
    "e1000", :func:`fcsim.transport.linux.rx_truesize`), the memory a
    received segment holds in a Linux socket. *processors*: processors
    sharing the work (interrupt-level work on the first,
    :class:`~fcsim.host.cpu.Cpu`). *tcp_stack*: "4.4bsd" or "linux-2.4", the
    TCP's buffer and receive-window rules (:mod:`fcsim.transport.linux`).
    *tcp_timestamps*: the TCP stack asks for the
    RFC 1323 timestamps option on its SYNs and uses it when the peer does too
    (:class:`~fcsim.transport.tcp_config.TcpConfig` *timestamps*).
    *send_path*: how send() moves data to TCP: "mbuf" (4.4BSD sosend(), one
    mbuf copied and handed over at a time), "moretocome" (the same, each
    PRU_SEND but a write's last saying more follows, FreeBSD's
    PRUS_MORETOCOME, so TCP sends whole segments), "whole" (4.3BSD-Tahoe:
    as much of the write as the free space holds copied, then handed over in
    one PRU_SEND) or "buffer" (pieces as large as the send buffer),
    :class:`~fcsim.host.sockets.Socket`. *tcp_ack_every*:
    the TCP's ACK policy for in-order data, the *ack_every* of
    :class:`~fcsim.transport.tcp_config.TcpConfig` (None: the socket's own).
    *sb_max*: the kernel's socket-buffer limit, bytes, the *sb_max* of
    :class:`~fcsim.transport.tcp_config.TcpConfig` (None: the socket's own).
    *mclbytes*: the kernel's mbuf cluster size, bytes, the *mclbytes* of
    :class:`~fcsim.transport.tcp_config.TcpConfig` (the MSS rounding and the
    clusters of the socket buffers; None: the socket's own, 2048).
    *tcp_buffer_rounding*: tcp_mss()'s rounding of the socket buffers to MSS
    multiples, "up" (4.4BSD) or "down" (4.3BSD-Reno, Net/2; *round_buffers_down*
    of the TcpConfig); None: the socket's own (up).
    *ip_input_queue*: packets the IP input queue holds between the receive
    interrupt and protocol input (4.4BSD ``ipintrq``, IFQ_MAXLEN 50); a packet
    arriving when it is full is dropped (:mod:`fcsim.host.host`).
    *background_utilisation* / *background_job*: the load of other processes
    (fraction of the processor, mean job length in s), user-mode work that
    kernel work and woken processes preempt (:class:`~fcsim.host.cpu.Cpu`).
    *timer_jitter*: the most a process's timed wait (iperf's pacing) ends
    after it was due, s; each ends uniformly late within it
    (:mod:`fcsim.host.timer_jitter`). *adapter*: the catalog
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
    zero_copy_send: bool = False
    zero_copy_receive: bool = False
    page_remap: float = 0.0
    cow_fault: float = 0.0
    page_size: int = 4096
    remap_reads: bool = False
    message_send: float = 0.0
    message_receive: float = 0.0
    direct_block_io: bool = False
    bus: str = "PCI-64/66"
    bus_bandwidth: float = 533e6
    bus_overhead: float = 0.0
    bus_max_payload: int = 256
    buses: int = 1
    adapter_frame_time: float = 0.0
    adapter_command_time: float = ADAPTER_COMMAND_TIME
    scsi_command_cpu: float = 0.0
    nvme_command_cpu: float = 0.0
    rx_coalesce_frames: int = 1
    rx_coalesce_time: float = 0.0
    checksum_offload: bool = False
    rx_interrupt_interval: float = 0.0
    rx_buffers: str = "frame"
    processors: int = 1
    tcp_stack: str = "4.4bsd"
    tcp_timestamps: bool = False
    send_path: str = "buffer"
    tcp_ack_every: int | None = None
    sb_max: int | None = None
    mclbytes: int | None = None
    tcp_buffer_rounding: str | None = None
    ip_input_queue: int = 50
    receive_checksum_offload: bool = False
    background_utilisation: float = 0.0
    background_job: float = 1e-3
    timer_jitter: float = 10e-6
    adapter: str | None = None
    sources: dict[str, str] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        costs = ("syscall", "copy_per_byte", "send_copy_per_byte", "checksum_per_byte",
                 "tcp_output_per_packet", "tcp_input_per_packet", "interrupt",
                 "driver_per_frame", "context_switch", "timer_tick", "page_remap", "cow_fault",
                 "message_send", "message_receive", "bus_overhead", "adapter_frame_time",
                 "adapter_command_time", "scsi_command_cpu", "nvme_command_cpu",
                 "rx_interrupt_interval", "timer_jitter")
        for name in costs:
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{self.name}: {name} must be >= 0")
        if self.bus not in BUS_TYPES:
            raise ValueError(f"{self.name}: bus must be one of {', '.join(BUS_TYPES)}")
        if not 0 < self.bus_bandwidth <= BUS_TYPES[self.bus].peak:
            raise ValueError(f"{self.name}: bus_bandwidth must be in (0, "
                             f"{BUS_TYPES[self.bus].peak:g}] bytes/s for {self.bus}")
        if self.page_size < 512 or self.page_size & (self.page_size - 1):
            raise ValueError(f"{self.name}: page_size must be a power of two >= 512 bytes")
        if self.buses < 1:
            raise ValueError(f"{self.name}: buses must be >= 1")
        payload = self.bus_max_payload
        if payload < 128 or payload > 4096 or payload & (payload - 1):
            raise ValueError(f"{self.name}: bus_max_payload must be 128, 256 ... 4096 bytes")
        if self.rx_coalesce_frames < 1 or self.rx_coalesce_time < 0:
            raise ValueError(f"{self.name}: rx_coalesce_frames >= 1, rx_coalesce_time >= 0 s")
        if self.processors < 1:
            raise ValueError(f"{self.name}: processors must be >= 1")
        if self.tcp_stack not in STACKS or self.rx_buffers not in RX_BUFFERS:
            raise ValueError(f"{self.name}: tcp_stack must be one of {', '.join(STACKS)} and "
                             f"rx_buffers one of {', '.join(RX_BUFFERS)}")
        if self.send_path not in SEND_PATHS or (self.tcp_ack_every or 0) < 0:
            raise ValueError(f"{self.name}: send_path must be one of {', '.join(SEND_PATHS)} "
                             "and tcp_ack_every >= 0")
        if self.sb_max is not None and self.sb_max < 4096:
            raise ValueError(f"{self.name}: sb_max must be >= 4096 bytes")
        if self.mclbytes is not None and (self.mclbytes < 1024
                                          or self.mclbytes & (self.mclbytes - 1)):
            raise ValueError(f"{self.name}: mclbytes must be a power of two >= 1024 bytes")
        if self.tcp_buffer_rounding not in (None, *BUFFER_ROUNDINGS):
            raise ValueError(f"{self.name}: tcp_buffer_rounding must be one of "
                             f"{', '.join(BUFFER_ROUNDINGS)}")
        if self.ip_input_queue < 1:
            raise ValueError(f"{self.name}: ip_input_queue must be >= 1 packet")
        if not 0 <= self.background_utilisation < 1 or self.background_job <= 0:
            raise ValueError(f"{self.name}: background_utilisation in [0, 1), "
                             "background_job > 0 s")


def _entry(help: str, value: Any, source: str = "assumption") -> Any:
    return key(None, help, {"value": value, "source": source})


Cost = sourced(Time, "Time")
PerByte = sourced(number("a number >= 0 (s per byte)"), "PerByte")
Yes = sourced(Flag, "Flag")
Bus = sourced(choice({name: name for name in BUS_TYPES}), "Bus")
BytesPerSecond = sourced(number("a number > 0 (bytes/s)", above=True), "BytesPerSecond")
Share = sourced(fraction("a fraction of the processor in [0, 1)"), "Share")
JobLength = sourced(PositiveTime, "PositiveTime")
ModelName = sourced(Name, "Name")
Frames = sourced(Count, "Count")
PageSize = sourced(integer(512, text="a power of two >= 512 (bytes)"), "PageSize")
BusCount = sourced(Count, "Count")
PayloadSize = sourced(integer(128, text="an integer >= 128 (bytes)"), "PayloadSize")
Processors = sourced(Count, "Count")
Stack = sourced(choice({name: name for name in STACKS}), "Stack")
RxBuffers = sourced(choice({name: name for name in RX_BUFFERS}), "RxBuffers")
SendPath = sourced(choice({name: name for name in SEND_PATHS}), "SendPath")
AckEvery = sourced(integer(0, text="an integer >= 0 (segments)"), "AckEvery")
Packets = sourced(Count, "Count")
SbMax = sourced(integer(4096, text="an integer >= 4096 (bytes)"), "SbMax")
ClusterSize = sourced(integer(1024, text="a power of two >= 1024 (bytes)"), "ClusterSize")
BufferRounding = sourced(choice({name: name for name in BUFFER_ROUNDINGS}), "BufferRounding")


class AdapterFile(ModelFile):
    """A host adapter model file (`models/adapters/<name>.toml`): what the card
    gives the host that names it."""

    where = "in an adapter model file"
    defaults_from = HostModel

    bus: Bus = _entry("The bus standard the card sits on.", "EISA", "data sheet")
    bus_bandwidth: BytesPerSecond = _entry("Sustained DMA rate over the bus, bytes/s.", 1.21e7,
                                           "calibrated on claim ONG-PEAK")
    bus_overhead: Cost = _entry("Bus time per DMA transfer, s.", "10 us")
    bus_max_payload: PayloadSize = _entry(
        "PCI Express only: the max payload size negotiated for the card (128, 256 ... 4096 "
        "bytes); each DMA transfer travels as packets of at most this many data bytes, each "
        "with 24 bytes of TLP overhead (default 256).", 256, "the platform's data sheet")
    adapter_frame_time: Cost = _entry("The card's own time per frame, s.", "4 us")
    adapter_command_time: Cost = _entry(
        "FC card: its processor's time per SCSI command it sends (the I/O control block, "
        "the exchange, the response), s; the card serves at most one command per this "
        "time, as its I/O-per-second rating with small blocks says. Default 28.4 us "
        "(1 / 35,180: HP A6826A, 1 KB reads on one port, limited by the card's "
        "processor).", "40 us", "data sheet I/O-per-second rating")
    scsi_command_cpu: Cost = _entry(
        "Processor time per command of the host's SCSI stack over FCP (the SCSI mid-layer "
        "and the FC driver's FCP path), s, charged with each request's system call "
        "(default 0: not modelled; no published per-command figure is in the catalog, so "
        "a value is an assumption).", "8 us", "assumption")
    nvme_command_cpu: Cost = _entry(
        "Processor time per command of the host's NVMe stack over FC (the NVMe core and the "
        "FC-NVMe transport), s, charged with each request's system call (default 0: not "
        "modelled).", "5 us", "assumption")
    rx_coalesce_frames: Frames = _entry("Ethernet NIC: frames received per interrupt at "
                                        "most (interrupt moderation).", 8)
    rx_coalesce_time: Cost = _entry("Ethernet NIC: longest a received frame waits for its "
                                    "interrupt, s.", "100 us")
    checksum_offload: Yes = _entry("Ethernet or Myrinet NIC: the card computes and checks "
                                   "the TCP/UDP checksums, not the processor.", True)
    receive_checksum_offload: Yes = _entry("Ethernet or Myrinet NIC: the card checks the "
                                           "TCP/UDP checksums of what it receives; the "
                                           "processor still computes them on sending.", True)
    rx_interrupt_interval: Cost = _entry("Ethernet NIC: least time between two receive "
                                         "interrupts (interrupt throttling), s.", "125 us",
                                         "driver source")
    rx_buffers: RxBuffers = _entry("Ethernet NIC: how the driver sizes its receive buffers, "
                                   "'frame' (the frame's size) or 'e1000' (2, 4, 8 or 16 KiB); "
                                   "the memory a received segment holds in a Linux socket.",
                                   "e1000", "driver source")


class HostFile(AdapterFile):
    """A host model file (`models/hosts/<name>.toml`): processor costs, bus,
    adapter and background load of one kind of machine, read into
    `fcsim.host.host_model.HostModel`. A host that names an `adapter` takes the
    bus and card values from it and may not set them itself."""

    where = "in a host model file"
    defaults_from = HostModel

    syscall: Cost = _entry("One send() or recv() call, s.", "11.9 us")
    copy_per_byte: PerByte = _entry("Copying between user and kernel memory, s per byte.",
                                    1.6e-8)
    send_copy_per_byte: PerByte = _entry("The copy into the kernel on send(), where it costs "
                                         "other than the receive path's, s per byte.", 2e-8)
    checksum_per_byte: PerByte = _entry("The TCP checksum, s per byte.", 1e-8)
    tcp_output_per_packet: Cost = _entry("TCP/IP output processing per packet, s.", "31.6 us")
    tcp_input_per_packet: Cost = _entry("TCP/IP input processing per packet, s.", "39.5 us")
    interrupt: Cost = _entry("Taking one receive interrupt, s.", "19.8 us")
    driver_per_frame: Cost = _entry("The FC driver's work per frame received, s.", "3.95 us")
    context_switch: Cost = _entry("Waking a process blocked in a socket call, s.", "15.8 us")
    timer_tick: Cost = _entry("The TCP timer routines per 200 ms / 500 ms tick, s.", "7.9 us")
    copy_avoidance: Yes = _entry("Every copy (socket or block, any size) is a page remap "
                                 "instead: an idealised host that never copies.", True)
    zero_copy_send: Yes = _entry("TCP send() maps the whole pages of a write into the "
                                 "kernel copy-on-write instead of copying them (FreeBSD "
                                 "zero-copy sockets).", True, "Gallatin et al. 1999")
    zero_copy_receive: Yes = _entry("TCP recv() renames whole kernel pages into the user's "
                                    "buffer instead of copying, when every segment's data is "
                                    "whole pages (FreeBSD zero-copy sockets).", True,
                                    "Gallatin et al. 1999")
    page_remap: Cost = _entry("Remapping one page (page_size bytes), s.", "5 us")
    page_size: PageSize = _entry("The virtual-memory page, bytes: 4096 on the i386, 8192 on "
                                 "the Alpha; the unit of page remapping.", 8192,
                                 "processor architecture manual")
    remap_reads: Yes = _entry("A file or raw-device read() of a page or more maps the "
                              "kernel's pages into the process instead of copying (FreeBSD "
                              "4.0's vfs.ioopt); writes still copy.", True,
                              "FreeBSD 4.0 ffs_read and uioread")
    message_send: Cost = _entry("Kernel work per Trapeze message sent: NetRPC marshalling and "
                                "the control message written into the card's send ring, s.",
                                "4 us")
    message_receive: Cost = _entry("Kernel work per Trapeze message received, besides the "
                                   "interrupt: the receive ring read, the NetRPC call record "
                                   "found, its handler or continuation run, s.", "4 us")
    cow_fault: Cost = _entry("A copy-on-write fault on a page of a zero-copy send the "
                             "process writes to, with the page's copy, s.", "20 us")
    direct_block_io: Yes = _entry("read() and write() of a block device move the data by DMA "
                                  "straight to and from the process's buffer (raw devices): "
                                  "no copy, page_remap per page to pin the buffer.", True,
                                  "operating system documentation")
    buses: BusCount = _entry("I/O buses of the machine, each of this bus standard and "
                             "sustained rate, served on its own; a scenario node's buses "
                             "key places its cards on them (default 1).", 2,
                             "the machine's technical reference")
    processors: Processors = _entry("Processors sharing the work; interrupt-level work runs "
                                    "on the first.", 2, "data sheet")
    tcp_stack: Stack = _entry("The TCP stack's buffer and window rules: '4.4bsd' or "
                              "'linux-2.4' (setsockopt doubles the buffers, the window is "
                              "3/4 of the free memory).", "linux-2.4", "operating system")
    tcp_timestamps: Yes = _entry("The TCP stack asks for the RFC 1323 timestamps option on "
                                 "its SYNs (and uses it when the peer does too).", True,
                                 "operating system documentation")
    send_path: SendPath = _entry("How send() moves data to TCP: 'mbuf' (4.4BSD sosend(): one "
                                 "mbuf, a 2 KB cluster, copied and handed to TCP as a PRU_SEND "
                                 "at a time), 'moretocome' (FreeBSD sosend(): the same, each "
                                 "PRU_SEND but the write's last flagged PRUS_MORETOCOME, so "
                                 "tcp_output() holds a part segment), 'whole' (4.3BSD-Tahoe "
                                 "sosend(): as much of the write as the free space holds "
                                 "copied, then one PRU_SEND) or 'buffer' (copied in pieces as "
                                 "large as the send buffer, each handed to TCP whole).", "mbuf",
                                 "4.4BSD-Lite2 uipc_socket.c 8.6 sosend()")
    tcp_ack_every: AckEvery = _entry("The TCP's ACK of in-order data: at once when this many "
                                     "full-sized segments are unacknowledged; 0: never on "
                                     "input, only with a window update after a read or on the "
                                     "200 ms fast timer (4.4BSD). Default: the socket's (2).", 0,
                                     "4.4BSD-Lite2 tcp_input.c 8.12 TCP_REASS sets TF_DELACK")
    sb_max: SbMax = _entry("The kernel's socket-buffer limit, bytes (4.4BSD sb_max): "
                           "sbreserve() refuses a buffer above sb_max x 2048 / 2176 and caps a "
                           "buffer's mbuf bytes at it. Default: 262144 (SB_MAX).", 278527,
                           "4.4BSD-Lite2 uipc_socket2.c sbreserve()")
    mclbytes: ClusterSize = _entry("The kernel's mbuf cluster size, bytes: tcp_mss() rounds "
                                   "an MSS above it down to a multiple of it, and socket "
                                   "buffers hold data in clusters of it. Default: 2048 "
                                   "(4.4BSD MCLBYTES).", 4096, "the kernel's machine/param.h")
    tcp_buffer_rounding: BufferRounding = _entry("How tcp_mss() rounds the socket buffers to "
                                                 "MSS multiples: 'up' (4.4BSD) or 'down' "
                                                 "(4.3BSD-Reno, Net/2). Default: up.", "down",
                                                 "4.3BSD-Reno tcp_input.c 7.25 tcp_mss()")
    ip_input_queue: Packets = _entry("Packets the IP input queue holds between the receive "
                                     "interrupt and IP/TCP input, which runs at the lower "
                                     "software-interrupt level; a packet arriving when it is "
                                     "full is dropped (default 50).", 50,
                                     "4.4BSD-Lite2 net/if.h IFQ_MAXLEN, ip_input.c ipintrq")
    background_utilisation: Share = _entry("Share of the processor other processes keep busy.",
                                           0.2)
    background_job: JobLength = _entry("Mean length of a background job, s.", "1 ms")
    timer_jitter: Cost = _entry("The most a process's timed wait (iperf's pacing of its "
                                "datagrams) ends after it was due, s; each ends a uniformly "
                                "random time late within it, never early. Default 10 us: "
                                "iperf 2's busy-wait delay_loop, 'good to within about 10 "
                                "usecs' (src/delay.cpp); a Linux nanosleep() may end up to "
                                "the timer slack late, 50 us by default (prctl(2) "
                                "PR_SET_TIMERSLACK).", "50 us",
                                "prctl(2) PR_SET_TIMERSLACK: default timer slack 50 us")
    adapter: ModelName = _entry("The card's model in models/adapters/.", "eisa-fc-266",
                                "paper")


ADAPTER_KEYS = set(AdapterFile.model_fields) - set(ModelFile.model_fields)
"""What an adapter model (``models/adapters/<name>.toml``) gives its host."""


def load_host_model(name: str, directory: Path | None = None) -> HostModel:
    """The catalog host model *name* (``models/hosts/<name>.toml``).

    A host naming an ``adapter`` takes the bus and adapter values from that
    adapter's model (``models/adapters/<adapter>.toml``, or beside *directory*).
    """
    values, sources = read_model("hosts", name, HostFile, directory)
    adapter = values.get("adapter")
    if adapter is not None:
        clash = ADAPTER_KEYS & values.keys()
        if clash:
            raise ValueError(f"host model {name!r}: {', '.join(sorted(clash))} come from "
                             f"adapter {adapter!r}; give them in one place")
        folder = directory.parent / "adapters" if directory is not None else None
        card, card_sources = read_model("adapters", adapter, AdapterFile, folder)
        values.update(card)
        sources.update({key: f"adapter {adapter}: {text}" for key, text in card_sources.items()})
    return HostModel(name=name, sources=sources, **values)
