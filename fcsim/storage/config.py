"""Block storage in a scenario: the ``[[nodes.channels]]`` tables (disk
channels on a node, with their disks), the ``[nodes.block]`` table (the
node's block layer), and the ``[[workloads]]`` tables of block storage (fio
jobs and dd, run by a node's FCP initiator against a node that is an FCP
target, ``target`` in ``[[nodes]]``, or against the node's own disks), with
:class:`FioConfig`, such a job as a typed value in SI units that
:class:`fcsim.storage.build.Storage` builds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from fcsim.schema.fields import (
    Count,
    Flag,
    Name,
    OneOrMoreNames,
    PositiveTime,
    Time,
    choice,
    integer,
    is_int,
    size,
    time,
    value_type,
)
from fcsim.schema.section import Section, key
from fcsim.storage.channel_model import load_channel_model
from fcsim.storage.device_model import load_disk_model
from fcsim.storage.path_selector import SELECTORS
from fcsim.units import UnitError, parse_time
from fcsim.workload.fio import RW_MODES, FioOptions

BlockSize = size(512, text="a size with a unit such as '4 KiB', a whole number of 512-byte "
                           "blocks, >= 512 B")
Region = size(512, text="a size with a unit such as '1 GiB', >= 512 B")
Offset = size(0)
Rw = choice({mode: mode for mode in RW_MODES})
Percent = integer(0, 100, "an integer 0..100 (percent)")
FcpClass = integer(2, 3, "a class of service for FCP: 2 or 3")
Timeout = time(above=True)
Direction = choice({"read": "read", "write": "write"})
Blocks = integer(0, text="an integer >= 0 (blocks of bs)")
Protocol = choice({"fcp": "fcp", "nvme": "nvme"})
QueueSize = integer(2, 65536, "an integer 2..65536 (submission queue entries)")
FirstBurst = size(0, text="a size with a unit such as '8 KiB' (0: no first burst)")
Lun = integer(0, 16383, "an integer 0..16383 (a SCSI LUN; FCP_LUN's flat space addressing)")
Nsid = integer(1, 0xFFFFFFFE, "an integer 1..4294967294 (an NVMe namespace ID)")
Depths = value_type(tuple, lambda v: _depths(v), "an integer >= 1 (commands), or a non-empty "
                    "list of them (a sweep)", {"anyOf": [
                        {"type": "integer", "minimum": 1},
                        {"type": "array", "items": {"type": "integer", "minimum": 1},
                         "minItems": 1}]})
Grain = size(512, text="a size with a unit such as '32 KiB', a whole number of 512-byte "
                       "blocks, >= 512 B")


class _Block(Section):
    """Keys of every block workload: it runs from an initiator to a target."""

    name: Name = key(None, "The workload's name, unique among workloads (default: "
                     "workload<i>).", "randread")
    type: str = key(help="The kind of workload.")
    source: Name = key(alias="from", help="The node issuing the commands (its FCP "
                       "initiator).", example="host")
    destination: OneOrMoreNames = key(alias="to", help="The FCP target node (a node with target), "
                               "or a list of them: a volume striped over them in grains of "
                               "stripe bytes, round robin.", example="array")
    stripe: Grain = key(None, "The stripe grain of a volume over several targets, bytes "
                        "(the Slice client stripes 32 KiB).", "32 KiB")
    cls: FcpClass = key(3, "The class of service of the exchanges.", 2, alias="class")
    timeout: Timeout = key("30 s", "Command timeout, s: an unanswered command is aborted "
                           "(ABTS) and sent again (default: Linux sd's 30 s; over FC-NVMe "
                           "the host's NVMe io_timeout, also 30 s).", "1 s")
    start: Time = key("0 s", "When the job starts (after PRLI with the target), s.", "1 ms")


class FioSection(_Block):
    """An fio job against the target's logical unit: `numjobs` jobs, each with
    `iodepth` commands outstanding, sequential or random, reporting IOPS,
    throughput and completion-latency percentiles."""

    where = "with type = 'fio'"

    type: Literal["fio"] = key(help="An fio job.")
    rw: Rw = key(help="Access pattern, fio --rw.", example="randread")
    bs: BlockSize = key("4 KiB", "Bytes per command, fio --bs.", "64 KiB")
    iodepth: Depths = key(1, "Commands outstanding per job, fio --iodepth; at most the "
                          "target's queue depth; or a list of them: a sweep, one run per "
                          "depth (the report's table has a row each).", [1, 8, 64])
    numjobs: Count = key(1, "Jobs, fio --numjobs.", 4)
    rwmixread: Percent = key(50, "Percent reads of randrw, fio --rwmixread.", 70)
    offset: Offset = key(0, "Start of the region addressed, bytes, fio --offset.", "1 GiB")
    size: Region = key(None, "Bytes of the region addressed, fio --size (default: to the end "
                       "of the device).", "8 GiB")
    count: Count = key(None, "Commands per job, fio --number_ios (default: until the run "
                       "ends).", 1000)
    protocol: Protocol = key("fcp", "The storage protocol: 'fcp' (SCSI over FC, FCP) or "
                             "'nvme' (NVMe over FC, FC-NVMe, in Class 3; its results add "
                             "the p99.9 latency).", "nvme")
    queues: Count = key(None, "protocol = 'nvme' only: I/O connections (NVMe queue pairs) "
                        "to each target, commands spread round robin over them (default: "
                        "numjobs, as Linux gives each CPU its queue).", 4)
    queue_size: QueueSize = key(128, "protocol = 'nvme' only: entries the host asks of each "
                                "I/O connection (the target grants at most its MQES); no more "
                                "commands are outstanding on it, the rest wait at the host "
                                "(default: Linux's NVMF_DEF_QUEUE_SIZE, 128).", 32)
    lun: Lun = key(0, "protocol = 'fcp' only: the logical unit addressed on each target, "
                   "a LUN 0 .. the target's namespaces - 1.", 2)
    namespace: Nsid = key(1, "protocol = 'nvme' only: the namespace addressed on each "
                          "target, an NSID 1 .. the target's namespaces.", 2)
    first_burst: FirstBurst = key(0, "protocol = 'nvme' only: the first burst the host offers "
                                  "at PRLI, bytes: that much of each write goes with its "
                                  "command, without waiting for a transfer ready (0: none).",
                                  "8 KiB")


class DdSection(_Block):
    """dd between the target's logical unit and memory, data not touched: `read`
    is `dd if=/dev/sdX of=/dev/null bs=BS count=N skip=K`, `write` is
    `dd if=/dev/zero of=/dev/sdX bs=BS count=N seek=K`; one command at a time
    from K blocks of BS into the device (its start by default): a disk's zone
    there sets the media rate. Reports the bytes moved and the elapsed time."""

    where = "with type = 'dd'"

    type: Literal["dd"] = key(help="dd.")
    direction: Direction = key(help="Read from the target or write to it.", example="read")
    bs: BlockSize = key("512 B", "Bytes per command, dd bs= (dd's default 512).", "64 KiB")
    count: Count = key(help="Commands, dd count=.", example=1000)
    skip: Blocks = key(0, "direction = 'read' only: blocks of bs skipped at the start of the "
                       "device before reading, dd skip= (the device is dd's input).", 100000)
    seek: Blocks = key(0, "direction = 'write' only: blocks of bs skipped at the start of the "
                       "device before writing, dd seek= (the device is dd's output).", 100000)

    @property
    def offset(self) -> int:
        """Where on the device the first command starts, bytes."""
        return (self.skip + self.seek) * self.bs


def _depths(value: Any) -> tuple[int, ...]:
    items = value if isinstance(value, list) and value else [value]
    if not all(is_int(v) and v >= 1 for v in items):
        raise ValueError()
    return tuple(items)


def _channel_model(value: Any) -> Any:
    if not (isinstance(value, str) and value.strip()):
        raise ValueError()
    return load_channel_model(value)


def _disks(value: Any) -> tuple[Any, ...]:
    if not (isinstance(value, list) and value
            and all(isinstance(v, str) and v.strip() for v in value)):
        raise ValueError()
    return tuple(load_disk_model(v) for v in value)


def _ids(value: Any) -> tuple[int, ...]:
    if not (isinstance(value, list) and value and all(is_int(v) and 0 <= v <= 15
                                                      for v in value)
            and len(set(value)) == len(value)):
        raise ValueError()
    return tuple(value)


ChannelName = value_type(object, _channel_model, "the name of a disk channel model in "
                         "models/disk-channels/ or a model file ending in .toml",
                         {"type": "string", "minLength": 1})
DiskModels = value_type(tuple, _disks, "a non-empty list of disk model names from "
                        "models/disks/ (or model files ending in .toml), one per disk",
                        {"type": "array", "items": {"type": "string", "minLength": 1},
                         "minItems": 1})
Addresses = value_type(tuple, _ids, "a non-empty list of distinct addresses 0..15, one per "
                       "disk (SCSI IDs; ATA: 0 master, 1 slave)",
                       {"type": "array", "items": {"type": "integer", "minimum": 0,
                                                   "maximum": 15},
                        "minItems": 1, "uniqueItems": True})
AdapterId = integer(0, 15, "a SCSI ID 0..15")
Depth = integer(1, text="an integer >= 1 (commands)")
Largest = size(512, text="a size with a unit such as '128 KiB', >= 512 B")
Order = choice({"elevator": True, "fifo": False})
LocalNames = value_type(tuple, lambda v: _local_names(v), "a disk name such as 'scsi0.0', or "
                        "a list of distinct ones", {"anyOf": [
                            {"type": "string", "minLength": 1},
                            {"type": "array", "items": {"type": "string", "minLength": 1},
                             "minItems": 1, "uniqueItems": True}]})
"""Disks of the node's own channels, by name ('scsi0.0'), one or several."""
PortNames = value_type(tuple, lambda v: _local_names(v), "an N_Port name of the node such as "
                       "'array.1', or a list of distinct ones", {"anyOf": [
                           {"type": "string", "minLength": 1},
                           {"type": "array", "items": {"type": "string", "minLength": 1},
                            "minItems": 1, "uniqueItems": True}]})
