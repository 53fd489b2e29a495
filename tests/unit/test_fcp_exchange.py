"""An FCP exchange frame by frame, as the timeline shows it: PRLI, then a write
in bursts of the target's maximum, then a read, each ended by its status."""

from __future__ import annotations

import dataclasses
import io
import re

from fcsim.host.request_queue import SplitMeter
from fcsim.runner import run_once
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import RamDiskModel
from fcsim.trace.timeline import Timeline
from fcsim.workload.fio import DataMeter, FioOptions
from tests.builders import p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9)


def _labels(rw: str, max_burst: int | None) -> list[str]:
    job = FioConfig("job", "a", "b", FioOptions(rw, 16384, count=1))
    base = p2p((job,), 1e-3)
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(
        b, target=RAM, max_burst=max_burst)))
    out = io.StringIO()
    run_once(scenario, 1, [Timeline(out)])
    lines = out.getvalue().splitlines()[1:]
    return [m[1] for line in lines if (m := re.search(r"\d+\s{5}(\S.*)$", line))]


def test_a_write_goes_in_bursts_of_the_targets_maximum() -> None:
    labels = _labels("write", 8192)
    assert labels[:3] == ["PRLI", "LS_ACC (PRLI)", "FCP_CMND WRITE(10) LBA 0 blocks 32"]
    ready = [i for i, text in enumerate(labels) if text.startswith("FCP_XFER_RDY")]
    assert [labels[i] for i in ready] == ["FCP_XFER_RDY offset 0 burst 8192",
                                          "FCP_XFER_RDY offset 8192 burst 8192"]
    data = [text for text in labels if text.startswith("FCP_DATA")]
    assert data == [f"FCP_DATA offset {o}" for o in (0, 2112, 4224, 6336, 8192, 10304,
                                                      12416, 14528)]
    assert labels[-1] == "FCP_RSP GOOD" and labels.count("FCP_RSP GOOD") == 1


def test_a_read_needs_no_transfer_ready() -> None:
    labels = _labels("read", None)
    assert labels[2] == "FCP_CMND READ(10) LBA 0 blocks 32"
    assert not any(text.startswith("FCP_XFER_RDY") for text in labels)
    assert labels[3:] == [f"FCP_DATA offset {o}" for o in range(0, 16384, 2112)] + [
        "FCP_RSP GOOD"]


def test_a_read_goes_in_sequences_of_the_targets_maximum_burst() -> None:
    """The maximum burst size bounds an FCP_DATA IU either way: a 16 KiB read
    from a target whose maximum is 8 KiB comes as two sequences (frames of the
    second restart their count, each at its offset in the command)."""
    labels = _labels("read", 8192)
    assert not any(text.startswith("FCP_XFER_RDY") for text in labels)
    data = [text for text in labels if text.startswith("FCP_DATA")]
    assert data == [f"FCP_DATA offset {o}" for o in (0, 2112, 4224, 6336, 8192, 10304,
                                                      12416, 14528)]
    assert labels[-1] == "FCP_RSP GOOD" and labels.count("FCP_RSP GOOD") == 1


def test_a_merged_commands_data_is_shared_out_in_offset_order() -> None:
    """A command serving three merged requests gives each the payload of its
    range as frames arrive (in increasing relative offset), and takes it back
    in reverse when an abandoned attempt's frames are taken back."""
    first, third = DataMeter(), DataMeter()
    split = SplitMeter([(3000, first), (1000, None), (2000, third)])
    for payload in (2112, 2112, 1776):
        split.payload += payload
    assert (first.payload, third.payload) == (3000, 2000)
    split.payload -= 3000
    assert (first.payload, third.payload) == (3000, 0)
