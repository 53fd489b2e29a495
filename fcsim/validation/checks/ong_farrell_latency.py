"""The latency claims of Ong & Farrell (ONG-LAT1, ONG-LATLOAD, ONG-LATFLAT,
ONG-LATSOCK): netperf TCP_RR from the files ``figNN-rr-*.toml`` of
``scenarios/ong-farrell/``.

The paper prints its TCP_RR command with ``-m``, which netperf 2.1's TCP_RR
ignores (its request and response sizes come from ``-r``, one byte each by
default: ``nettest_bsd.c``), so as printed every point of figures 20-33 was a
1-byte transaction. Every claim is judged on the command as printed, as
netperf ran it: ONG-LAT1, ONG-LATLOAD and ONG-LATFLAT are 1-byte transactions
on either reading, and ONG-LATSOCK compares the socket sizes on the one test
that every message size of a figure ran. The ``-r m,m`` reading, which the
figures' message-size axis suggests, is drawn beside it by ``fcsim figures
ong-farrell`` (docs/validation.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from statistics import fmean

from fcsim.validation.checks.common import (
    Check,
    Results,
    Verdict,
    bars,
    outside,
    passes_if,
    repeated,
    span,
    values,
)
from fcsim.validation.checks.ong_farrell_pairs import LOADED, PAIRS, UNLOADED, label, rr_file
from fcsim.validation.points import Point

# -- latency ---------------------------------------------------------------------------

RR_SOCKET = 32768
LATSOCK_SOCKETS = (32768, 65536, 131072, 262143)
"""The sockets of ONG-LATSOCK: 32 KB (the first over 16 KB) to the largest."""


def _rr_points(pairs: Sequence[tuple[str, str]]) -> list[Point]:
    return [p for pair in pairs for p in repeated(rr_file(pair), RR_SOCKET, 1)]


def _rtts(results: Results, pairs: Sequence[tuple[str, str]]) -> dict[str, list[float]]:
    return {label(pair): [v * 1e6 for v in values(results, rr_file(pair), RR_SOCKET, 1,
                                                   "round_trip_s")] for pair in pairs}


def _latency_judge(claim: str, pairs: Sequence[tuple[str, str]], lo: float,
                   hi: float) -> Callable[[Results], Verdict]:
    def judge(results: Results) -> Verdict:
        runs = _rtts(results, pairs)
        means = {k: fmean(v) for k, v in runs.items()}
        ok = all(lo <= m <= hi for m in means.values())
        return Verdict(span(means, "us", 0) + f" over {len(means)} pairs", passes_if(ok),
                       f"TCP_RR 1-byte request and response, {RR_SOCKET}-byte sockets; "
                       + outside(means, lo, hi, "us"),
                       bars(f"{claim}: 1-byte round trip", "µs", list(runs),
                             list(runs.values()), (lo, hi)))
    return judge


LOADED_PAIRS = tuple(p for p in PAIRS if LOADED & set(p))
"""The pairs with a J210 or 735 end, the paper's moderately loaded machines."""


def _latload_judge(results: Results) -> Verdict:
    """ONG-LATLOAD: the paper's 398-460 us are the "outlying" extremes of the loaded
    pairs, so the largest loaded-pair round trip must lie in [378, 483] us, while
    every unloaded pair stays in ONG-LAT1's band."""
    loaded = _rtts(results, LOADED_PAIRS)
    means = {k: fmean(v) for k, v in loaded.items()}
    unloaded = {k: fmean(v) for k, v in _rtts(results, UNLOADED).items()}
    worst = max(means, key=means.__getitem__)
    extreme_ok = 378 <= means[worst] <= 483
    unloaded_ok = all(320 <= m <= 372 for m in unloaded.values())
    return Verdict(f"largest {means[worst]:.0f} us ({worst}) over {len(means)} loaded pairs; "
                   f"unloaded {span(unloaded, 'us', 0)}",
                   passes_if(extreme_ok and unloaded_ok),
                   f"TCP_RR 1-byte request and response, {RR_SOCKET}-byte sockets; the largest "
                   f"loaded-pair round trip {means[worst]:.1f} us ({worst}) "
                   + ("lies in" if extreme_ok else "is outside") + " [378, 483] us; loaded "
                   "pairs " + ", ".join(f"{k} {m:.1f}" for k, m in means.items())
                   + " us; unloaded pairs " + outside(unloaded, 320, 372, "us")
                   + " (ONG-LAT1's band)",
                   bars("ONG-LATLOAD: 1-byte round trip, loaded pairs", "µs", list(loaded),
                        list(loaded.values()), (378, 483)))


def _flat_judge(results: Results) -> Verdict:
    means = {k: fmean(v) for k, v in _rtts(results, UNLOADED).items()}
    spread = max(means.values()) / min(means.values())
    return Verdict(f"max/min {spread:.3f} over {len(means)} unloaded pairs",
                   passes_if(spread <= 1.10),
                   "1-byte round trips of the unloaded pairs: " + ", ".join(
                       f"{k} {m:.0f} us" for k, m in means.items()))


def _latsock_points() -> list[Point]:
    """The 1-byte transactions of C110 -> C110 at each socket: as printed, every
    message size of the figure (``-m``) runs this very test."""
    path = rr_file(PAIRS[0])
    return [p for s in LATSOCK_SOCKETS for p in repeated(path, s, 1)]


def _latsock_judge(results: Results) -> Verdict:
    path = rr_file(PAIRS[0])
    runs = {f"socket {s} B": [v * 1e6 for v in values(results, path, s, 1, "round_trip_s")]
            for s in LATSOCK_SOCKETS}
    means = {k: fmean(v) for k, v in runs.items()}
    spread = max(means.values()) / min(means.values())
    return Verdict(f"max/min {spread:.3f}", passes_if(spread <= 1.05),
                   "C110->C110 TCP_RR as the paper prints it (-m SIZE, which netperf 2.1's "
                   "TCP_RR ignores: every message size of figure 20 ran the same 1-byte "
                   "transaction), sockets " + ", ".join(map(str, LATSOCK_SOCKETS))
                   + ": round trips " + ", ".join(f"{k} {m:.1f} us" for k, m in means.items())
                   + ". The -r m,m reading (request = response = message size, as the "
                   "figure's axis suggests) is drawn by fcsim figures ong-farrell and "
                   "discussed in docs/validation.md",
                   bars("ONG-LATSOCK: 1-byte round trip by socket size", "µs", list(runs),
                        list(runs.values()), None))


LATENCY_CHECKS: dict[str, Check] = {
    "ONG-LAT1": Check(lambda: _rr_points(UNLOADED),
                      _latency_judge("ONG-LAT1", UNLOADED, 320, 372)),
    "ONG-LATLOAD": Check(lambda: _rr_points(LOADED_PAIRS + UNLOADED), _latload_judge),
    "ONG-LATFLAT": Check(lambda: _rr_points(UNLOADED), _flat_judge),
    "ONG-LATSOCK": Check(_latsock_points, _latsock_judge),
}
"""The checks of Ong & Farrell's latency claims, by claim ID."""