"""N_Ports of the node, by name ('array', 'array.1'), one or several."""


def _local_names(value: Any) -> tuple[str, ...]:
    names = value if isinstance(value, list) else [value]
    if not (names and all(isinstance(n, str) and n.strip() for n in names)
            and len(set(names)) == len(names)):
        raise ValueError()
    return tuple(names)


class ChannelSection(Section):
    """A disk channel of the node (a SCSI bus, an ATA channel) and the disks on
    it. Its disks are named `<channel>.<address>` (`scsi0.0`: SCSI ID 0 on
    `scsi0`); a job on the node addresses them with `to`, and `target_disks`
    serves them over FC. When the node has a host, the channel's adapter moves
    every byte over the host's I/O bus."""

    where = "in [[nodes.channels]]"

    name: Name = key(help="The channel's name, unique on its node; its disks are named "
                     "<name>.<address>.", example="scsi0")
    model: ChannelName = key(help="The channel: a model in models/disk-channels/ "
                             "(ultra-scsi, ultra-wide-scsi, ultra-ata-33) or a model file "
                             "path ending in .toml.", example="ultra-wide-scsi")
    disks: DiskModels = key(help="The disks on the channel, one disk model each, in "
                            "address order.", example=["seagate-medalist-pro-st39140w"])
    ids: Addresses = key(None, "Each disk's address: its SCSI ID (arbitration priority "
                         "7 highest .. 0, then 15 .. 8) or ATA 0 master / 1 slave "
                         "(default: 0, 1, 2, ... skipping the host adapter's ID).", [0, 1])
    adapter_id: AdapterId = key(7, "SCSI only: the host adapter's SCSI ID (7, the highest "
                                "priority, as adapters are usually set).", 7)


