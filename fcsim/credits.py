"""``fcsim credits``: the buffer credits a link needs for full rate, from the
closed form (:mod:`fcsim.fabric.credit_planning`), the catalog switches whose
ports have that many, and, on request, a short simulated sweep that finds the
knee (the fewest credits at which the rate stops growing) to print beside the
formula."""

from __future__ import annotations

from dataclasses import dataclass

from fcsim.fabric.credit_planning import CreditPlan, catalog_switches, switches_offering
from fcsim.fc0.cable import Cable
from fcsim.fc2.login import ServiceParameters
from fcsim.runner import run_scenario
from fcsim.scenario.model import LinkConfig, NodeConfig, RunConfig, Scenario
from fcsim.scenario.workload_model import StreamConfig
from fcsim.units import format_bytes_rate

WINDOW_FRAMES = 4000
"""Frame slots each simulated point measures over (after its warm-up): enough
that one frame more or less moves the rate by 0.025 %."""
FULL = 1e-3
"""A point runs at full rate when its rate is within this fraction of the rate
with twice the formula's credits."""


@dataclass(frozen=True)
class Knee:
    """A simulated sweep: *credits*, the fewest credits that reach full rate;
    *rates*, the simulated payload rate (bytes/s) of every count tried."""

    credits: int
    rates: dict[int, float]


def simulated_rate(plan: CreditPlan, credits: int) -> float:
    """Payload bytes/s of a saturating Class 3 stream of *plan*'s frame size over
    a point-to-point link of *plan*'s speed and length, the receiver offering
    *credits* credits."""
    warmup = 2 * plan.round_trip + 20 * plan.frame_slot
    window = max(WINDOW_FRAMES * plan.frame_slot, 4 * plan.round_trip)
    few = ServiceParameters(bb_credit=credits)
    stream = StreamConfig("stream", "a", "b", plan.frame_size, cls=3, outstanding=2)
    scenario = Scenario(
        name="credits", topology="point-to-point",
        run=RunConfig(warmup + window, warmup, 1, 1),
        nodes=(NodeConfig("a", params=few), NodeConfig("b", params=few)),
        links=(LinkConfig("link", ("a", "b"), plan.speed, Cable(plan.length)),),
        workloads=(stream,))
    result = run_scenario(scenario)
    return float(result["repetitions"][0]["workloads"]["stream"]["throughput_bytes_per_s"])


def simulated_knee(plan: CreditPlan) -> Knee:
    """The fewest credits whose simulated rate is within :data:`FULL` of the
    rate with twice the formula's credits (found by bisection: the rate grows
    with the credits until full)."""
    top = 2 * plan.credits + 2
    rates = {top: simulated_rate(plan, top)}
    low, high = 0, top  # the rate at low is short of full (0 credits: nothing), at high full
    while high - low > 1:
        middle = (low + high) // 2
        rates[middle] = simulated_rate(plan, middle)
        if rates[middle] >= (1 - FULL) * rates[top]:
            high = middle
        else:
            low = middle
    for count in (high - 1, high + 1):
        if count >= 1 and count not in rates:
            rates[count] = simulated_rate(plan, count)
    return Knee(high, dict(sorted(rates.items())))


def credits_text(plan: CreditPlan, knee: Knee | None = None) -> str:
    """The answer as printed by ``fcsim credits``."""
    lines = [
        f"{plan.speed.name} over {plan.length / 1000:g} km, {plan.frame_size}-byte data "
        f"fields:",
        f"  round trip {plan.round_trip * 1e6:.3f} us (frame, 2 x propagation "
        f"{Cable(plan.length).delay * 1e6:.3f} us, 2 x FEC codeword "
        f"{plan.speed.codeword_time * 1e9:.1f} ns, R_RDY); one frame every "
        f"{plan.frame_slot * 1e6:.4f} us at full rate",
        f"  credits for full rate: {plan.credits} (ceil({plan.round_trip / plan.frame_slot:.2f}))"
        f"; full rate {format_bytes_rate(plan.full_rate)}",
    ]
    offering = switches_offering(plan.credits, catalog_switches())
    if offering:
        lines.append("  catalog switches with that many: " + ", ".join(
            f"{model.name} ({where})" for model, where in offering))
    else:
        lines.append("  catalog switches with that many: none")
    if knee is not None:
        lines.append(f"  simulated knee: {knee.credits} credits "
                     f"(formula {plan.credits})")
        lines.append("  credits  formula rate  simulated rate")
        for count, rate in knee.rates.items():
            lines.append(f"  {count:7d}  {format_bytes_rate(plan.rate(count)):>12}  "
                         f"{format_bytes_rate(rate):>14}")
    return "\n".join(lines) + "\n"
