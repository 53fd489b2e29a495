"""Trapeze and Slice's block I/O against closed forms: a NetRPC round trip of
control messages is the two messages' times and the server's; a page sent
whole crosses the sender's bus, its card, the link, the receiver's card and
bus in turn, and adaptive pipelining overlaps them; with cut-through
delivery the receiving card handles a packet as it begins to arrive and
its bus starts on a page once the smallest transfer is in, then never
idles; a client reading from a server's memory runs at its own bus's rate;
the Slice file's processor time per call is the model's costs."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.myrinet.packet import TYPE, packet_chars
from fcsim.resources import SOURCE_ROOT
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.trapeze.message import CONTROL, MIN_FRAGMENT, PAYLOAD_MAX
from fcsim.trapeze.netrpc import READ, Call
from tests.builders import CLIENT, SERVER, slice_network, trapeze_pair

TAU = speed_named("Myrinet-1280").char_time
DELAY = 3.0 * 5e-9  # 3 m of cable at 5 ns/m


def _one_way(sender, receiver, payload: int, cut_through: bool = True) -> float:
    """A message sent whole: the sender's processor, the control message written
    over its bus, the payload fetched by one DMA, the card, the link, the
    receiver's card, one DMA of all of it, the interrupt and the handler. With
    cut-through the receiving card's time runs while the packet arrives (it is
    all in before a transfer of less than the smallest one starts)."""
    fetch = sender.bus_overhead + payload / sender.bus_bandwidth if payload else 0.0
    arriving = packet_chars(payload + CONTROL) * TAU
    card = (max(receiver.adapter_frame_time, arriving) if cut_through
            else arriving + receiver.adapter_frame_time)
    return (sender.message_send + sender.bus_overhead + CONTROL / sender.bus_bandwidth + fetch
            + sender.adapter_frame_time + DELAY + card + receiver.bus_overhead
            + (payload + CONTROL) / receiver.bus_bandwidth
            + receiver.interrupt + receiver.message_receive)


def _round_trip(length: int, min_fragment: int = 1408, cut_through: bool = True,
                receive_min: int | None = None) -> tuple[float, int]:
    """A read of *length* bytes from the server's handler: its time from the
    call to the reply's last message handled, s, and the client card's DMA
    transfers."""
    sim, client, server = trapeze_pair(min_fragment, cut_through, receive_min)
    server.handler = server.reply
    done: list[Call] = []
    client.call("s", READ, 0, length, done.append)
    sim.run(0.01)
    (call,) = done
    assert call.reply_in == call.reply_parts == max(1, -(-length // PAYLOAD_MAX))
    return call.completed - call.issued, client.card.stats.dma_transfers  # type: ignore[operator]


def test_a_control_message_round_trip_is_two_message_times() -> None:
    """A read of nothing: a control message each way, the server answering in
    its handler at once."""
    for cut_through in (False, True):
        expected = (_one_way(CLIENT, SERVER, 0, cut_through)
                    + _one_way(SERVER, CLIENT, 0, cut_through))
        assert _round_trip(0, cut_through=cut_through)[0] == pytest.approx(expected, abs=1e-12)


def test_a_page_sent_whole_crosses_each_stage_in_turn() -> None:
    """With transfers of a whole page (no pipelining) and store and forward on
    the cards, the reply's page goes through the server's bus, its card, the
    link, the client's card and bus one after the other."""
    expected = _one_way(CLIENT, SERVER, 0, False) + _one_way(SERVER, CLIENT, 8192, False)
    assert _round_trip(8192, min_fragment=8192, cut_through=False)[0] == pytest.approx(
        expected, abs=1e-12)


@pytest.mark.parametrize("receive_min", [None, 128, 512])
def test_cut_through_starts_the_client_bus_on_a_page_as_it_arrives(
        receive_min: int | None) -> None:
    """A lone page pipelined in the smallest send transfers and delivered cut
    through: the server's bus fetches the first transfer, its card sends it,
    the client's card handles the packet as its first character arrives and
    its bus starts once the smallest receive transfer is in (to within a
    character: the card counts whole bytes); from then on the client's bus,
    the slowest stage, never waits, so the page and its control message take
    its set-ups and its bytes back to back, then the interrupt and handler."""
    smallest = MIN_FRAGMENT if receive_min is None else receive_min
    piped, transfers = _round_trip(8192, receive_min=receive_min)
    reply_start = (SERVER.message_send + 2 * SERVER.bus_overhead
                   + (CONTROL + MIN_FRAGMENT) / SERVER.bus_bandwidth
                   + SERVER.adapter_frame_time + DELAY
                   + max(CLIENT.adapter_frame_time, (TYPE + smallest) * TAU))
    expected = (_one_way(CLIENT, SERVER, 0) + reply_start + transfers * CLIENT.bus_overhead
                + (PAYLOAD_MAX + CONTROL) / CLIENT.bus_bandwidth
                + CLIENT.interrupt + CLIENT.message_receive)
    assert piped == pytest.approx(expected, abs=TAU)
    assert transfers >= 2  # the first starts before the page is all in
    assert piped < _round_trip(8192, receive_min=receive_min, cut_through=False)[0]


