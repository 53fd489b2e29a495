"""The ``[run]`` table: how long to simulate, the warm-up, seeds and repetitions."""

from __future__ import annotations

from fcsim.schema.fields import flag, fraction, integer, table, time
from fcsim.schema.section import Section, key

Duration = time(above=True)
Warmup = time(note=" and < run.duration")
Seed = integer(0)
Repetitions = integer(1)
Flag = flag()
Confidence = fraction("a fraction in (0, 1) such as 0.99", above=True)
Precision = fraction("a fraction in (0, 1) such as 0.01 (1 %)", above=True)
Batches = integer(2, text="an integer >= 2 (batches)")
Views = integer(1, text="an integer >= 1 (views)")
Cycles = integer(3, text="an integer >= 3 (cycles)")


class SteadyStateSection(Section):
    """Steady-state stopping (see docs/performance.md): every netperf TCP_STREAM
    and TCP_RR test counts its bytes or transactions in batches; once each one's
    steady rate is known to `precision` at `confidence` (method of batch means,
    judged on batches of `batch`, 2 x `batch`, ... up to `views` lengths, after
    the first widest batch and any start-up transient), the run ends, and each
    test reports its full `length`'s figure as measured so far plus that rate
    times the length left. With `cycles`, a test that repeats a cycle no batch
    length divides is judged on batches of one cycle too. A test that does not
    settle runs its whole length.
    Only for files whose workloads are all netperf TCP tests."""

    where = "in [run.steady_state]"

    confidence: Confidence = key(0.99, "Confidence level of the interval.", 0.95)
    precision: Precision = key(
        0.01, "Largest half-width of the interval, as a fraction of the rate.", 0.005)
    batch: Duration = key("0.2 s", "Length of a batch, s.", "0.5 s")
    batches: Batches = key(
        10, "Fewest batches judged, after those left out at the start.", 20)
    views: Views = key(
        1, "Batch lengths judged: `batch`, 2 x `batch`, ... 2^(views - 1) x `batch`, "
        "each at an even share of the confidence's error; the shortest precise enough "
        "is taken.", 3)
    cycles: Cycles = key(
        None, "Also look for a cycle the counts repeat (the lag at which their "
        "autocorrelation peaks, 0.5 or more) and judge batches one cycle long as one more "
        "view, once this many whole cycles are counted (default: no cycle view).", 4)


Steady = table(SteadyStateSection, "a table, written [run.steady_state]")


class RunSection(Section):
    """How long the simulation runs and how often. It runs from 0 to `duration`;
    results cover `warmup` to `duration` (counters are zeroed at the end of the
    warm-up). Repetition *i* (from 0) uses seed `seed + i`; the results give each
    repetition and a summary (mean, min, max)."""

    where = "in [run]"

    duration: Duration = key(help="Simulated time to run, s.", example="10 ms")
    warmup: Warmup = key(
        "0 s", "Time at the start not counted in the results, s.", "1 ms")
    seed: Seed = key(1, "Seed of the first repetition's random numbers.", 7)
    repetitions: Repetitions = key(1, "Runs with seeds seed, seed + 1, ...", 5)
    login: Flag = key(
        True, "Fabric only: at time 0 every N_Port logs in frame by frame (FLOGI to the "
        "fabric login server, PLOGI to the name server, a GID_FT query, then PLOGI to each "
        "N_Port its workloads send to) and its workloads start when the last answer arrives "
        "(reported per node as login_s). With false, and on other topologies, logins take "
        "no time.", False)
    steady_state: Steady = key(
        None, "End the run once every netperf test's rate is known closely enough "
        "(a table; default: run the whole duration).", {"precision": 0.01})
