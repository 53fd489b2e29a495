"""The ``[run]`` table: how long to simulate, the warm-up, seeds and repetitions."""

from __future__ import annotations

from fcsim.schema.fields import flag, integer, time
from fcsim.schema.section import Section, key

Duration = time(above=True)
Warmup = time(note=" and < run.duration")
Seed = integer(0)
Repetitions = integer(1)
Flag = flag()


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
