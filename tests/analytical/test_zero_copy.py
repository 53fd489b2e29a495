"""Zero-copy sockets on the host: with receive page renaming a receiver spends
exactly the remap cost per page where it spent the copy cost per byte, and
only when the segments carry whole pages; send-side mapping likewise, with a
copy-on-write fault per page a process touches."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.apps.netperf import NetperfOptions
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import speed_named
from fcsim.host.copies import PAGE, copy_time, socket_copy_time
from fcsim.host.host_model import load_host_model
from fcsim.runner import run_once
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario
from fcsim.scenario.workload_model import NetperfConfig

GIGE = speed_named("1000BASE-X")
IDEAL = load_host_model("ideal")
COPY, REMAP = 2e-9, 1e-6  # s per byte, s per page
WARMUP, DURATION = 0.2, 0.5


def _stream(sender: object, receiver: object, mtu: int) -> dict:
    nodes = (NodeConfig("h1", host=sender, mtu=mtu), NodeConfig("h2", host=receiver, mtu=mtu))
    link = LinkConfig("l", ("h1", "h2"), GIGE, Cable(10.0))
    test = NetperfConfig("s", "h1", "h2", NetperfOptions(length=10.0), send_sizes=(65536,),
                         sockets=(2**20,))
    return run_once(Scenario("zc", "ethernet", RunConfig(DURATION, WARMUP), nodes, (link,),
                             (test,)), 1)


@pytest.mark.parametrize("zero_copy", [False, True])
def test_receive_page_renaming_costs_the_remap_per_page_instead_of_the_copy(
        zero_copy: bool) -> None:
    """MTU 9000: an MSS of 8192, two whole pages a segment. The receiver's only
    cost is moving the data to the process, so its processor time over the
    interval is the bytes it received times the copy cost, or with zero-copy
    receive the pages times the remap cost (within a segment at each of the
    interval's edges: the ideal receiver reads each segment as it comes)."""
    receiver = dataclasses.replace(IDEAL, copy_per_byte=COPY, page_remap=REMAP,
                                   zero_copy_receive=zero_copy)
    rep = _stream(IDEAL, receiver, 9000)
    interval = DURATION - WARMUP
    received = rep["nodes"]["h2"]["frames_rx"] * 8192  # every data frame carries 8192 bytes
    busy = rep["hosts"]["h2"]["cpu_utilisation"] * interval
    expected = received // PAGE * REMAP if zero_copy else received * COPY
    edge = 2 * 8192 * (REMAP / PAGE if zero_copy else COPY)  # a segment at each edge
    assert busy == pytest.approx(expected, abs=edge)
    assert received > 100e6 * interval  # the wire, not the receiver, is the limit
    other = received * COPY if zero_copy else received // PAGE * REMAP
    assert abs(busy - other) > 10 * edge  # the two costs are told apart


def test_zero_copy_receive_needs_segments_of_whole_pages() -> None:
    """MTU 1500: segments of 1460 bytes land across pages, so every byte is
    copied even with zero-copy receive on."""
    receiver = dataclasses.replace(IDEAL, copy_per_byte=COPY, page_remap=REMAP,
                                   zero_copy_receive=True)
    rep = _stream(IDEAL, receiver, 1500)
    interval = DURATION - WARMUP
    received = rep["nodes"]["h2"]["frames_rx"] * 1460
    busy = rep["hosts"]["h2"]["cpu_utilisation"] * interval
    assert busy == pytest.approx(received * COPY, abs=2 * 1460 * COPY)  # a segment an edge


def test_send_mapping_and_copy_on_write_faults() -> None:
    """A 64 KiB write is 16 pages mapped; 1000 bytes more are copied; a process
    that touches its buffer pays a fault per page; without zero-copy send, or
    with the blanket copy avoidance, the costs are as before."""
    host = dataclasses.replace(IDEAL, copy_per_byte=COPY, send_copy_per_byte=3e-9,
                               page_remap=REMAP, cow_fault=20e-6, zero_copy_send=True)
    n = 16 * PAGE + 1000
    assert socket_copy_time(host, n, True, 1460) == pytest.approx(16 * REMAP + 1000 * 3e-9)
    assert socket_copy_time(host, n, True, 1460, touched=True) == pytest.approx(
        16 * (REMAP + 20e-6) + 1000 * 3e-9)
    assert socket_copy_time(host, n, False, 8192) == n * COPY  # receive side off
    plain = dataclasses.replace(host, zero_copy_send=False)
    assert socket_copy_time(plain, n, True, 8192, touched=True) == n * 3e-9
    blanket = dataclasses.replace(plain, copy_avoidance=True)
    assert socket_copy_time(blanket, n, False, 1460) == copy_time(blanket, n) == 17 * REMAP


def test_a_sender_with_zero_copy_send_spends_the_remap_per_page() -> None:
    sender = dataclasses.replace(IDEAL, copy_per_byte=COPY, page_remap=REMAP,
                                 zero_copy_send=True)
    rep = _stream(sender, IDEAL, 1500)
    interval = DURATION - WARMUP
    sent = rep["nodes"]["h1"]["frames_tx"] * 1460
    busy = rep["hosts"]["h1"]["cpu_utilisation"] * interval
    # writes of 64 KiB, 16 pages each: within a write at each edge of the interval
    assert busy == pytest.approx(sent / PAGE * REMAP, abs=2 * 16 * REMAP)
