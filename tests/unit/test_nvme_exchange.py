"""An FC-NVMe connection and its commands frame by frame, as the timeline
shows them: PRLI, Create Association, Create I/O Connection, then writes
with and without first burst and a read, each ended by its response."""

from __future__ import annotations

import dataclasses
import io
import re

from fcsim.fc4.nvme import ersp_ratio
from fcsim.runner import run_once
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import RamDiskModel
from fcsim.trace.timeline import Timeline
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

RAM = RamDiskModel("ram", 2**30, 10e-6, 1e9)


def _labels(rw: str, first_burst: int, count: int = 1, queue_size: int = 128,
            queues: int = 1) -> list[str]:
    job = FioConfig("job", "a", "b", FioOptions(rw, 4096, count=count),
                    nvme=NvmeOptions(queues, queue_size, first_burst))
    base = p2p((job,), 5e-3)
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=RAM)))
    out = io.StringIO()
    run_once(scenario, 1, [Timeline(out)])
    lines = out.getvalue().splitlines()[1:]
    return [m[1] for line in lines if (m := re.search(r"\d+\s{5}(\S.*)$", line))]


def test_login_association_and_connection_come_first_one_round_trip_each() -> None:
    labels = _labels("read", 0, queues=2)
    assert labels[:8] == ["PRLI (NVMe)", "LS_ACC (PRLI NVMe)", "Create Association sqsize 32",
                          "LS_ACC association 1 connection 0",
                          "Create I/O Connection qid 1 sqsize 128",
                          "LS_ACC association 1 connection 1",
                          "Create I/O Connection qid 2 sqsize 128",
                          "LS_ACC association 1 connection 2"]


def test_a_write_without_first_burst_waits_for_a_transfer_ready() -> None:
    labels = _labels("write", 0)[6:]
    assert labels == ["NVMe_CMND Write offset 0 length 4096", "NVMe_XFER_RDY offset 0 burst 4096",
                      "NVMe_DATA offset 0", "NVMe_DATA offset 2112", "NVMe_RSP"]


def test_a_write_within_the_first_burst_sends_its_data_with_the_command() -> None:
    labels = _labels("write", 4096)[6:]
    assert labels == ["NVMe_CMND Write offset 0 length 4096", "NVMe_DATA offset 0",
                      "NVMe_DATA offset 2112", "NVMe_RSP"]


def test_a_write_longer_than_the_first_burst_asks_for_the_rest() -> None:
    labels = _labels("write", 2048)[6:]
    assert labels == ["NVMe_CMND Write offset 0 length 4096", "NVMe_DATA offset 0",
                      "NVMe_XFER_RDY offset 2048 burst 2048", "NVMe_DATA offset 2048",
                      "NVMe_RSP"]


def test_a_read_is_command_data_and_response() -> None:
    labels = _labels("read", 0)[6:]
    assert labels == ["NVMe_CMND Read offset 0 length 4096", "NVMe_DATA offset 0",
                      "NVMe_DATA offset 2112", "NVMe_RSP"]


def test_every_ersp_ratio_th_response_is_an_ersp() -> None:
    size = 10
    ratio = ersp_ratio(size)
    responses = [x for x in _labels("read", 0, count=3 * ratio + 1, queue_size=size)
                 if x.endswith(("NVMe_RSP", "NVMe_ERSP"))]
    assert len(responses) == 3 * ratio + 1
    assert [i + 1 for i, x in enumerate(responses) if x.endswith("NVMe_ERSP")] == [
        ratio, 2 * ratio, 3 * ratio]
