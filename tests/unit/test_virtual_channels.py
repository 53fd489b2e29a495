"""Virtual channels on ISLs: ER_RDY returns one channel's credit, frames are
assigned to channels by destination, and a victim whose channel is not the
slow device's keeps the rate the ISL leaves it."""

from __future__ import annotations

from typing import Any

import pytest

from fcsim.engine.simulation import Simulation
from fcsim.fabric.virtual_channels import ChannelAssignment
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.fc1 import ordered_sets as osets
from fcsim.fc2 import header as h
from fcsim.fc2.frame import FRAMING_BYTES, Frame
from fcsim.fc2.vc_port import VirtualChannelPort
from fcsim.link.link import Link
from fcsim.resources import DATA_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import read_document, scenario_from_document

EXAMPLE = DATA_ROOT / "scenarios" / "fabric-slow-drain-vc.toml"


def _frame(d_id: int, payload: int = 2112) -> Frame:
    return Frame(osets.SOFn3, osets.EOFn, h.R_CTL_UNSOLICITED_DATA, d_id, 0x010000,
                 h.TYPE_VENDOR, 0, 0, 0, 1, 0xFFFF, payload, 3)


class _Channel:
    """A channel's queue at the sender: the frames to send on it."""

    def __init__(self, frames: list[Frame]) -> None:
        self.frames = frames

    def next_frame(self, credit: bool) -> Frame | None:
        return self.frames.pop(0) if credit and self.frames else None

    def waits_for_credit(self) -> bool:
        return bool(self.frames)


class _Owner:
    """A port's owner: its channels when sending; the frames it took in when receiving."""

    def __init__(self, channels: list[_Channel]) -> None:
        self.channels = channels
        self.received: list[Frame] = []

    def next_frame(self, credit: bool) -> Frame | None:
        return self.channels[0].next_frame(credit)

    def waits_for_credit(self) -> bool:
        return self.channels[0].waits_for_credit()

    def frame_received(self, frame: Frame) -> None:
        self.received.append(frame)

    def frame_dropped(self, frame: Frame) -> None:
        self.received.append(frame)


class _Primitives:
    """A trace sink keeping the primitive signals sent."""

    def __init__(self) -> None:
        self.sent: list[tuple[float, str, str, float]] = []

    def frame(self, *args: Any) -> None:
        pass

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        self.sent.append((time, port.name, name, start))


def _pair(sim: Simulation, channels: int, buffers: int, length: float = 1000.0):
    a = VirtualChannelPort(sim, "a", channels, buffers)
    b = VirtualChannelPort(sim, "b", channels, buffers)
    Link("isl", a, b, speed_named("4GFC"), Cable(length))
    a.login(b.channel_buffers)
    b.login(a.channel_buffers)
    return a, b


def test_er_rdy_returns_the_credit_of_its_channel_only() -> None:
    """FC-FS-5's ER_RDY, as R_RDY a primitive signal in the fill words (one
    transmission word), names a virtual channel: freeing the buffer a frame
    holds on channel k sends one ER_RDY for k, which arrives one propagation
    delay after its word and gives back one credit of channel k and none of
    any other. A channel whose credit is spent holds its next frame while
    another channel with credit sends."""
    sim = Simulation(1)
    sink = _Primitives()
    sim.sinks.append(sink)
    a, b = _pair(sim, channels=3, buffers=1)
    assert a.vc_credit == [1, 1, 1] and a.rx_buffers == 3
    on_1 = [_frame(0x030000), _frame(0x030000)]
    on_2 = [_frame(0x030100)]
    a.owner = _Owner([_Channel([]), _Channel(on_1), _Channel(on_2)])
    receiver = b.owner = _Owner([_Channel([]), _Channel([]), _Channel([])])
    a.kick()
    sim.run(50e-6)
    # one frame each on channels 1 and 2; channel 1's second waits for its credit
    assert [f.d_id for f in receiver.received] == [0x030000, 0x030100]
    assert a.vc_credit == [1, 0, 0] and len(on_1) == 1
    assert b.vc_buffers_used == [0, 1, 1]
    assert a.stats.credit_wait == 0.0 and a._vc_stall[1] is not None  # channel 1 waits
    # the receiver frees the channel-2 frame's buffer: one ER_RDY for channel 2
    freed_at = sim.now
    b.release_buffer(0.0, receiver.received[1])
    assert b.vc_buffers_used == [0, 1, 0]
    assert [name for _, port, name, _ in sink.sent if port == "b"] == ["ER_RDY(VC 2)"]
    _, _, _, start = sink.sent[-1]
    assert start == freed_at  # the line was idle: sent in the next word, at once
    assert b.line_free == pytest.approx(start + b.word_time)
    sim.run(freed_at + b.word_time + b.delay * 0.999)
    assert a.current_credit() == 1 and a.vc_credit == [1, 0, 0]  # not yet arrived
    sim.run(freed_at + b.word_time + b.delay * 1.001)
    assert a.vc_credit == [1, 0, 1]  # channel 2's credit back, channel 1 still spent
    assert a.vc_stats[2].er_rdy_rx == 1 and a.vc_stats[1].er_rdy_rx == 0
    assert len(on_1) == 1  # channel 1's frame still held
    b.release_buffer(0.0, receiver.received[0])
    sim.run(sim.now + 50e-6)
    assert len(on_1) == 0 and len(receiver.received) == 3  # it went on channel 1's credit


