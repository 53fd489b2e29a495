"""Relayed transfers and hosts on several networks: a transfer between two hosts
runs at TCP's goodput on the wire; a relay's copy loop (one buffer) alternates
its two hops, two buffers overlap them; a host reaches a peer over the first
network both are on unless a static route names another; bytes are conserved
through a relay to and from an FCP target."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcsim.runner import run_scenario
from fcsim.scenario.loader import scenario_from_document
from fcsim.transport.tcp_config import TcpConfig
from tests.fabric_text import run, star, switches, table

GIGE_CHARS = 125e6
"""Characters (data bytes) per second of 1000BASE-X."""


def _goodput(mtu: int) -> float:
    """TCP's payload rate over Gigabit Ethernet, bytes/s: each full segment of MSS
    bytes costs MSS + 40 (IP, TCP) + 38 (preamble, MAC header, FCS, gap)."""
    mss = TcpConfig(sndbuf=2**20, rcvbuf=2**20, mtu=mtu).interface_mss
    return mss / (mss + 78) * GIGE_CHARS


def _hosts(*names: str, mtu: int = 9000) -> str:
    return "".join(f'[[nodes]]\nname = "{n}"\nhost = "ideal"\nmtu = {mtu}\n\n' for n in names)


def _lan(name: str, a: str, b: str) -> str:
    return (f'[[networks]]\nname = "{name}"\ntopology = "ethernet"\n\n[[networks.links]]\n'
            f'ends = ["{a}", "{b}"]\nspeed = "1000BASE-X"\nlength = "10 m"\n\n')


def _transfer(path: list[str], size: str, block: str, socket: str, buffers: int) -> str:
    return (f'[[workloads]]\nname = "t"\ntype = "transfer"\npath = {path!r}\nsize = "{size}"\n'
            f'block = "{block}"\nsocket = "{socket}"\nbuffers = {buffers}\n'.replace("'", '"'))


def _run(text: str, duration: str = "2 s") -> dict:
    document = tomllib.loads(f'topology = "internetwork"\n[run]\nduration = "{duration}"\n\n'
                             + text)
    return run_scenario(scenario_from_document(document, "test.toml"))["repetitions"][0]


def _steady_rate(text: str, sizes: tuple[int, int] = (16, 48)) -> float:
    """Bytes/s of the transfer *text* makes (size given as {size}) in steady
    state: the extra bytes of the larger over the extra time it takes, which
    leaves out the start (slow start from one segment, the first delayed ACK)."""
    times = []
    for mib in sizes:
        t = _run(text.format(size=f"{mib} MiB"))["transfers"]["t"]
        assert t["finished"] and t["bytes"] == mib * 2**20
        times.append(t["elapsed_s"])
    return (sizes[1] - sizes[0]) * 2**20 / (times[1] - times[0])


def test_a_transfer_between_two_hosts_runs_at_tcp_goodput() -> None:
    text = (_hosts("a", "b") + _lan("lan", "a", "b")
            + _transfer(["a", "b"], "{size}", "1 MiB", "256 KiB", 1))
    assert _steady_rate(text) == pytest.approx(_goodput(9000), rel=0.005)


@pytest.mark.parametrize("buffers", [1, 2])
def test_a_relay_with_one_buffer_alternates_its_hops_and_with_two_overlaps_them(
        buffers: int) -> None:
    block, window = 2**20, 64 * 2**10
    text = (_hosts("a", "m", "b") + _lan("in", "a", "m") + _lan("out", "m", "b")
            + _transfer(["a", "m", "b"], "{size}", "1 MiB", "64 KiB", buffers))
    rate, g = _steady_rate(text), _goodput(9000)
    if buffers == 1:
        # read a block, then write it: each hop idles while the other works, but
        # for the socket buffers (window bytes each way) that keep moving
        assert g / 2 <= rate <= g * block / (2 * (block - window))
    else:
        assert rate == pytest.approx(g, rel=0.005)


def _mover(mover_buffer: str, request: str | None) -> str:
    return (f'mover = "m"\nmover_buffer = "{mover_buffer}"\n'
            + (f'mover_request = "{request}"\n' if request else ""))


@pytest.mark.parametrize(("mover_buffer", "mover_request"), [
    ("1 MiB", None), ("4 MiB", None), ("512 KiB", None), ("1 MiB", "512 MB")])
def test_an_hpss_mover_double_buffers_only_requests_larger_than_its_buffer(
        mover_buffer: str, mover_request: str | None) -> None:
    """HPSS 7.3 Management Guide (Mover buffer size): a request that fits in one
    mover buffer gets no double buffering, so the mover alternates its two hops
    as a one-buffer relay does, whatever `buffers` the clients hold; a request
    (a block, or the mover_request given) of more than one mover buffer is
    staged in pieces that overlap, and the relay runs at the wire's goodput."""
    block, window = 2**20, 64 * 2**10
    text = (_hosts("a", "m", "b") + _lan("in", "a", "m") + _lan("out", "m", "b")
            + _transfer(["a", "m", "b"], "{size}", "1 MiB", "64 KiB", 2)
            + _mover(mover_buffer, mover_request))
    rate, g = _steady_rate(text), _goodput(9000)
    if mover_buffer == "512 KiB" or mover_request:
        assert rate == pytest.approx(g, rel=0.01)
    else:
        assert g / 2 <= rate <= g * block / (2 * (block - window))


