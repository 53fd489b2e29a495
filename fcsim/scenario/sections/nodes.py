"""The ``[[nodes]]`` tables: each node's N_Port, its login service parameters
and the host behind it."""

from __future__ import annotations

from fcsim.catalog import model_name
from fcsim.faults.config import BY_PROTOCOL, LINK_DOWN_POLICIES
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.login import ServiceParameters
from fcsim.host.config import TIMESTAMPS_HELP, HostName, Load
from fcsim.loop.al_pa import is_nl_al_pa
from fcsim.scenario.sections.workloads import Times
from fcsim.schema.fields import (
    Count,
    Flag,
    Name,
    PositiveTime,
    Time,
    Words,
    choice,
    distinct_list,
    hex_or_integer,
    integer,
    is_int,
    quantity,
    size,
    table,
    tables,
)
from fcsim.schema.section import Section, key
from fcsim.storage.config import (
    AnaStates,
    BlockSection,
    ChannelSection,
    FastIoFail,
    LocalNames,
    MultipathSection,
    PortNames,
)
from fcsim.storage.device_model import load_device_model
from fcsim.units import parse_rate

_SP = ServiceParameters()


def _written(seconds: float) -> str:
    """*seconds* as a scenario file writes a time: '1 ms', '2 s'."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:g} {unit}"
    return "0 s"


DeviceName = model_name(load_device_model, "disk, RAM disk, array, SSD or flash array",
                        "models/disks/, models/ramdisks/, models/arrays/, models/ssds/ or "
                        "models/flash-arrays/")
"""A storage device model by catalog name or file path."""
Burst = size(512, text="a size with a unit such as '64 KiB', >= 512 B")


Buffers = integer(1, text="an integer >= 1 (receive buffers)")
DrainRate = quantity(parse_rate, "a rate such as '200 MB/s', > 0", above=True)
DataField = size(256, MAX_DATA_FIELD, f"a data field size of 256..{MAX_DATA_FIELD} bytes such "
                 f"as '{MAX_DATA_FIELD} B'")
Classes = distinct_list(lambda c: is_int(c) and c in (1, 2, 3), "a non-empty list of distinct "
                        "classes out of 1, 2, 3 such as [2, 3]", item_schema={"enum": [1, 2, 3]})
IpClass = integer(1, 3, "the class of service of IP over FC: 1, 2 or 3")
PortId = hex_or_integer(6, lambda v: 1 <= v <= 0xFFFFEF, "an N_Port ID: a string such as "
                        "'0x010200' (6 hex digits) or an integer 1..0xFFFFEF")
AlPa = hex_or_integer(2, is_nl_al_pa, "a hard NL_Port AL_PA, one of the 126 neutral-disparity "
                      "values 0x01..0xEF, such as '0x01' or 0xE8")
LoginCredit = integer(0, text="an integer 0..bb_credit (frames)")
BbScN = integer(0, 15, "an integer 0..15 (BB_SC_N: 0 none, n a checkpoint every 2^n frames)")
Channels = tables(ChannelSection, "an array of tables, written [[nodes.channels]]")
Block = table(BlockSection, "a table, written [nodes.block]")
Multipath = table(MultipathSection, "a table, written [nodes.multipath]")
TaskSet = integer(1, text="an integer >= 1 (commands)")


class NodeKeys(Section):
    """A node: one N_Port. Except for `name` and the host keys, the keys are the
    login service parameters (`fcsim.fc2.login.ServiceParameters`) the node
    offers its peer; their defaults are those of `ServiceParameters`."""

    name: Name = key(help="The node's name, unique among nodes.", example="host")
    bb_credit: Buffers = key(
        _SP.bb_credit, "Receive buffers this node offers its link peer, frames: the peer may "
        "send this many before it needs an R_RDY back. On a long link this limits "
        "throughput.", 8)
    rx_data_field: DataField = key(
        _SP.rx_data_field, "The largest frame data field this node accepts, bytes; senders "
        "to it never put more in one frame.", "1 KiB")
    ee_credit: Count = key(_SP.ee_credit, "Class 1/2 frames a peer may have "
                                "unacknowledged towards this node.", 4)
    classes: Classes = key(
        sorted(_SP.classes), "Classes of service it accepts; a frame of another class is "
        "rejected (Class 3: discarded).", [2, 3])
    concurrent_sequences: Count = key(
        _SP.concurrent_sequences, "Sequences it can receive at once; a new one beyond this "
        "is answered P_BSY (Class 2) or discarded (Class 3).", 8)
    busy_retry: PositiveTime = key(
        _written(_SP.busy_retry), "Mean delay before a frame answered F_BSY/P_BSY is sent "
        "again, s (each retry waits 0.5-1.5 times this, drawn uniformly).", "50 us")
    e_d_tov: PositiveTime = key(
        _written(_SP.e_d_tov), "Error-detect timeout, s: a Class 1/2 sequence whose ACKs "
        "are not all back this long after its last frame is aborted.", "2 s")
    rx_frame_time: Times = key(
        _written(_SP.rx_frame_time), "Time the node needs per received frame before the "
        "buffer is free (and its R_RDY sent), s; 0 = at once. Frames are taken out of the "
        "buffers one at a time in arrival order, so a constant time t caps the node at 1/t "
        "frames/s. A plain time, or a distribution table as a generator's interarrival "
        "(drawn per frame). With a host, this follows the adapter's DMA.", "1 us")
    rx_drain_rate: DrainRate = key(
        None, "A slow-drain device: the payload bytes per second its receive path takes out "
        "of the buffers, one frame after another (on top of rx_frame_time), so a stream to "
        "it is capped at this rate (default: no limit).", "200 MB/s")
    rx_delay: Times = key(
        None, "A slow-drain device: time from a frame's being taken out of its buffer to "
        "the buffer's being free (its R_RDY sent), s, or its distribution; not serial, but "
        "buffers are freed in arrival order. With bb_credit buffers it caps a stream at "
        "about bb_credit frames per delay plus the round trip (default: 0).", "100 us")
    rx_stuck_at: Time = key(
        None, "A stuck receiver: from this time, s, it frees no receive buffer and so "
        "returns no R_RDY for rx_stuck_for; buffers due then are freed when it ends "
        "(default: never).", "2 ms")
    rx_stuck_for: PositiveTime = key(
        None, "How long a stuck receiver (rx_stuck_at) returns no R_RDY, s.", "5 ms")
    host: HostName = key(None, "The host behind the N_Port (processor, bus and adapter "
                         "costs): a model in models/hosts/ or a model file path ending in "
                         ".toml, relative to the scenario file. Left out: a bare N_Port "
                         "driven by FC-2 workloads, whose block jobs cost nothing per "
                         "command or byte. The catalog's 'ideal' host leaves out the same: "
                         "every processor cost (system calls, copies, checksums, protocol "
                         "processing, interrupts), the adapter's time per frame and per "
                         "SCSI command and the bus's per-transfer overhead; only its 533 MB/s "
                         "bus remains. A real host's per-command costs (the adapter's "
                         "adapter_command_time, the completion interrupt) bound its I/O "
                         "per second.", "ideal")
    target: DeviceName = key(None, "Makes the node an FCP target (SCSI over FC) with one "
                             "logical unit served by this device, and an FC-NVMe "
                             "controller over the same device for the jobs that address it "
                             "with protocol = 'nvme': a model in models/disks/, "
                             "models/ramdisks/, models/arrays/, models/ssds/ or "
                             "models/flash-arrays/, or a model "
                             "file path ending in .toml.",
                             "ibm-deskstar-22gxp")
    max_burst: Burst = key(None, "FCP target only: its maximum burst size (SCSI "
                           "disconnect-reconnect mode page), bytes: the most write data it asks "
                           "for in one FCP_XFER_RDY and the most read data it sends in one "
                           "FCP_DATA sequence; on a loop a fair target holds the loop for one "
                           "such burst once another port arbitrates (default: no limit, the "
                           "whole command, as SCSI's maximum burst size 0 means).", "64 KiB")
    namespaces: Count = key(1, "Target only: its logical units, the device's capacity cut "
                            "into that many equal parts (whole 512-byte blocks) in turn: "
                            "SCSI LUNs 0 .. namespaces - 1 over FCP and NVMe namespaces "
                            "1 .. namespaces over FC-NVMe; jobs address one with lun or "
                            "namespace (default: 1, the whole device).", 4)
    nvme_sler: Flag = key(True, "FC-NVMe: the node offers sequence level error recovery "
                          "(FC-NVMe-2 SLER) at PRLI, as its host or controller; used with a "
                          "peer that offers it too: a command whose frames are lost is then "
                          "recovered within its exchange (REC, NVMe_SR) instead of timing "
                          "out and being sent again (default: on, as Linux qla2xxx and lpfc "
                          "set it with FC-NVMe-2 firmware). docs/storage.md.", False)
    nvme_reconnect_delay: PositiveTime = key(
        "10 s", "FC-NVMe host: the time between two attempts to create an association "
        "again after it was reset, as given to nvme connect (Linux fabrics' "
        "reconnect_delay, default 10 s; nvme-fc uses 2 s instead when it is the default "
        "and the loss timeout is on). docs/storage.md.", "2 s")
    nvme_ctrl_loss_tmo: FastIoFail = key(
        "600 s", "FC-NVMe host: how long it tries to create an association again before "
        "it gives the controller up and fails its commands (Linux fabrics' ctrl_loss_tmo, "
        "default 600 s); 'off': it tries forever. docs/storage.md.", "60 s")
    channels: Channels = key([], "Disk channels on this node (SCSI buses, ATA channels) and "
                             "their disks, read by the node's own block layer: a job from "
                             "this node addresses them by name, and target_disks serves them "
                             "over FC (default: none).",
                             [{"name": "scsi0", "model": "ultra-wide-scsi",
                               "disks": ["seagate-medalist-pro-st39140w"]}])
    block: Block = key(None, "The node's block layer: queue depth per device, largest "
                       "request, merging and order (default: see the table's keys).",
                       {"queue_depth": 32, "max_request": "128 KiB"})
    target_disks: LocalNames = key(None, "Makes the node an FCP target whose one logical "
                                   "unit is these disks of its own channels, striped in "
                                   "target_stripe grains when more than one (a storage "
                                   "server, a JBOD on a SCSI bus); not with target.",
                                   ["scsi0.0", "scsi0.1"])
    target_stripe: Burst = key(None, "target_disks only: the stripe grain over the disks, "
                               "bytes, whole 512-byte blocks.", "32 KiB")
    target_queue_depth: TaskSet = key(256, "target_disks only: commands the target's task "
                                      "set holds (an assumption of a software target; the "
                                      "disks' own depths apply below it, in the block "
                                      "layer).", 64)
    ip_class: IpClass = key(
        3, "The class of service IP over FC uses from this node.", 2)
    background_load: Load = key(
        None, "Share of the host's processor other processes keep busy in this scenario "
        "(default: the host model's own value).", 0.15)
    tcp_timestamps: Flag = key(None, TIMESTAMPS_HELP, True)



_ONE_PORT = "no ports outside topology = 'fabric': a node has one N_Port there"
LinkDown = choice({policy: policy for policy in LINK_DOWN_POLICIES})


class LinkDownKeys(NodeKeys):
    """The keys of a node whose N_Port's link can go down and lose credit
    (point-to-point, fabric)."""

    link_down: LinkDown = key(
        BY_PROTOCOL, "What the N_Port does with its upper layers' sequences while its link "
        "is down (until it has logged in again): 'hold' them (Linux's FC transport blocks "
        "the remote port and holds its SCSI I/O), 'drop' them (a Linux network device "
        "without carrier drops IP packets: TCP sees the loss), or 'by-protocol': IP "
        "dropped, FCP and FC-2 workloads held. docs/faults.md.", "drop")
    dev_loss_tmo: PositiveTime = key(
        "60 s", "Held sequences still waiting this long after the link went down are "
        "failed (dropped), and the FC transport removes the remote ports it reached, "
        "failing their SCSI commands (DID_NO_CONNECT), s (Linux scsi_transport_fc's "
        "dev_loss_tmo default; lpfc uses 30 s). docs/faults.md.", "30 s")
    fast_io_fail_tmo: FastIoFail = key(
        "off", "How long after the link went down the FC transport fails the SCSI "
        "commands held for the remote ports it reached (DID_TRANSPORT_FAILFAST) and "
        "each new one, until the port is back; 'off' (scsi_transport_fc's default): "
        "only at dev_loss_tmo. A multipath node uses its [nodes.multipath] "
        "fast_io_fail_tmo instead (multipathd sets it). docs/faults.md.", "5 s")
    bb_sc_n: BbScN = key(
        _SP.bb_sc_n, "BB credit recovery (FC-FS-5 BB_SC_N) this node offers at login: 0 none; "
        "n = 1..15 a checkpoint every 2^n frames (BB_SCs) and every 2^n R_RDYs (BB_SCr), "
        "which brings back the credit of frames and R_RDYs lost on the link. The link uses "
        "it if its other end offers it too (the larger n); only frames and R_RDYs lost to "
        "[[faults]] need it (docs/fabric-services.md, 'BB credit recovery').", 8)
NPorts = integer(1, 255, "an integer 1..255 (N_Ports of the node)")
VirtualPorts = integer(0, 255, "an integer 0..255 (virtual N_Ports, NPIV)")


class FabricNodeSection(LinkDownKeys):
    """A node on a fabric: the fabric assigns its N_Port ID (domain / port / 00).
    A node may have several N_Ports (`ports`), each cabled to its own switch
    port: the first is named as the node, the others NAME.1, NAME.2, ... (link
    ends, alias group members and results use these names)."""

    where = "in [[nodes]] of a fabric"
    elsewhere = {"port_id": "no port_id: the fabric assigns N_Port IDs (domain/port/00)"}

    ports: NPorts = key(
        1, "N_Ports of the node, each logging in with the fabric and cabled by its own "
        "link: the first is the node's name, the others NAME.1 .. NAME.(ports-1). A "
        "stream can stripe over them (stripe_ports); alias groups take them as members.", 4)
    virtual_ports: VirtualPorts = key(
        0, "Virtual N_Ports (NPIV) behind the node's first N_Port, named NAME.v1 .. "
        "NAME.v<n>, each with its own N_Port ID (domain / port / k), logging in with FDISC "
        "after the FLOGI, one after another; a switch port accepts its model's "
        "npiv_logins and refuses the rest (LS_RJT). Needs run.login = true; not in a run "
        "with faults (docs/fabric-services.md).", 8)
    multipath: Multipath = key(
        None, "The node's multipath layer (Linux dm-multipath): its FCP block jobs to a "
        "target go over every path, each a pair of one of its N_Ports and one of the "
        "target's in the same fabric, grouped, balanced and failed over as the table's "
        "keys say (default: none; a job uses the node's first N_Port). docs/multipath.md.",
        {"path_grouping_policy": "multibus", "path_selector": "round-robin"})
    non_optimized_ports: PortNames = key(
        None, "FCP target only: the node's N_Ports (NAME, NAME.1, ...) in the ALUA "
        "active/non-optimised target port group; the others are active/optimised "
        "(default: all). A multipath host's group_by_prio uses them last.", ["array.1"])
    ana_states: AnaStates = key(
        None, "FC-NVMe target only: the ANA state of its namespaces through each of its "
        "N_Ports named (NVMe Asymmetric Namespace Access: 'optimized', 'non-optimized', "
        "'inaccessible', 'persistent-loss' or 'change'); a port not named is optimized "
        "(default: all). A multipath host's NVMe jobs use non-optimized paths only when no "
        "optimized one is usable, and the other states never. docs/multipath.md.",
        {"array.1": "non-optimized"})


class NodeSection(LinkDownKeys):
    """A node of a point-to-point topology, with its N_Port ID."""

    where = "in [[nodes]]"
    elsewhere = {"ports": _ONE_PORT}

    port_id: PortId = key(
        None, "The node's N_Port ID; TOML hex integers work too (0x010200). Left out, the "
        "topology assigns one: point-to-point gives the first node 0x000001 and the second "
        "0x000002, so an ID given to one node must not equal the other's default.",
        "0x010200")


class LoopNodeSection(NodeKeys):
    """A node on an arbitrated loop: an NL_Port. Loop initialisation assigns it an
    AL_PA and the N_Port ID 0x0000 + AL_PA (a private loop), so it takes no
    `port_id`; it may ask for a hard `al_pa` instead."""

    where = "in [[nodes]] of a loop"
    elsewhere = {"ports": _ONE_PORT,
                 "bb_sc_n": "not on a loop: BB credit recovery (BB_SC_N) is for "
                            "point-to-point and fabric links"}

    al_pa: AlPa = key(
        None, "A hard address, unique on the loop. The lower the AL_PA, the higher the "
        "port's priority in arbitration. Nodes without one take the highest-priority "
        "AL_PAs still free, the loop master first (the port with the lowest Port_Name, "
        "derived from the node names).", "0x01")
    fairness: Flag = key(
        True, "A fair port that won the loop may not arbitrate again until the loop has "
        "been seen with no port arbitrating, and closes its tenancy as soon as another "
        "port's ARB reaches it; an unfair port does neither.", False)
    repeat_delay: Words = key(
        None, "How long this port holds each word it only repeats, transmission words "
        "(default: the loop's repeat_delay).", 6)
    login_credit: LoginCredit = key(
        0, "The BB credit the port announces at login: frames another port may send it "
        "right after OPN. With 0 (typical of FC-AL disks) the opener waits for the R_RDYs "
        "the port sends for its free buffers.", 2)