def test_a_port_with_virtual_channels_sends_no_r_rdy() -> None:
    sim = Simulation(1)
    a, _ = _pair(sim, channels=2, buffers=2)
    with pytest.raises(RuntimeError, match="ER_RDY"):
        a.send_r_rdy()
    with pytest.raises(RuntimeError, match="per channel"):
        a.learn_credit(8)


def test_destination_assignment() -> None:
    """Channel 1 + Area_ID mod the data channels; link control on channel 0;
    with isolation the last channel is kept for the isolated destinations."""
    plain = ChannelAssignment(4)
    assert [plain.channel_for(0x030000 | area << 8) for area in range(5)] == [1, 2, 3, 1, 2]
    isolated: set[int] = set()
    kept = ChannelAssignment(4, isolated=isolated)
    assert [kept.channel_for(0x030000 | area << 8) for area in range(3)] == [1, 2, 1]
    isolated.add(0x0300)
    assert kept.channel_for(0x030000) == 3 and kept.channel_for(0x030100) == 2
    cisco = ChannelAssignment(4, "priority", set())
    assert {cisco.channel_for(0x030000 | area << 8) for area in range(8)} == {3}
    with pytest.raises(ValueError, match="exactly"):
        ChannelAssignment(3, "priority")
    with pytest.raises(ValueError, match="3 virtual channels or more"):
        ChannelAssignment(2, isolated=set())


def _example(rate: float | None = None, channels: int | None = 4) -> dict[str, Any]:
    """The virtual-channel example over 40 ms with one-frame sequences, the
    slow host draining *rate* B/s (its own rate if None), with *channels*
    on each ISL (None: none)."""
    doc = read_document(EXAMPLE)
    doc["run"].update(duration="40 ms", warmup="5 ms")
    for w in doc["workloads"]:
        w["size"] = "2112 B"  # one full frame a sequence: no partial sequence at the ends
    if rate is not None:
        next(n for n in doc["nodes"] if n["name"] == "slow")["rx_drain_rate"] = f"{rate} B/s"
    for link in doc["links"]:
        if "virtual_channels" in link:
            if channels is None:
                for name in ("virtual_channels", "vc_credit", "vc_assignment"):
                    del link[name]
            else:
                link["virtual_channels"] = channels
    results = run_scenario(scenario_from_document(doc, str(EXAMPLE)))
    first = results["repetitions"][0]
    first["rates"] = {name: results["summary"][name]["throughput_bytes_per_s"]["mean"]
                      for name in first["workloads"]}
    first["isl"] = next(link for link in scenario_from_document(doc, str(EXAMPLE)).links
                        if link.name == "isl-core-edge2")
    return first


@pytest.mark.parametrize("rate", [15e6, 40e6, 120e6])
def test_victim_on_its_own_channel_keeps_what_the_isl_leaves_it(rate: float) -> None:
    """With the slow device's flow and the victim's on different channels, the
    frames for "slow" hold only their channel's credit: the victim's frames
    cross the ISLs whenever the line is free, so it gets the ISLs' payload
    rate less the slow flow's r (frames of the same size) - the rate it would
    have if the slow flow were simply a flow of r - while the culprit keeps r."""
    first = _example(rate)
    isl = first["isl"]
    line = isl.speed.baud / 10 * 2112 / (2112 + FRAMING_BYTES + 6 * 4)  # payload B/s, 8b/10b
    assert first["rates"]["to-slow"] == pytest.approx(rate, rel=0.01)
    assert first["rates"]["to-fast"] == pytest.approx(line - rate, rel=0.01)
    culprit, = first["congestion"]["culprits"]
    assert culprit["device"] == "slow" and culprit["victims"] == []
    assert culprit["spreading"] == ["core:1 VC 1", "edge1:30 VC 1"]
    # without virtual channels the victim is held to the culprit's rate
    shared = _example(rate, channels=None)
    assert shared["rates"]["to-fast"] == pytest.approx(rate, rel=0.01)