class BlockSection(Section):
    """The node's block layer: one request queue per device its jobs (or its
    target) address, merging adjacent requests and cutting large ones (see
    docs/storage.md)."""

    where = "in [nodes.block]"

    queue_depth: Depth = key(None, "Commands the block layer gives each device at once; "
                             "the rest wait in the queue, where they may merge (default: a "
                             "local disk's own queue depth; an FCP target: no limit).", 32)
    max_request: Largest = key(None, "The largest request, bytes: longer ones are cut, merges "
                               "stop there (default: 128 KiB, FreeBSD's MAXPHYS, for local "
                               "disks; no limit for FCP targets).", "128 KiB")
    merge: Flag = key(True, "Merge a request into a waiting one it continues (same "
                      "direction, adjacent).", False)
    order: Order = key("elevator", "The order waiting requests go to the device: 'elevator' "
                       "(one-way, C-LOOK, as FreeBSD's bufqdisksort) or 'fifo'.", "fifo")


FAILOVER = "failover"
MULTIBUS = "multibus"
GROUP_BY_PRIO = "group_by_prio"
GROUPING_POLICIES = (FAILOVER, MULTIBUS, GROUP_BY_PRIO)
"""multipath.conf's path_grouping_policy values modelled."""
IMMEDIATE = "immediate"
MANUAL = "manual"
QUEUE = "queue"
FAIL = "fail"
MARGINAL_OFF = "off"
MARGINAL_FPIN = "fpin"
IOPOLICY_NUMA = "numa"
IOPOLICY_RR = "round-robin"
IOPOLICY_QUEUE_DEPTH = "queue-depth"
IOPOLICIES = (IOPOLICY_NUMA, IOPOLICY_RR, IOPOLICY_QUEUE_DEPTH)
"""The I/O policies of Linux's NVMe multipath (nvme_core ``iopolicy``)."""
OPTIMIZED = "optimized"
NON_OPTIMIZED = "non-optimized"
INACCESSIBLE = "inaccessible"
PERSISTENT_LOSS = "persistent-loss"
CHANGE = "change"
ANA_STATES = (OPTIMIZED, NON_OPTIMIZED, INACCESSIBLE, PERSISTENT_LOSS, CHANGE)
"""The ANA states of a namespace through a controller (NVMe Base
Specification 2.0, 8.1 Asymmetric Namespace Access Reporting), as Linux
names them (``nvme_ana_state_names``)."""


