"""How evenly the hashed routing policies spread exchanges over equal-cost
next hops (hypothesis): over random fabric-assigned N_Port IDs (domain /
area / 00, as a fabric gives them) and OX_IDs numbered from a random start
as an N_Port numbers its exchanges, each hop's count stays within the
binomial spread of a uniform choice, and two switches in series choose
jointly uniformly (no polarisation). The per-frame chooser equals the
detailed :func:`fcsim.fabric.routing.pick`."""

from __future__ import annotations

import math
import random
from collections import Counter
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fcsim.fabric import routing
from fcsim.fabric.routing import chooser, pick, switch_seed

HOPS = (2, 3, 4, 8)
SIGMAS = 5.0
"""A count farther than this many binomial standard deviations from its mean
fails (about 6e-7 per count for a uniform choice)."""

n_port_ids = st.builds(lambda domain, area: domain << 16 | area << 8,
                       st.integers(1, 239), st.integers(0, 255))


def _within_binomial(counts: Counter[int], cells: int, trials: int) -> None:
    """Every one of *cells* outcomes counted within the binomial spread of *trials*."""
    p = 1 / cells
    mean, sigma = trials * p, math.sqrt(trials * p * (1 - p))
    for cell in range(cells):
        assert abs(counts[cell] - mean) <= SIGMAS * sigma, (cell, counts[cell], mean, sigma)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(n_port_ids, n_port_ids).filter(lambda p: p[0] != p[1]),
                min_size=1, max_size=6, unique=True),
       st.integers(0, 0xFFFF - 2000), st.integers(1, 239), st.sampled_from(HOPS))
def test_exchange_based_spreads_exchanges_uniformly(
        pairs: list[tuple[int, int]], first_ox: int, domain: int, hops: int) -> None:
    per_pair = 2400 // len(pairs)
    seed = switch_seed(domain)
    counts = Counter(pick("exchange-based", list(range(hops)), s, d, first_ox + i, seed, None)
                     for s, d in pairs for i in range(per_pair))
    _within_binomial(counts, hops, per_pair * len(pairs))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 239), st.sampled_from(HOPS))
def test_device_based_spreads_device_pairs_uniformly(
        ids_seed: int, domain: int, hops: int) -> None:
    """1,200 distinct N_Port pairs, their IDs fabric-assigned at random."""
    draw = random.Random(ids_seed)
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < 1200:
        s, d = (draw.randint(1, 239) << 16 | draw.randint(0, 255) << 8 for _ in range(2))
        if s != d:
            pairs.add((s, d))
    seed = switch_seed(domain)
    counts = Counter(pick("device-based", list(range(hops)), s, d, ox, seed, None)
                     for ox, (s, d) in enumerate(sorted(pairs)))  # OX_ID does not enter
    _within_binomial(counts, hops, len(pairs))


@settings(max_examples=40, deadline=None)
@given(st.tuples(n_port_ids, n_port_ids).filter(lambda p: p[0] != p[1]),
       st.integers(0, 0xFFFF - 6400),
       st.lists(st.integers(1, 239), min_size=2, max_size=2, unique=True),
       st.sampled_from(HOPS), st.sampled_from(HOPS))
def test_two_switches_in_series_choose_jointly_uniformly(
        pair: tuple[int, int], first_ox: int, domains: list[int], first: int,
        second: int) -> None:
    """The exchanges of one N_Port pair cross switch A (*first* hops) and then
    switch B (*second* hops): every (hop at A, hop at B) combination is as
    frequent as a uniform joint choice makes it. With one hash for every
    switch, B would repeat A's choice (polarisation) and most combinations
    would never occur."""
    s, d = pair
    seeds = [switch_seed(domain) for domain in domains]
    trials = 6400
    counts = Counter(
        pick("exchange-based", list(range(first)), s, d, ox, seeds[0], None) * second
        + pick("exchange-based", list(range(second)), s, d, ox, seeds[1], None)
        for ox in range(first_ox, first_ox + trials))
    _within_binomial(counts, first * second, trials)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.integers(1, 239), min_size=2, max_size=2,
                                       unique=True),
       st.sampled_from(HOPS), st.sampled_from(HOPS))
def test_device_based_switches_in_series_choose_jointly_uniformly(
        ids_seed: int, domains: list[int], first: int, second: int) -> None:
    """The same over 4,800 distinct N_Port pairs, device-based."""
    draw = random.Random(ids_seed)
    pairs: set[tuple[int, int]] = set()
    while len(pairs) < 4800:
        s, d = (draw.randint(1, 239) << 16 | draw.randint(0, 255) << 8 for _ in range(2))
        if s != d:
            pairs.add((s, d))
    seeds = [switch_seed(domain) for domain in domains]
    counts = Counter(
        pick("device-based", list(range(first)), s, d, 0, seeds[0], None) * second
        + pick("device-based", list(range(second)), s, d, 0, seeds[1], None)
        for s, d in pairs)
    _within_binomial(counts, first * second, len(pairs))


def test_the_same_hash_everywhere_would_polarise() -> None:
    """The check above can fail: two switches with the same seed choose the
    same hop for every exchange, so only the diagonal of the joint choice
    is ever used."""
    seed = switch_seed(1)
    s, d = 0x010000, 0x020100
    joint = {(pick("exchange-based", list(range(4)), s, d, ox, seed, None),
              pick("exchange-based", list(range(4)), s, d, ox, seed, None))
             for ox in range(1000)}
    assert joint == {(i, i) for i in range(4)}


def _frame(s_id: int, d_id: int, ox_id: int) -> SimpleNamespace:
    return SimpleNamespace(s_id=s_id, d_id=d_id, ox_id=ox_id)


@pytest.mark.parametrize("policy", routing.POLICIES)
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # one setting for all
@given(frames=st.lists(st.tuples(n_port_ids, n_port_ids, st.integers(0, 0xFFFE),
                                 st.integers(0, 63)), min_size=1, max_size=60),
       domain=st.integers(1, 239), hops=st.sampled_from((1, *HOPS)))
def test_the_per_frame_chooser_is_pick(
        monkeypatch: pytest.MonkeyPatch, policy: str,
        frames: list[tuple[int, int, int, int]], domain: int, hops: int) -> None:
    """What a switch does per frame (remembering each exchange's hop, in a
    memory small enough here to be emptied several times) is what
    :func:`pick` computes; a frame the switch sends itself has no ingress port."""
    monkeypatch.setattr(routing, "CACHE_ENTRIES", 8)
    seed = switch_seed(domain)
    choose = chooser(policy, seed)
    candidates = [SimpleNamespace(index=i) for i in range(hops)]
    for s, d, ox, port in frames * 2:
        ingress = None if port == 63 else SimpleNamespace(index=port)
        expected = pick(policy, candidates, s, d, ox, seed,
                        None if ingress is None else ingress.index)
        assert choose(candidates, _frame(s, d, ox), d, ingress) is expected


def test_port_based_takes_the_hops_in_turn_by_ingress_port() -> None:
    hops = ["a", "b", "c"]
    assert [pick("port-based", hops, 1, 2, 3, 0, port) for port in range(7)] == [
        "a", "b", "c", "a", "b", "c", "a"]


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="routing policy 'random'"):
        chooser("random", 0)
