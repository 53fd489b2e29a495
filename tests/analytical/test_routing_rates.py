"""Generated fabrics with equal-cost paths against closed forms of their
routing policies: the two-core core-edge fabric and k = 4 and k = 6 fat
trees (docs/fabrics.md, "Equal-cost paths")."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from fcsim.fabric.routing import fspf_cost, next_hops, pick, switch_seed
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD
from fcsim.runner import run_scenario
from fcsim.scenario.loader import load_scenario
from fcsim.scenario.model import Scenario
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import fabric

IDLES = 24
"""Characters between frames (six idle words), as the other rate tests count them."""


def _payload_rate(speed: str) -> float:
    """Payload bytes/s of a link at *speed* sending full frames back to back."""
    return speed_named(speed).char_rate * MAX_DATA_FIELD / (MAX_DATA_FIELD + FRAMING_BYTES
                                                            + IDLES)


def _run(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "fabric.toml"
    path.write_text(text, encoding="utf-8")
    return run_scenario(load_scenario(path))["repetitions"][0]


CORE_EDGE = """topology = "fabric"
description = "two cores, four edges, two ISLs from each edge to each core"
[run]
duration = "1.5 ms"
warmup = "0.3 ms"
login = false
[fabric]
kind = "core-edge"
switches = 6
cores = 2
model = "generic-nonblocking"
nodes_per_switch = 16
isls = 2
speed = "32GFC"
routing = "{routing}"
"""


def _core_edge(routing: str, ports: list[int]) -> str:
    """The two-core fabric: N_Port m of each edge e streams to N_Port m of edge
    e + 1 (the last to the first), for each m in *ports*; 64 KiB Class 3
    sequences, two outstanding."""
    lines = [CORE_EDGE.format(routing=routing)]
    for e in range(4):
        for m in ports:
            lines.append(f'[[workloads]]\nname = "e{e}m{m}"\ntype = "stream"\n'
                         f'from = "e{e}n{m}"\nto = "e{(e + 1) % 4}n{m}"\nclass = 3\n'
                         f'size = "64 KiB"\noutstanding = 2\n')
    return "\n".join(lines)


def _port_based_rates(ports: list[int], hops: int, rate: float) -> dict[int, float]:
    """Port-based routing's closed form for _core_edge: an edge switch sends
    the N_Port on port m over its (m mod hops)-th ISL towards the cores
    (ISLs ordered by name: e-c0-0, e-c0-1, e-c1-0, e-c1-1); the core takes
    ISL i from the edge (its port 2e + i) to ISL i towards the next edge, one
    to one. The streams on one ISL share it equally; a stream alone on an ISL
    is held to its N_Port's link, the same rate."""
    sharing = Counter(m % hops for m in ports)
    return {m: rate / sharing[m % hops] for m in ports}


@pytest.mark.parametrize("ports", [list(range(8)), [0, 4, 8, 12, 1]])
def test_core_edge_under_port_based_routing(tmp_path: Path, ports: list[int]) -> None:
    """Eight streams from each edge (N_Ports 0-7) take two per ISL: each
    carries what all four ISLs allow, 4/8 of an ISL. N_Ports 0, 4, 8, 12 and 1
    put four streams on ISL 0 and one on ISL 1: a quarter and a whole ISL."""
    result = _run(tmp_path, _core_edge("port-based", ports))
    expected = _port_based_rates(ports, hops=4, rate=_payload_rate("32GFC"))
    for name, w in result["workloads"].items():
        m = int(name.split("m")[1])
        assert w["throughput_bytes_per_s"] == pytest.approx(expected[m], rel=0.02), name


FAT_TREE = """topology = "fabric"
description = "k-ary fat tree, k/2 N_Ports per edge switch, a permutation"
[run]
duration = "{duration}"
warmup = "0.3 ms"
login = false
[fabric]
kind = "fat-tree"
pods = {k}
model = "generic-nonblocking"
nodes_per_switch = {half}
speed = "8GFC"
routing = "{routing}"
traffic = "permutation"
stream_size = "64 KiB"
outstanding = 2
"""


