"""Closed forms of NVMe over FC to a flash SSD: a read's latency at queue
depth one is its frames, the link's propagation, the controller and the
flash; at high depth the I/O rate is the smaller of the link's and the
drive's."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import MAX_DATA_FIELD, frame_chars
from fcsim.fc2.port import Port
from fcsim.fc4.nvme import CMD_IU_SIZE, ERSP_SIZE, RSP_SIZE, ersp_ratio
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_scenario
from fcsim.scenario.model import Scenario
from fcsim.storage.config import FioConfig, NvmeOptions
from fcsim.storage.device_model import SsdModel, load_device_model
from fcsim.workload.fio import FioOptions
from tests.builders import p2p

SSD: SsdModel = load_device_model("mqsim-mlc-8ch")  # type: ignore[assignment]
PROPAGATION = 5e-9
"""Propagation delay of a metre of fibre, s (the builders' 1 m link)."""


def nvme_san(options: FioOptions, duration: float, speed: str, warmup: float = 0.0,
             ssd: SsdModel = SSD, nvme: NvmeOptions | None = None) -> Scenario:
    """Host "a" runs the NVMe fio job *options* against "b", an SSD, over *speed*."""
    job = FioConfig("job", "a", "b", options, nvme=nvme or NvmeOptions(1))
    base = p2p((job,), duration, warmup, speed=speed)
    a, b = base.nodes
    return dataclasses.replace(base, nodes=(a, dataclasses.replace(b, target=ssd)))


def storage(scenario: Scenario) -> dict:
    return run_scenario(scenario)["repetitions"][0]["storage"]


def _frames(size: int) -> list[int]:
    """The data fields of a sequence of *size* bytes."""
    full, rest = divmod(size, MAX_DATA_FIELD)
    return [MAX_DATA_FIELD] * full + ([rest] if rest else [])


@pytest.mark.parametrize("speed", ["4GFC", "16GFC"])
def test_a_read_at_depth_one_is_frames_propagation_controller_and_flash(speed: str) -> None:
    """NVMe_CMND out; the controller and one page read and its channel
    transfer; the data frames back to back and, a gap later, the shortened
    response (the first responses of a connection are never the ERSP)."""
    bs = 4096
    count = 5
    result = storage(nvme_san(FioOptions("randread", bs, count=count), 1e-3, speed))
    latency = result["jobs"]["job"]["latency_s"]
    rate = speed_named(speed)
    char, gap = rate.char_time, Port.GAP_WORDS * rate.word_time

    def t(size: int) -> float:
        return frame_chars(size) * char
    data = _frames(bs)
    flash = SSD.controller_latency + SSD.read_latency + bs / SSD.channel_rate
    # the host's line first returns the R_RDY of the frame that let the
    # command go (the previous response, or the last LS_ACC): one word
    expected = (rate.word_time + t(CMD_IU_SIZE) + PROPAGATION + flash
                + sum(t(n) for n in data) + len(data) * gap + t(RSP_SIZE) + PROPAGATION)
    assert count < ersp_ratio(128)
    assert result["jobs"]["job"]["ios"] == count
    assert latency["mean"] == pytest.approx(expected, rel=1e-6)
    assert latency["max"] == pytest.approx(expected, rel=1e-6)


def test_at_high_depth_a_slow_link_sets_the_rate() -> None:
    """4 KiB sequential reads over 1GFC: the target's link direction carries,
    per read, its data frames, the response (an ERSP every ersp_ratio-th)
    and a gap after each; the drive could do far more."""
    bs = 4096
    figures = storage(nvme_san(FioOptions("read", bs, 64), 30e-3, "1GFC", 5e-3))["jobs"]["job"]
    rate = speed_named("1GFC")
    char, gap = rate.char_time, Port.GAP_WORDS * rate.word_time
    ratio = ersp_ratio(128)
    response = ((ratio - 1) * frame_chars(RSP_SIZE) + frame_chars(ERSP_SIZE)) / ratio * char
    per_read = sum(frame_chars(n) * char + gap for n in _frames(bs)) + response + gap
    drive = min(SSD.dies / SSD.read_latency, SSD.channels * SSD.channel_rate / bs)
    link = 1 / per_read
    assert link < drive / 10
    # the rate of the data delivered (commands completed in the interval
    # count some data delivered before it)
    assert figures["throughput_bytes_per_s"] / bs == pytest.approx(min(link, drive), rel=0.01)


def test_at_high_depth_the_flash_channels_set_the_rate() -> None:
    """Sequential 4 KiB reads over 32GFC: consecutive pages sit on
    consecutive channels, so with enough commands outstanding every channel
    is busy: channels x channel rate / block size, below the link's rate and
    the dies' (dies / page read)."""
    bs = 4096
    figures = storage(nvme_san(FioOptions("read", bs, 256), 6e-3, "32GFC", 1e-3,
                               nvme=NvmeOptions(2, 256)))["jobs"]["job"]
    rate = speed_named("32GFC")
    per_read = sum(frame_chars(n) * rate.char_time for n in _frames(bs))
    channels = SSD.channels * SSD.channel_rate / bs
    assert channels < SSD.dies / SSD.read_latency and channels < 1 / per_read
    assert figures["throughput_bytes_per_s"] / bs == pytest.approx(channels, rel=0.01)


def test_at_high_depth_the_hosts_adapter_sets_the_rate() -> None:
    """An ideal host whose FC adapter spends c per command it sends serves at
    most 1 / c NVMe commands a second, as it does SCSI commands: 512-byte
    sequential reads, 64 outstanding, which link and drive would serve far
    faster."""
    command_time = 1 / 35180  # the adapter default (fcsim.host.adapter)
    scenario = nvme_san(FioOptions("read", 512, 64), 40e-3, "16GFC", 10e-3)
    a, b = scenario.nodes
    host = dataclasses.replace(load_host_model("ideal"), adapter_command_time=command_time)
    scenario = dataclasses.replace(scenario, nodes=(dataclasses.replace(a, host=host), b))
    figures = storage(scenario)["jobs"]["job"]
    drive = min(SSD.dies / SSD.read_latency, SSD.channels * SSD.channel_rate / 512)
    assert drive > 3 / command_time
    assert figures["throughput_bytes_per_s"] / 512 == pytest.approx(1 / command_time, rel=0.01)
