"""The claims of the HPSS benchmarks (``002_e06638be0f19e9c4.txt``): pftp reads and
writes between PDSF cluster nodes and the PROBE HPSS movers (IBM H50, F50 and
the two paths of an H70) over jumbo-frame Gigabit Ethernet, the movers on a
TMS RAM-SAN or an STK 9176 array over Fibre Channel, from the files of
``scenarios/hpss/``.

Every figure is a transfer's steady rate in the measured interval (bytes
per second written by the path's last node, :mod:`fcsim.apps.transfer`),
in MB/s of 10^6 bytes, the report's unit taken as the decimal one (its
figures are round, 300 and 200, and say no more); a file's figure is the
sum over its streams.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from fcsim.validation.checks.common import (
    Check,
    NoFigure,
    Results,
    Verdict,
    bars,
    passes_if,
    repeated,
)
from fcsim.validation.points import Point

HPSS = "scenarios/hpss/"
PATHS = ("h50", "f50", "h70a", "h70b")
"""The four mover paths, the 604e movers first."""
NAMES = {"h50": "H50", "f50": "F50", "h70a": "H70 path A", "h70b": "H70 path B"}
SLOW, FAST = ("h50", "f50"), ("h70a", "h70b")
"""The PowerPC 604e movers' paths and the H70's."""
MB = 1e6
NINE = ("h50", "h50", "f50", "f50", "h70a", "h70a", "h70a", "h70b", "h70b")
"""The mover path of each of the nine streams of ``read-9`` and ``write-9``, in order."""


def hpss_file(stem: str) -> str:
    """Scenario file ``scenarios/hpss/<stem>.toml``."""
    return f"{HPSS}{stem}.toml"


def single(direction: str, path: str, memory: bool = False) -> str:
    """The file of one stream through *path* (``read`` or ``write``; a write
    from memory instead of the local disk if *memory*)."""
    return hpss_file(f"{direction}-1-{path}" + ("-memory" if memory else ""))


def points_of(stems: Sequence[str]) -> list[Point]:
    """Every repetition of each file ``scenarios/hpss/<stem>.toml``."""
    return [p for stem in stems for p in repeated(hpss_file(stem), None, None)]


def streams(results: Results, path: str) -> list[float]:
    """The steady rate of each transfer of the file *path*, MB/s, averaged over
    its repetitions (NoFigure if a run gave none)."""
    reps = [results[p]["transfers"] for p in repeated(path, None, None)]
    out = []
    for name in reps[0]:
        rates = [rep[name].get("steady_bytes_per_s") for rep in reps]
        if any(r is None for r in rates):
            raise NoFigure(f"{path}: transfer {name} wrote fewer than two blocks in the "
                           "measured interval")
        out.append(fmean(rates) / MB)  # type: ignore[arg-type]
    return out


def total(results: Results, path: str) -> float:
    """The file's figure: the sum of its streams' steady rates, MB/s."""
    return sum(streams(results, path))


def dd_rate(results: Results) -> float:
    """The local-disk read to /dev/null of ``local-disk-read.toml``, MB/s."""
    path = hpss_file("local-disk-read")
    rates = [results[p]["storage"]["jobs"]["dd"]["bytes_per_s"]
             for p in repeated(path, None, None)]
    if any(r is None for r in rates):
        raise NoFigure(f"{path}: dd did not finish")
    return fmean(rates) / MB


def _aggregate_judge(claim: str, stem: str, low: float, high: float,
                     why_not: str) -> Check:
    def judge(results: Results) -> Verdict:
        path = hpss_file(stem)
        rates = streams(results, path)
        by_path = {NAMES[p]: sum(r for r, q in zip(rates, NINE, strict=True) if q == p)
                   for p in PATHS}
        figure = sum(rates)
        ok = low <= figure <= high
        return Verdict(f"{figure:.1f} MB/s", passes_if(ok),
                       "nine streams; by mover path: "
                       + ", ".join(f"{k} {v:.1f}" for k, v in by_path.items())
                       + f" MB/s; band [{low:g}, {high:g}] MB/s"
                       + ("" if ok else f". {why_not}"),
                       bars(f"{claim}: nine streams by mover path", "MB/s",
                            list(by_path), [[v] for v in by_path.values()], None))
    return Check(lambda: points_of([stem]), judge)


# -- HPSS-WRITEHALF ------------------------------------------------------------------

def _half_points() -> list[Point]:
    return points_of([f"{d}-1-{p}" for d in ("read", "write") for p in PATHS]
                     + [f"write-1-{p}-memory" for p in PATHS] + ["local-disk-read"])


def _half_judge(results: Results) -> Verdict:
    """Single-stream write over read on each mover path in [0.4, 0.6]; the writes
    from memory are shown, not judged (the report never measured them)."""
    reads = {p: total(results, single("read", p)) for p in PATHS}
    writes = {p: total(results, single("write", p)) for p in PATHS}
    memory = {p: total(results, single("write", p, memory=True)) for p in PATHS}
    ratio = {p: writes[p] / reads[p] for p in PATHS}
    bad = [p for p in PATHS if not 0.4 <= ratio[p] <= 0.6]
    disk = dd_rate(results)
    detail = ("single-stream write / read on each mover path (band [0.4, 0.6]): "
              + ", ".join(f"{NAMES[p]} {writes[p]:.1f}/{reads[p]:.1f} = {ratio[p]:.2f}"
                          for p in PATHS)
              + f" MB/s; the local disk alone reads {disk:.1f} MB/s to /dev/null. Shown, not "
              "judged (the report never measured writes from memory): writes from memory "
              + ", ".join(f"{NAMES[p]} {memory[p] / reads[p]:.2f}" for p in PATHS)
              + " of the reads"
              + ("" if not bad else
                 f". Outside the band: {', '.join(NAMES[p] for p in bad)}. Single-stream "
                 "writes run at the disk's rate, single-stream reads at what the mover path "
                 "gives one stream; the report's ratio of about 0.5 with nine-stream writes of "
                 "about 22 MB/s a stream implies single-stream reads of about 45 MB/s on "
                 "every path"))
    labels = [NAMES[p] for p in PATHS]
    plot = bars("HPSS-WRITEHALF: single-stream write / read, from disk and from memory",
                "write / read", [f"{x} disk" for x in labels] + [f"{x} memory" for x in labels],
                [[ratio[p]] for p in PATHS] + [[memory[p] / reads[p]] for p in PATHS],
                (0.4, 0.6))
    return Verdict(", ".join(f"{NAMES[p]} {ratio[p]:.2f}" for p in PATHS), passes_if(not bad),
                   detail, plot)


# -- HPSS-MOVERS ---------------------------------------------------------------------

def _movers_judge(results: Results) -> Verdict:
    reads = {p: total(results, single("read", p)) for p in PATHS}
    slowest_fast = min(reads[p] for p in FAST)
    fastest_slow = max(reads[p] for p in SLOW)
    ok = fastest_slow < slowest_fast
    return Verdict(f"{fastest_slow:.1f} < {slowest_fast:.1f} MB/s" if ok else
                   f"{fastest_slow:.1f} >= {slowest_fast:.1f} MB/s", passes_if(ok),
                   "single-stream reads: " + ", ".join(f"{NAMES[p]} {reads[p]:.1f}"
                                                      for p in PATHS)
                   + " MB/s; every H50/F50 path must be below every H70 path",
                   bars("HPSS-MOVERS: single-stream reads by mover path", "MB/s",
                        [NAMES[p] for p in PATHS], [[reads[p]] for p in PATHS], None))


# -- HPSS-2STREAM --------------------------------------------------------------------

def _two_judge(results: Results) -> Verdict:
    gain = {p: (total(results, hpss_file(f"read-2-{p}"))
                / total(results, single("read", p)) - 1) * 100 for p in PATHS}
    writes = {p: (total(results, hpss_file(f"write-2-{p}"))
                  / total(results, single("write", p)) - 1) * 100 for p in SLOW}
    bad = [p for p in SLOW if not 0 <= gain[p] <= 20]
    return Verdict(", ".join(f"{NAMES[p]} {gain[p]:+.1f} %" for p in SLOW), passes_if(not bad),
                   "reads, two streams against one: "
                   + ", ".join(f"{NAMES[p]} {gain[p]:+.1f} %" for p in PATHS)
                   + " (criterion [0, 20] % on the H50 and F50); writes from two nodes' disks "
                   "(disk-bound, shown, not judged): "
                   + ", ".join(f"{NAMES[p]} {writes[p]:+.1f} %" for p in SLOW)
                   + (f"; outside the band: {', '.join(NAMES[p] for p in bad)}" if bad else ""),
                   bars("HPSS-2STREAM: read gain of two streams over one", "% gain",
                        [NAMES[p] for p in PATHS], [[gain[p]] for p in PATHS], (0, 20)))


# -- HPSS-FCDEV ----------------------------------------------------------------------

def _fcdev_judge(results: Results) -> Verdict:
    diff, shown = {}, {}
    for direction in ("read", "write"):
        ram = total(results, single(direction, "h70a"))
        stk = total(results, hpss_file(f"fcdev-{direction}-stk9176"))
        diff[direction] = (stk - ram) / ram * 100
        shown[direction] = (ram, stk)
    bad = [d for d, v in diff.items() if abs(v) > 10]
    return Verdict(", ".join(f"{d} {v:+.1f} %" for d, v in diff.items()), passes_if(not bad),
                   "one stream through the H70's first path, STK 9176 against TMS RAM-SAN: "
                   + "; ".join(f"{d} {shown[d][1]:.1f} against {shown[d][0]:.1f} MB/s"
                               for d in diff)
                   + " (criterion: within 10 %)"
                   + ("" if not bad else
                      ". The array model serves a read store-and-forward: its member disks' "
                      "pieces cross the 100 MB/s back-end loop before the first byte goes out "
                      "on the 1GFC front end, so a 1 MiB read costs both transfers in turn; an "
                      "array controller's pipelining and sequential prefetch are not "
                      "modelled, nor are the 9176's specifications known"),
                   bars("HPSS-FCDEV: STK 9176 against RAM-SAN", "% difference",
                        list(diff), [[v] for v in diff.values()], (-10, 10)))


CHECKS: dict[str, Check] = {
    "HPSS-READ9": _aggregate_judge(
        "HPSS-READ9", "read-9", 300, 330,
        "The H50 and F50 paths are held by their 32-bit PCI buses (each byte crosses twice), "
        "the H70's by its buses and its one modelled processor"),
    "HPSS-WRITE9": _aggregate_judge(
        "HPSS-WRITE9", "write-9", 175, 200,
        "Each stream runs at its node's local disk read rate"),
    "HPSS-WRITEHALF": Check(_half_points, _half_judge),
    "HPSS-MOVERS": Check(lambda: points_of([f"read-1-{p}" for p in PATHS]), _movers_judge),
    "HPSS-2STREAM": Check(lambda: points_of([f"{d}-{n}-{p}" for d in ("read", "write")
                                             for n in (1, 2) for p in PATHS
                                             if d == "read" or p in SLOW]), _two_judge),
    "HPSS-FCDEV": Check(lambda: points_of(["read-1-h70a", "write-1-h70a", "fcdev-read-stk9176",
                                           "fcdev-write-stk9176"]), _fcdev_judge),
}
"""The checks of the HPSS claims, by claim ID."""
