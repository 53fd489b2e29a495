"""The Trapeze card's cut-through delivery at its edges: a packet cut short by
a link fault while it arrives is dropped (none of its bytes is moved to host
memory), and the card goes on with the messages after it."""

from __future__ import annotations

from fcsim.trapeze.message import CONTROL
from fcsim.trapeze.netrpc import READ, Call
from tests.builders import trapeze_pair


def test_a_packet_cut_short_while_it_arrives_is_dropped_and_the_card_goes_on() -> None:
    sim, client, server = trapeze_pair()
    server.handler = server.reply
    nic = client.card.nic
    handled = nic.on_arriving
    cut: list[object] = []

    def arriving(packet) -> None:
        handled(packet)  # type: ignore[misc]
        if packet.payload > 1000 and not cut:  # the reply's first fragment: cut it
            cut.append(packet)
            sim.call_later(3e-6, lambda _e: nic.port.set_light(False))
            sim.call_later(4e-6, lambda _e: nic.port.set_light(True))
    nic.on_arriving = arriving
    done: list[Call] = []
    client.call("s", READ, 0, 8192, done.append)
    sim.call_later(1e-3, lambda _e: client.call("s", READ, 8192, 8192, done.append))
    sim.run(0.01)
    assert nic.link_down_drops == 1
    # cut before the smallest transfer was in: nothing of it reached host memory
    dropped = cut[0].payload  # type: ignore[attr-defined]
    assert client.card.stats.dma_bytes == 2 * (8192 + CONTROL) - dropped
    assert [c.offset for c in done][-1] == 8192  # the next call is answered whole
    assert done[-1].reply_in == done[-1].reply_parts == 1