def _two_networks(routes: str = "") -> str:
    fc = ('[[networks]]\nname = "fc"\ntopology = "point-to-point"\n\n[[networks.links]]\n'
          'ends = ["a", "b"]\nspeed = "1GFC"\nlength = "10 m"\n\n')
    nodes = (f'[[nodes]]\nname = "a"\nhost = "ideal"\n{routes}\n'
             '[[nodes]]\nname = "b"\nhost = "ideal"\n\n')
    test = ('[[workloads]]\nname = "n"\ntype = "netperf"\nfrom = "a"\nto = "b"\n'
            'length = "400 ms"\n')
    return nodes + _lan("lan", "a", "b") + fc + test


@pytest.mark.parametrize("routes", ["", 'routes = { b = "fc" }'])
def test_a_host_reaches_a_peer_over_the_first_network_or_its_route(routes: str) -> None:
    rep = _run(_two_networks(routes), "500 ms")
    ethernet = rep["links"]["lan-link0"]["directions"]["a@lan->b@lan"]["frames"]
    fibre = rep["networks"]["fc"]["nodes"]["a@fc"]["data_frames_tx"]
    assert rep["netperf"]["n"]["throughput_mbit_s"] > 100
    # the reply direction follows b's own table: no route there, so over the LAN
    if routes:
        assert fibre > 1000 and ethernet < 10
    else:
        assert ethernet > 1000 and fibre == 0


RAMSAN = ('[[nodes]]\nname = "disk"\ntarget = "tms-ramsan"\n\n[[networks]]\nname = "san"\n'
          'topology = "point-to-point"\n\n[[networks.links]]\nends = ["m", "disk"]\n'
          'speed = "1GFC"\nlength = "10 m"\n\n')


@settings(max_examples=12, deadline=None)
@given(blocks=st.integers(1, 6), block_kib=st.sampled_from([4, 64, 512]),
       buffers=st.integers(1, 3), socket_kib=st.sampled_from([16, 64, 256]),
       read=st.booleans())
def test_every_byte_crosses_the_relay_once(blocks: int, block_kib: int, buffers: int,
                                           socket_kib: int, read: bool) -> None:
    size = blocks * block_kib * 1024 - (512 if blocks > 1 else 0)
    path = ["disk", "m", "a"] if read else ["a", "m", "disk"]
    rep = _run(_hosts("a", "m") + RAMSAN + _lan("lan", "a", "m")
               + _transfer(path, f"{size} B", f"{block_kib} KiB", f"{socket_kib} KiB",
                           buffers), "1 s")
    t = rep["transfers"]["t"]
    assert t["finished"] and t["bytes"] == size
    target = rep["storage"]["targets"]["disk"]
    assert target["bytes"] == size
    assert target["bytes_written"] == (0 if read else size)


CLIENT_DISK = ('[[nodes]]\nname = "c"\nhost = "ideal"\nmtu = 9000\n\n[[nodes.channels]]\n'
               'name = "ide0"\nmodel = "ultra-ata-33"\ndisks = ["ibm-deskstar-22gxp"]\n\n')


@pytest.mark.parametrize("direction", ["put", "get"])
def test_a_transfer_from_or_to_a_local_disk_runs_at_the_disks_rate(direction: str) -> None:
    """The client's one IDE disk is far slower than the LAN and the FC link: a
    file put from it (read) or got onto it (written) moves at what the disk
    alone gives a dd of the same blocks, within the relay's pipeline start."""
    path, key = ((["c", "m", "disk"], "read_disk") if direction == "put"
                 else (["disk", "m", "c"], "write_disk"))
    text = (CLIENT_DISK + _hosts("m") + RAMSAN + _lan("lan", "c", "m")
            + _transfer(path, "{size}", "64 KiB", "256 KiB", 2) + f'{key} = "ide0.0"\n')
    dd = ('[[workloads]]\nname = "dd"\ntype = "dd"\nfrom = "c"\nto = "ide0.0"\n'
          f'direction = "{"read" if direction == "put" else "write"}"\nbs = "64 KiB"\n'
          'count = {count}\n')
    rate = _steady_rate(text, (4, 12))
    disk = []
    for count in (64, 192):
        rep = _run(CLIENT_DISK + _hosts("m") + RAMSAN + _lan("lan", "c", "m")
                   + dd.format(count=count))
        disk.append(rep["storage"]["jobs"]["dd"]["elapsed_s"])
    alone = 8 * 2**20 / (disk[1] - disk[0])
    assert rate == pytest.approx(alone, rel=0.02)