@pytest.mark.parametrize(("k", "duration"), [(4, "1.5 ms"), (6, "1 ms")])
def test_fat_tree_carries_a_permutation_at_full_bisection(
        tmp_path: Path, k: int, duration: str) -> None:
    """The stride permutation (N_Port i to i + N/2: pod p to pod p + k/2, the
    same edge and N_Port index) under port-based routing: N_Port m of an edge
    switch goes up to aggregation switch m (its port m, m mod k/2); the
    aggregation switch sends what came from edge switch e (its port e) to its
    e-th core. Every one of the k³/4 streams of a pod pair then has an
    aggregation-core ISL, a core and a down-link of its own: each carries
    its N_Port's full link rate, which a full-bisection fabric allows."""
    text = FAT_TREE.format(k=k, half=k // 2, routing="port-based", duration=duration)
    result = _run(tmp_path, text)
    rates = [w["throughput_bytes_per_s"] for w in result["workloads"].values()]
    assert len(rates) == k ** 3 // 4
    full = _payload_rate("8GFC")
    for rate in rates:
        assert rate == pytest.approx(full, rel=0.02)
    assert load_switch_model("generic-nonblocking").virtual_output_queues


def _predicted_paths(scenario: Scenario, policy: str) -> set[str]:
    """The ISL directions ("a:port->b:port") the streams of *scenario* use,
    worked out from the model's own routing functions: FSPF next hops,
    each switch's seed from its domain (1, 2, ... in order), N_Port IDs
    domain / port / 00, and each stream's exchanges numbered 0, 1, ...
    (``outstanding`` of them, kept for the stream's life) by its N_Port."""
    domain = {s.name: i + 1 for i, s in enumerate(scenario.switches)}
    isls, ends, attached = [], {}, {}
    for link in scenario.links:
        a, b = link.ends
        if ":" in a and ":" in b:
            isls.append((a.split(":")[0], b.split(":")[0], link.name, fspf_cost(link.speed.baud)))
            ends[link.name] = {a.split(":")[0]: (a, b), b.split(":")[0]: (b, a)}
        else:
            node, port = (a, b) if ":" in b else (b, a)
            switch, index = port.split(":")
            attached[node] = (switch, int(index))
    table = next_hops(list(domain), isls)
    used = set()
    for w in scenario.workloads:
        (src, src_port), (dst, dst_port) = attached[w.source], attached[w.destination]
        s_id, d_id = domain[src] << 16 | src_port << 8, domain[dst] << 16 | dst_port << 8
        for ox_id in range(w.outstanding):
            here, ingress = src, src_port
            while here != dst:
                link = pick(policy, table[here][dst], s_id, d_id, ox_id,
                            switch_seed(domain[here]), ingress)
                out, into = ends[link][here]
                used.add(f"{out}->{into}")
                here, ingress = into.split(":")[0], int(into.split(":")[1])
    return used


@pytest.mark.parametrize("policy", ["exchange-based", "device-based", "port-based"])
@pytest.mark.parametrize("shape", ["core-edge", "fat-tree"])
def test_the_isls_in_use_are_those_the_policy_chooses(
        tmp_path: Path, policy: str, shape: str) -> None:
    """Exactly the ISL directions the routing policy's choice predicts for
    every stream's exchanges carry frames; the others stay idle. A stream
    (``exchanges = "per-slot"``, the default) keeps its exchanges (one per
    outstanding sequence) for its life, so
    exchange-based routing spreads a stream over at most ``outstanding``
    paths, chosen once (docs/fabrics.md, "Equal-cost paths")."""
    text = (_core_edge(policy, list(range(8))).replace('duration = "1.5 ms"',
                                                        'duration = "0.4 ms"')
            if shape == "core-edge" else
            FAT_TREE.format(k=4, half=2, routing=policy, duration="0.4 ms"))
    path = tmp_path / "fabric.toml"
    path.write_text(text, encoding="utf-8")
    scenario = load_scenario(path)
    result = run_scenario(scenario)["repetitions"][0]
    isl_names = {link.name for link in scenario.links if all(":" in e for e in link.ends)}
    busy = {name for link in isl_names
            for name, d in result["links"][link]["directions"].items() if d["frames"] > 0}
    assert busy == _predicted_paths(scenario, policy)


@pytest.mark.parametrize(("policy", "outstanding"), [("device-based", 2),
                                                     ("exchange-based", 1),
                                                     ("port-based", 2)])
def test_each_policy_over_parallel_isls_shares_each_isl(
        policy: str, outstanding: int) -> None:
    """Eight streams between two switches joined by four ISLs, each stream on
    one ISL (device-based: one path per N_Port pair; exchange-based with one
    exchange per stream; port-based: one per input port): the closed form
    from the policy's choice. Stream i (N_Port on port i) goes by the ISL
    pick gives at s1 (seeded by its domain, 1) for its S_ID, D_ID and OX_ID 0,
    and the n streams on an ISL share it, R/n each (the destination switch
    feeds each to an N_Port link of its own, which does not hold it back).
    The hash puts three streams on one ISL and one alone on another; port-based
    routing puts two on each."""
    nodes = {f"h{i}": f"s1:{i}" for i in range(8)} | {f"d{i}": f"s2:{i}" for i in range(8)}
    streams = tuple(StreamConfig(f"w{i}", f"h{i}", f"d{i}", 16 * MAX_DATA_FIELD,
                                 outstanding=outstanding) for i in range(8))
    model = dataclasses.replace(load_switch_model("generic-nonblocking"), routing=policy)
    isls = tuple((f"s1:{20 + i}", f"s2:{20 + i}") for i in range(4))
    result = run_scenario(fabric(nodes, streams, duration=0.02, warmup=0.002,
                                 switches={"s1": model, "s2": model}, isls=isls, login=False))
    hops = [f"isl{i}" for i in range(4)]
    chosen = {i: pick(policy, hops, 1 << 16 | i << 8, 2 << 16 | i << 8, 0, switch_seed(1), i)
              for i in range(8)}
    sharing = Counter(chosen.values())
    assert max(sharing.values()) > 1  # streams share an ISL somewhere
    rate = _payload_rate("1GFC")
    for i in range(8):
        got = result["repetitions"][0]["workloads"][f"w{i}"]["throughput_bytes_per_s"]
        assert got == pytest.approx(rate / sharing[chosen[i]], rel=0.01), i


def _closed_network_share(exchanges: int, isls: int) -> float:
    """The fraction of the time an ISL of an equal-cost group of *isls* is busy
    when *exchanges* exchanges are open at every moment, each placed on an
    ISL uniformly at random when it opens and served with the others on its
    ISL in turn (processor sharing) until its sequence is through, when
    the next opens. This is a closed network of *isls* processor-sharing
    queues with *exchanges* customers routed uniformly (Gordon and Newell,
    Operations Research 15, 1967; BCMP, JACM 22, 1975: its stationary
    distribution is a product form, insensitive to the distribution of the
    sequence sizes): with equal loads every placement of the N customers
    over the M queues is equally likely, C(N + M - 1, M - 1) of them, and
    those that leave a given ISL idle are the C(N + M - 2, M - 2) placements
    of N over the others, so an ISL is busy (M - 1)/(N + M - 1) of the time
    less than always: N/(N + M - 1). An exchange on a crowded ISL lasts longer,
    so at a random moment exchanges crowd more than a fresh random throw
    would crowd them (1 - (1 - 1/M)^N busy)."""
    return exchanges / (exchanges + isls - 1)


@pytest.mark.parametrize("isls", [4, 2])
def test_exchanges_per_sequence_over_parallel_isls_fill_them_as_a_closed_network(
        isls: int) -> None:
    """Eight Class 2 streams between two switches joined by *isls* ISLs, each
    stream one sequence (32 full frames) at a time, each sequence in a new
    exchange that exchange-based routing places anew: the ISLs carry
    M·R·N/(N + M - 1) in all (N = 8 exchanges open, M ISLs, R an ISL's
    payload rate; :func:`_closed_network_share`), not the M·R that all
    ISLs allow. Class 2 makes the loop exact: a sequence completes, and
    the stream's next exchange opens, when its last ACK is back, i.e. once
    it has crossed its ISL. (A Class 3 sequence completes when its last
    frame is sent, into the switch's input buffers, so the next exchange
    opens while up to the F_Port's credit of frames of the last one wait;
    the sender has more exchanges open in the fabric than ``outstanding``,
    and the ISLs carry more.) One second simulated: the time average of
    the placements the hash makes settles within about 1 %."""
    n = 8
    nodes = {f"h{i}": f"s1:{i}" for i in range(n)} | {f"d{i}": f"s2:{i}" for i in range(n)}
    streams = tuple(StreamConfig(f"w{i}", f"h{i}", f"d{i}", 32 * MAX_DATA_FIELD, cls=2,
                                 exchanges="per-sequence") for i in range(n))
    model = dataclasses.replace(load_switch_model("generic-nonblocking"),
                                routing="exchange-based")
    links = tuple((f"s1:{40 + i}", f"s2:{40 + i}") for i in range(isls))
    result = run_scenario(fabric(nodes, streams, duration=1.0, warmup=0.1,
                                 switches={"s1": model, "s2": model}, isls=links,
                                 login=False))
    total = sum(w["throughput_bytes_per_s"]
                for w in result["repetitions"][0]["workloads"].values())
    rate = _payload_rate("1GFC")
    expected = isls * rate * _closed_network_share(n, isls)
    assert total == pytest.approx(expected, rel=0.02)
    assert total < 0.98 * isls * rate


def _mean_rate(result: dict) -> float:
    rates = [w["throughput_bytes_per_s"] for w in result["workloads"].values()]
    return sum(rates) / len(rates)


@pytest.mark.parametrize("shape", ["core-edge", "fat-tree 4", "fat-tree 6"])
def test_exchanges_per_sequence_fall_short_of_full_rate_under_exchange_based_routing(
        tmp_path: Path, shape: str) -> None:
    """The fabrics above under exchange-based routing with one exchange per
    sequence (as FCP opens one per command) do not carry what their ISLs
    allow: at any moment each stream's two exchanges sit where the hash put
    them, and exchanges meet on one ISL while another idles. At the first
    stage alone N exchanges over M ISLs keep an ISL busy N/(N + M - 1) of
    the time (:func:`_closed_network_share`): 16 over 4 in the two-core
    fabric, 4 over 2 (k = 4) and 6 over 3 (k = 6) in the fat trees. The
    later stages (core to edge; aggregation to core and down) and the
    F_Port's input buffers, which a stream's exchange on a busy ISL fills
    while its other exchange waits behind them for credit, take more. Each
    stream gets less than 98 % of the full rate; re-choosing per sequence
    does better than keeping the exchanges (per-slot) where one stage of
    four ISLs and many exchanges dominates (two-core fabric, k = 4)."""
    if shape == "core-edge":
        text = _core_edge("exchange-based", list(range(8)))
        full = _payload_rate("32GFC") * 4 / 8
    else:
        k = int(shape.split()[1])
        text = FAT_TREE.format(k=k, half=k // 2, routing="exchange-based",
                               duration="1.5 ms" if k == 4 else "1 ms")
        full = _payload_rate("8GFC")
    per_slot = _mean_rate(_run(tmp_path, text))
    per_sequence = _mean_rate(_run(tmp_path, text.replace(
        "outstanding = 2\n", 'outstanding = 2\nexchanges = "per-sequence"\n')))
    assert per_sequence < 0.98 * full
    if shape != "fat-tree 6":
        assert per_sequence > per_slot
