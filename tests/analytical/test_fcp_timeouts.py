"""SCSI command timeouts under random frame loss, against their closed form.

In Class 3 a read's attempt times out when its FCP_CMND or its FCP_RSP is
lost: a lost FCP_DATA frame is found when the response arrives (read data
short of FCP_DL) and the command is sent again at once. Each frame is lost
with probability 1 - (1 - p)^(10 x its characters) at bit error rate p, so an
attempt times out with probability

    q = 1 - (1 - P(FCP_CMND lost)) x (1 - P(FCP_RSP lost)),

whatever the queue depth: the count over N attempts is binomial, mean N q,
spread about sqrt(N q). And each timeout or short read has a lost frame of
its own exchange behind it, so together they are at most the frames lost.
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from fcsim.fc2.frame import frame_chars
from fcsim.fc4.fcp import FCP_CMND_SIZE, FCP_RSP_SIZE
from fcsim.runner import run_scenario
from fcsim.storage.config import FioConfig
from fcsim.storage.device_model import load_device_model
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

BER = 1e-5
TIMEOUT = 20e-3
DURATION = 0.4


def _frame_loss(data_len: int) -> float:
    """Probability that a frame with a *data_len*-byte data field is hit."""
    return 1.0 - (1.0 - BER) ** (10 * frame_chars(data_len))


@pytest.mark.parametrize("depth", [1, 4, 32])
def test_command_timeouts_follow_the_loss_of_their_own_frames(depth: int) -> None:
    job = FioConfig("job", "a", "b", FioOptions("randread", 4096, iodepth=depth),
                    timeout=TIMEOUT)
    base = p2p((job,), DURATION, bit_error_rate=BER)
    a, b = base.nodes
    scenario = dataclasses.replace(base, nodes=(a, dataclasses.replace(
        b, target=load_device_model("tms-ramsan"))))
    result = run_scenario(scenario)["repetitions"][0]
    storage = result["storage"]
    initiator = storage["initiators"]["a"]
    # every recovery has a lost frame of its own exchange behind it
    lost = sum(node["dropped_frames"] for node in result["nodes"].values())
    assert initiator["timeouts"] + initiator["short_data"] <= lost
    attempts = storage["queues"]["a"]["b"]["commands"] + initiator["retries"]
    q = 1.0 - (1.0 - _frame_loss(FCP_CMND_SIZE)) * (1.0 - _frame_loss(FCP_RSP_SIZE))
    expected = attempts * q
    assert abs(initiator["timeouts"] - expected) <= 3.0 * math.sqrt(expected) + 1.0, (
        initiator, attempts, expected)