def _failback(value: Any) -> str | float:
    if value in (IMMEDIATE, MANUAL):
        return value  # type: ignore[no-any-return]
    return _positive_time(value)


def _positive_time(value: Any) -> float:
    """*value*, a time with its unit, in s; ValueError unless it is one > 0."""
    if not isinstance(value, str):
        raise ValueError()
    try:
        seconds = parse_time(value)
    except UnitError as error:
        raise ValueError(str(error)) from None
    if not seconds > 0:
        raise ValueError()
    return seconds


def _no_path_retry(value: Any) -> str | int:
    if value in (QUEUE, FAIL):
        return value  # type: ignore[no-any-return]
    if not (is_int(value) and value >= 1):
        raise ValueError()
    return value  # type: ignore[no-any-return]


def _fast_io_fail(value: Any) -> float | None:
    if value == "off":
        return None
    return _positive_time(value)


Grouping = choice({p: p for p in GROUPING_POLICIES})
Selector = choice({s: s for s in SELECTORS})
Failback = value_type(object, _failback, "'immediate', 'manual' or a time with a unit such as "
                      "'30 s', > 0 s (deferred failback)",
                      {"anyOf": [{"type": "string", "enum": [IMMEDIATE, MANUAL]},
                                 {"type": "string"}]})
NoPathRetry = value_type(object, _no_path_retry, "'fail', 'queue' or an integer >= 1 (path "
                         "checks to queue for)",
                         {"anyOf": [{"type": "string", "enum": [QUEUE, FAIL]},
                                    {"type": "integer", "minimum": 1}]})
FastIoFail = value_type(object, _fast_io_fail, "'off' or a time with a unit such as '5 s', "
                        "> 0 s", {"type": "string"})
Marginal = choice({MARGINAL_OFF: MARGINAL_OFF, MARGINAL_FPIN: MARGINAL_FPIN})
IoPolicy = choice({p: p for p in IOPOLICIES})


def _ana_states(value: Any) -> tuple[tuple[str, str], ...]:
    if not (isinstance(value, dict) and value
            and all(isinstance(v, str) and v in ANA_STATES for v in value.values())):
        raise ValueError()
    return tuple(value.items())


AnaStates = value_type(tuple, _ana_states, "a table of N_Port name = ANA state such as "
                       "{ 'array.1' = 'non-optimized' }, each state one of "
                       + ", ".join(map(repr, ANA_STATES)),
                       {"type": "object", "minProperties": 1,
                        "additionalProperties": {"type": "string", "enum": list(ANA_STATES)}})
RepeatCount = integer(1, text="an integer >= 1 (requests)")