def _relay_to_ram(warmup: str = "100 ms") -> str:
    return ('[[nodes]]\nname = "client"\nhost = "ideal"\nmtu = 9000\n\n'
            '[[nodes]]\nname = "mover"\nhost = "ideal"\nmtu = 9000\n\n'
            '[[nodes]]\nname = "ram"\ntarget = "tms-ramsan"\n\n'
            + _lan("lan", "client", "mover")
            + '[[networks]]\nname = "san"\ntopology = "point-to-point"\n\n'
              '[[networks.links]]\nends = ["mover", "ram"]\nspeed = "1GFC"\n\n'
            + _transfer(["client", "mover", "ram"], "4 GiB", "1 MiB", "256 KiB", 2))


def _with_mover(scenario, model, buses=()):  # type: ignore[no-untyped-def]
    import dataclasses
    nodes = tuple(dataclasses.replace(n, host=model, buses=buses) if n.name == "mover" else n
                  for n in scenario.nodes)
    return dataclasses.replace(scenario, nodes=nodes)


@pytest.mark.parametrize("buses", [1, 2])
def test_a_relay_s_cards_share_one_bus_or_use_one_each(buses: int) -> None:
    import dataclasses

    from fcsim.host.host_model import HostModel
    # a 40 MB/s bus: every byte the mover relays crosses it twice (NIC in, FC card
    # out) when both cards are on it, once on each of two buses
    mover = HostModel("slow-bus", bus="PCI-32/33", bus_bandwidth=40e6, buses=buses)
    document = tomllib.loads('topology = "internetwork"\n[run]\nduration = "500 ms"\n'
                             'warmup = "100 ms"\n\n' + _relay_to_ram())
    scenario = _with_mover(scenario_from_document(document, "test.toml"), mover,
                           (("lan", 0), ("san", 1)) if buses == 2 else ())
    run = run_scenario(dataclasses.replace(scenario))["repetitions"][0]
    rate = run["transfers"]["t"]["steady_bytes_per_s"]
    expected = 40e6 / (2 if buses == 1 else 1)
    assert 0.95 * expected < rate <= expected * 1.001
    used = run["hosts"]["mover"].get("bus_utilisations", [run["hosts"]["mover"]
                                                          ["bus_utilisation"]])
    assert len(used) == buses and min(used) > 0.95


def test_the_steady_rate_leaves_out_the_start() -> None:
    text = (_hosts("a", "b") + _lan("lan", "a", "b")
            + _transfer(["a", "b"], "4 GiB", "1 MiB", "256 KiB", 1))
    document = tomllib.loads('topology = "internetwork"\n[run]\nduration = "300 ms"\n'
                             'warmup = "100 ms"\n\n' + text)
    t = run_scenario(scenario_from_document(document, "t.toml"))["repetitions"][0][
        "transfers"]["t"]
    assert not t["finished"]
    assert t["steady_bytes_per_s"] == pytest.approx(_goodput(9000), rel=0.005)
    assert t["bytes_per_s"] < t["steady_bytes_per_s"]  # the whole run includes the start


def test_each_hop_of_a_transfer_through_a_fabric_logs_in() -> None:
    """Over one fabric, IP over FC from a to b and SCSI from b to the disk: the
    N_Ports of each hop log in with each other (not the path's two ends)."""
    hosts = "".join(table("[[nodes]]", {"name": n, "host": "ideal"}) for n in ("a", "b"))
    document = tomllib.loads('topology = "fabric"\n' + run("300 ms") + switches("sw") + hosts
                             + table("[[nodes]]", {"name": "disk", "target": "tms-ramsan"})
                             + star("sw", ("a", "b", "disk"), "1GFC")
                             + _transfer(["a", "b", "disk"], "4 MiB", "256 KiB", "64 KiB", 2))
    rep = run_scenario(scenario_from_document(document, "test.toml"))["repetitions"][0]
    assert rep["transfers"]["t"]["finished"] and rep["transfers"]["t"]["bytes"] == 4 * 2**20
    assert rep["storage"]["targets"]["disk"]["bytes_written"] == 4 * 2**20