def test_adaptive_pipelining_overlaps_the_stages_of_a_lone_page() -> None:
    """In 1408-byte transfers, the link and the client's bus start on the page's
    first bytes while the rest crosses the server's bus: the round trip is
    shorter than whole by more than the page's time on the link (52 us) less
    the set-ups the extra transfers cost, and longer than its slowest stage
    (the client's bus) plus the request."""
    whole = _round_trip(8192, min_fragment=8192, cut_through=False)[0]
    piped = _round_trip(8192, cut_through=False)[0]
    link = packet_chars(8192 + CONTROL) * TAU
    transfers = -(-8192 // 1408)
    setups = 2 * transfers * (SERVER.bus_overhead + SERVER.adapter_frame_time)
    assert piped < whole - link + setups
    slowest = CLIENT.bus_overhead + (8192 + CONTROL) / CLIENT.bus_bandwidth
    assert piped > _one_way(CLIENT, SERVER, 0) + slowest


def test_reading_from_server_memory_runs_at_the_client_bus_rate() -> None:
    """A server holding the file in memory answers every 128 KiB cluster with 16
    whole pages; the client's bus moves each page and its control message in
    one DMA, and writes each request's control message: busy all the time,
    it sets the rate."""
    sim, slice_, hosts = slice_network("read")
    slice_.servers["s1"].cache.capacity = 10**9
    slice_.servers["s1"].cache.insert(0, 512 * 2**20)
    sim.run(0.05)
    slice_.reset_stats()
    hosts["c"].reset_stats()
    sim.run(0.35)
    (figures,) = slice_.results(0.3)["jobs"].values()
    per_cluster = (16 * (CLIENT.bus_overhead + (PAYLOAD_MAX + CONTROL) / CLIENT.bus_bandwidth)
                   + CLIENT.bus_overhead + CONTROL / CLIENT.bus_bandwidth)
    assert figures["throughput_bytes_per_s"] == pytest.approx(131072 / per_cluster, rel=0.005)
    assert hosts["c"].bus.busy_time / 0.3 > 0.99
    server = slice_.servers["s1"].results()
    assert server["cache_hits"] == server["requests"]  # every request answered from memory
    assert 0 <= slice_.rpc["c"].calls - server["requests"] <= 4  # the rest on their way


@pytest.mark.parametrize("direction", ["read", "write"])
def test_the_client_processor_time_is_the_model_s_costs(direction: str) -> None:
    """The client's processor time over a steady dd: per 64 KiB call the system
    call and eight 8 KB page remaps (read) or the copy of its bytes (write),
    and a wake-up per call that waited; per message sent and received the
    NetRPC costs, and an interrupt per drain of the receive ring (within one
    call's and a few messages' costs at the interval's edges)."""
    sim, slice_, hosts = slice_network(direction, servers=2)
    sim.run(0.05)
    slice_.reset_stats()
    hosts["c"].reset_stats()
    sim.run(0.25)
    (figures,) = slice_.results(0.2)["jobs"].values()
    card, rpc = slice_.cards["c"].stats, slice_.rpc["c"].results()
    data = 8 * CLIENT.page_remap if direction == "read" else 65536 * CLIENT.copy_per_byte
    per_call = CLIENT.syscall + data
    expected = (figures["ios"] * per_call + figures["blocked_calls"] * CLIENT.context_switch
                + card.messages_tx * CLIENT.message_send
                + card.messages_rx * CLIENT.message_receive
                + rpc["interrupts"] * CLIENT.interrupt)
    assert hosts["c"].cpu.busy_time == pytest.approx(expected, abs=per_call + 2e-4)


def test_a_page_fault_is_its_path_through_the_model_in_closed_form() -> None:
    """SLICE-FAULT's scenario, a few faults: each is the trap, the getpage call
    (NetRPC's send, its control message over the client's bus, the card), the
    cables and the switch (a route byte and the routing decision), the
    server's card taking the request as it arrives, its DMA, interrupt and
    handler, the reply's send, control message and first 1408-byte fetch,
    its card, the cables and switch again, the client's card or the smallest
    receive transfer's arrival, then the client's bus busy without a pause
    (one set-up per transfer, the page and its control message at its rate),
    the interrupt, the continuation and the process's wake-up: the figure the
    claim judges, from the models' own values (to within a character time
    per packet: the card counts whole bytes)."""
    scenario = load_scenario(SOURCE_ROOT / "scenarios" / "slice" / "fault-8k-page.toml")
    (job,) = scenario.workloads
    faults = 5
    scenario = dataclasses.replace(scenario, workloads=(dataclasses.replace(
        job, options=dataclasses.replace(job.options, count=faults)),))
    result = run_scenario(scenario)["repetitions"][0]
    client, server = (n.host for n in scenario.nodes)
    latency = scenario.switches[0].model.latency
    tau = scenario.links[0].speed.char_time
    path = 2 * scenario.links[0].cable.delay + tau + latency  # cable, switch, cable
    transfers = result["storage"]["trapeze"]["client"]["dma_transfers"] / faults
    request = (client.syscall + client.message_send + client.bus_overhead
               + CONTROL / client.bus_bandwidth + client.adapter_frame_time + path
               + max(server.adapter_frame_time, packet_chars(CONTROL) * tau)
               + server.bus_overhead + CONTROL / server.bus_bandwidth
               + server.interrupt + server.message_receive)
    reply = (server.message_send + 2 * server.bus_overhead
             + (CONTROL + MIN_FRAGMENT) / server.bus_bandwidth + server.adapter_frame_time
             + path + max(client.adapter_frame_time, (TYPE + MIN_FRAGMENT) * tau)
             + transfers * client.bus_overhead + (PAYLOAD_MAX + CONTROL) / client.bus_bandwidth
             + client.interrupt + client.message_receive + client.context_switch)
    figures = result["storage"]["jobs"]["faults"]
    assert figures["ios"] == faults
    assert figures["latency_s"]["mean"] == pytest.approx(request + reply, abs=2 * tau)