def test_channel_counters_in_the_results() -> None:
    """Per ISL port and direction, each channel's TxWait and zero-credit
    counts: the slow flow's channel waits, the victim's does not; frames per
    channel add up to the port's, and so do ER_RDYs to its R_RDY count."""
    first = _example()
    tx = first["switches"]["core"]["ports"]["1"]["tx"]
    channels = tx["virtual_channels"]
    assert [c["channel"] for c in channels] == [0, 1, 2, 3]
    assert all(c["credit_login"] == 4 for c in channels)
    assert channels[1]["txwait_fraction"] > 0.5 and channels[1]["credit_zero"] > 0
    assert channels[2]["txwait_s"] == 0.0
    assert sum(c["frames"] for c in channels) == tx["frames"]
    rx = first["switches"]["edge2"]["ports"]["30"]["rx"]["virtual_channels"]
    assert [c["frames"] for c in rx] == [c["frames"] for c in channels]
    assert sum(c["er_rdy_tx"] for c in first["switches"]["edge2"]["ports"]["30"]["tx"][
        "virtual_channels"]) == first["links"]["isl-core-edge2"]["directions"][
        "edge2:30->core:1"]["r_rdy"]


@pytest.mark.parametrize(("edit", "key", "given", "allowed"), [
    (('ends = ["slow", "edge2:0"]', 'ends = ["slow", "edge2:0"]\nvirtual_channels = 4'),
     "links[4].virtual_channels", "given 4", "only on an inter-switch link"),
    (("virtual_channels = 4      # channel 0 (control) and 3 data channels\nvc_credit = 4"
      "             # receive buffers per channel at each end\nvc_assignment = \"destination\"",
      'virtual_channels = 3\nvc_assignment = "priority"'),
     "links[6].virtual_channels", "given 3", "exactly 4"),
    (("virtual_channels = 4      #", "virtual_channels = 1      #"),
     "links[6].virtual_channels", "given 1", "2..64"),
    (('ends = ["fast", "edge2:1"]', 'ends = ["fast", "edge2:1"]\nvc_credit = 3'),
     "links[5].vc_credit", "given 3", "given with virtual_channels"),
    (('name = "core"\nmodel = "generic-nonblocking"', 'name = "core"\nmodel = "ancor-fcs-266-16"'),
     "links[6].virtual_channels", "given 4", "virtual output queues"),
])
def test_bad_channel_keys_are_refused(tmp_path, edit, key, given, allowed) -> None:
    from tests.builders import assert_refused

    base = EXAMPLE.read_text(encoding="utf-8")
    assert_refused(tmp_path, base, edit, key, given, allowed)


@pytest.mark.parametrize("rate", [15e6, 40e6])
def test_a_high_priority_qos_zone_takes_vl1(rate: float) -> None:
    """Cisco's virtual links assigned by priority, no isolation: the stream
    between the members of a high-priority QoS zone takes VL1, the others
    VL3, where the slow device's frames hold the credit; the high-priority
    victim gets the ISL's payload rate less the slow flow's r, every frame of
    it on VL1. With the zone at medium priority it shares VL3 and gets r."""
    path = DATA_ROOT / "scenarios" / "fabric-slow-drain-isolation.toml"

    def run(priority: str) -> dict[str, Any]:
        doc = read_document(path)
        del doc["congestion"]
        doc["run"].update(duration="40 ms", warmup="5 ms")
        for w in doc["workloads"]:
            w["size"] = "2112 B"
        next(n for n in doc["nodes"] if n["name"] == "slow")["rx_drain_rate"] = f"{rate} B/s"
        doc["zones"] = [{"name": "gold", "members": ["array2", "fast"], "priority": priority},
                        {"name": "slow", "members": ["array1", "slow"]},
                        {"name": "local", "members": ["array3", "local"]}]
        scenario = scenario_from_document(doc, str(path))
        results = run_scenario(scenario)
        first = results["repetitions"][0]
        first["rates"] = {name: results["summary"][name]["throughput_bytes_per_s"]["mean"]
                          for name in first["workloads"]}
        return first

    high = run("high")
    line = speed_named("4GFC").baud / 10 * 2112 / (2112 + FRAMING_BYTES + 6 * 4)
    assert high["rates"]["to-slow"] == pytest.approx(rate, rel=0.01)
    assert high["rates"]["to-fast"] == pytest.approx(line - rate, rel=0.01)
    channels = high["switches"]["core"]["ports"]["1"]["tx"]["virtual_channels"]
    fast_frames = high["switches"]["edge2"]["ports"]["1"]["tx"]["frames"]
    assert channels[1]["frames"] == fast_frames and channels[2]["frames"] == 0
    assert high["congestion"]["culprits"][0]["victims"] == []
    medium = run("medium")
    assert medium["rates"]["to-fast"] == pytest.approx(rate, rel=0.01)