class MultipathSection(Section):
    """The node's multipath layer, modelled on Linux dm-multipath and multipathd
    (multipath.conf's keys, their defaults): every block job of the node to an
    FCP target goes to one multipath device over every path to it, each a
    pair (one of the node's N_Ports, one of the target's) in the same fabric.
    See docs/multipath.md."""

    where = "in [nodes.multipath]"

    path_grouping_policy: Grouping = key(
        GROUP_BY_PRIO, "How paths form path groups: 'failover' (one path per group), "
        "'multibus' (all in one group) or 'group_by_prio' (one group per ALUA priority: "
        "active/optimised 50, active/non-optimised 10). Groups are used in priority order, "
        "the next when the current has no usable path (default: group_by_prio, which "
        "multipath.conf's detect_pgpolicy = yes picks for an ALUA array).", "multibus")
    path_selector: Selector = key(
        "service-time", "How a group's paths share its I/O: 'round-robin', 'queue-length' "
        "or 'service-time' (multipath.conf's default).", "round-robin")
    rr_min_io_rq: RepeatCount = key(
        1, "round-robin only: requests sent down a path before the next (multipath.conf's "
        "default 1; current kernels use 1 whatever is given).", 1)
    failback: Failback = key(
        MANUAL, "When I/O returns to a better path group whose path is reinstated: "
        "'immediate', 'manual' (never by itself: only when the current group has no "
        "usable path; multipath.conf's default) or after this long.", "immediate")
    no_path_retry: NoPathRetry = key(
        FAIL, "What I/O does when no path is usable: 'fail' at once (multipath.conf's "
        "default), 'queue' until a path is back, or queue for this many path checks "
        "(polling_interval each) and then fail.", "queue")
    polling_interval: PositiveTime = key(
        "5 s", "How often multipathd's path checker (path_checker tur) looks at a failed "
        "path, and first at a healthy one: it sends a TEST UNIT READY down the path, which "
        "fails the path when it fails or times out and reinstates a failed one when it is "
        "answered GOOD; a healthy path's interval doubles at each check up to "
        "max_polling_interval (multipath.conf's default 5 s).", "1 s")
    max_polling_interval: PositiveTime = key(
        None, "The longest interval between two checks of a healthy path (default: 4 x "
        "polling_interval, multipath.conf's).", "20 s")
    checker_timeout: PositiveTime = key(
        None, "How long the path checker waits for its TEST UNIT READY's answer before it "
        "fails the path (default: the node's SCSI command timeout, its block jobs' timeout, "
        "as multipath.conf's default takes the path's sysfs timeout, Linux sd's 30 s).",
        "10 s")
    checker_tick: PositiveTime = key(
        "1 s", "The period of multipathd's checker loop, which does each check and looks "
        "at the checks in progress (multipathd's is one second, fixed): a TEST UNIT READY "
        "unanswered is found timed out at the loop's first run after checker_timeout, and a "
        "path whose remote port is blocked is looked at again the next run. Give it only to "
        "scale multipathd's timers down with polling_interval and checker_timeout.", "10 ms")
    fast_io_fail_tmo: FastIoFail = key(
        "5 s", "How long after the local link goes down the FC transport fails the I/O "
        "held for a remote port (and the path fails over); 'off': only at the node's "
        "dev_loss_tmo (multipath.conf's default 5 s).", "off")
    marginal_pathgroups: Marginal = key(
        MARGINAL_OFF, "'fpin': a Link Integrity FPIN naming a path's local or remote port "
        "makes the path marginal: it moves to a group of marginal paths used only when no "
        "other path is usable, until its local link goes down and comes back "
        "(multipathd's marginal_pathgroups = fpin; needs [fpin] link_integrity = true, "
        "the fabric's Link Integrity FPINs); 'off' (its default): FPINs change nothing.",
        "fpin")
    iopolicy: IoPolicy = key(
        IOPOLICY_NUMA, "NVMe jobs only (NVMe native multipath, Linux nvme_core's iopolicy): how "
        "the namespace's paths share its commands: 'numa' (Linux's default: every command "
        "on one path, the first usable ANA-optimized one, kept until it is no longer "
        "usable; the model has one NUMA node), 'round-robin' (the usable optimized paths "
        "in turn) or 'queue-depth' (the usable optimized path with the fewest commands "
        "outstanding). Non-optimized paths are used only when no optimized one is usable. "
        "docs/multipath.md.", "round-robin")


