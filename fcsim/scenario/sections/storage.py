"""The ``[[workloads]]`` tables of block storage: fio jobs and dd, run by a
node's FCP initiator against a node that is an FCP target (``target`` in
``[[nodes]]``)."""

from __future__ import annotations

from typing import Literal

from fcsim.schema.fields import Count, Name, OneOrMoreNames, Time, choice, integer, size, time
from fcsim.schema.section import Section, key
from fcsim.workload.fio import RW_MODES

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
                           "(ABTS) and sent again (default: Linux sd's 30 s).", "1 s")
    start: Time = key("0 s", "When the job starts (after PRLI with the target), s.", "1 ms")


class FioSection(_Block):
    """An fio job against the target's logical unit: `numjobs` jobs, each with
    `iodepth` commands outstanding, sequential or random, reporting IOPS,
    throughput and completion-latency percentiles."""

    where = "with type = 'fio'"

    type: Literal["fio"] = key(help="An fio job.")
    rw: Rw = key(help="Access pattern, fio --rw.", example="randread")
    bs: BlockSize = key("4 KiB", "Bytes per command, fio --bs.", "64 KiB")
    iodepth: Count = key(1, "Commands outstanding per job, fio --iodepth; at most the "
                         "target's queue depth.", 32)
    numjobs: Count = key(1, "Jobs, fio --numjobs.", 4)
    rwmixread: Percent = key(50, "Percent reads of randrw, fio --rwmixread.", 70)
    offset: Offset = key(0, "Start of the region addressed, bytes, fio --offset.", "1 GiB")
    size: Region = key(None, "Bytes of the region addressed, fio --size (default: to the end "
                       "of the device).", "8 GiB")
    count: Count = key(None, "Commands per job, fio --number_ios (default: until the run "
                       "ends).", 1000)


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