CHECKER_TICK = 1.0
"""The period of multipathd's checker loop, s: ``checkerloop``
(``multipathd/main.c``) runs the checks due, then sleeps one second
(``sleep(1)``; with ``strict_timing``, to the next whole second), and
counts each path's interval in these ticks (``pp->tick``)."""
MAX_CHECKINT_FACTOR = 4
"""max_polling_interval's default as a multiple of polling_interval
(multipath-tools ``libmultipath/defaults.h``: MAX_CHECKINT(t) = 4 x t)."""


@dataclass(frozen=True)
class MultipathConfig:
    """A node's multipath layer (see :class:`MultipathSection`): its grouping
    policy, path selector, round-robin repeat count, failback ('immediate',
    'manual' or a delay, s), no_path_retry ('fail', 'queue' or path checks),
    polling interval (s), fast_io_fail_tmo (s; None: off), marginal path
    handling ('off' or 'fpin'), dev_loss_tmo (s, the node's), the NVMe
    multipath I/O policy (:data:`IOPOLICIES`), the longest interval between
    checks of a healthy path (s; None: 4 x the polling interval), the
    path checker's timeout (s; None: the paths' SCSI command timeout) and
    the period of multipathd's checker loop (s)."""

    path_grouping_policy: str = GROUP_BY_PRIO
    path_selector: str = "service-time"
    rr_min_io_rq: int = 1
    failback: str | float = MANUAL
    no_path_retry: str | int = FAIL
    polling_interval: float = 5.0
    fast_io_fail_tmo: float | None = 5.0
    marginal_pathgroups: str = MARGINAL_OFF
    dev_loss_tmo: float = 60.0
    iopolicy: str = IOPOLICY_NUMA
    max_polling_interval: float | None = None
    checker_timeout: float | None = None
    checker_tick: float = CHECKER_TICK

    @property
    def max_checkint(self) -> float:
        """The longest interval between checks of a healthy path, s
        (multipath-tools' ``MAX_CHECKINT``: 4 x polling_interval unless given)."""
        if self.max_polling_interval is not None:
            return self.max_polling_interval
        return MAX_CHECKINT_FACTOR * self.polling_interval


def unit_capacity(capacity: int, units: int) -> int:
    """Bytes of each of a device's *units* logical units (SCSI LUNs or NVMe
    namespaces): its *capacity* cut into equal parts of whole 512-byte
    blocks (one unit: all of it)."""
    return capacity if units == 1 else capacity // units // 512 * 512


@dataclass(frozen=True)
class NvmeOptions:
    """An fio job's FC-NVMe settings: *queues* I/O connections per target of
    *queue_size* entries asked, and the *first_burst* offered, bytes."""

    queues: int
    queue_size: int = 128
    first_burst: int = 0


@dataclass(frozen=True)
class FioConfig:
    """An fio job from *source* against *destination*: an FCP target node or a
    disk on *source*'s own channels (then no FC is involved),
    with *options*, in Class *cls*; commands time out after *timeout* s; it
    starts at *start* s. A dd is a job of this kind (:attr:`dd`: report it as
    dd does). *stripe_over*: the targets of a volume striped in grains of
    *stripe* bytes (the first is *destination*; empty: one target). *nvme*:
    the job runs NVMe over FC with these settings (None: SCSI over FCP).
    *unit*: the logical unit addressed on each target, a SCSI LUN over FCP
    (from 0) or an NVMe NSID (from 1). *iodepths*: a sweep, one run per
    depth (empty: none; the options' iodepth is the first)."""

    name: str
    source: str
    destination: str
    options: FioOptions
    cls: int = 3
    timeout: float = 30.0
    start: float = 0.0
    dd: bool = False
    stripe_over: tuple[str, ...] = ()
    stripe: int | None = None
    nvme: NvmeOptions | None = None
    unit: int | None = None
    iodepths: tuple[int, ...] = ()

    @property
    def lun(self) -> int:
        """The SCSI LUN addressed (over FCP)."""
        return self.unit if self.unit is not None and self.nvme is None else 0

    @property
    def nsid(self) -> int:
        """The NVMe namespace addressed (over FC-NVMe)."""
        return self.unit if self.unit is not None and self.nvme is not None else 1

    @property
    def targets(self) -> tuple[str, ...]:
        """Every target the job addresses, in stripe order."""
        return self.stripe_over or (self.destination,)
