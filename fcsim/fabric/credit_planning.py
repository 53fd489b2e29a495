"""How many buffer-to-buffer credits a link needs for full rate, from the
closed form, and which switches of the catalog offer that many on a port.

A credit comes back to the sender one round trip after the frame that used
it began: the frame's own line time, the propagation delay out, the
receiver's FEC decoding wait (a whole codeword must arrive, FC-FS-4 5.4, for
the frame and again for the R_RDY), the R_RDY's line time and the
propagation delay back. Meanwhile a sender at full rate starts a frame every
frame slot (the frame and its fill words). So full rate needs

    credits = ceil(round trip / frame slot)

and with fewer credits the rate is ``credits x frame slot / round trip`` of
full rate. The frame slot depends on the data field size: vendors'
long-distance formulas (Brocade Fabric OS Administrator's Guide, "Buffer
credit management": ``km x Gbps / 2``) assume full 2112-byte frames, which
understates the credits a workload of smaller frames needs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fcsim.catalog import MODELS_DIR
from fcsim.fabric.switch_model import SwitchModel, load_switch_model
from fcsim.fc0.cable import Cable
from fcsim.fc0.speed import Speed
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port import MIN_FILL_WORDS


@dataclass(frozen=True)
class CreditPlan:
    """The closed form's answer for one link: *credits* for full rate with
    frames of *frame_size* data bytes; *round_trip* and *frame_slot* (s) it
    comes from; *full_rate* (payload bytes/s at full rate)."""

    speed: Speed
    length: float
    frame_size: int
    round_trip: float
    frame_slot: float
    credits: int
    full_rate: float

    def rate(self, credits: int) -> float:
        """Payload bytes/s the link carries with *credits* credits: the full
        rate from :attr:`credits` on (the planned count, which forgives the
        rounding of a round trip that is a whole number of frame slots), else
        that share of it the credits keep busy in a round trip."""
        if credits >= self.credits:
            return self.full_rate
        return self.full_rate * credits * self.frame_slot / self.round_trip


def plan(speed: Speed, cable: Cable, frame_size: int) -> CreditPlan:
    """The credits a link of *speed* over *cable* needs to run at full rate with
    frames of *frame_size* data bytes (1..2112)."""
    chars = frame_chars(frame_size)
    frame_time = chars * speed.char_time
    slot = (chars + 4 * MIN_FILL_WORDS) * speed.char_time
    round_trip = (frame_time + 2 * cable.delay + 2 * speed.codeword_time
                  + speed.word_time)
    credits = max(1, math.ceil(round_trip / slot - 1e-9))
    return CreditPlan(speed, cable.length, frame_size, round_trip, slot, credits,
                      frame_size / slot)


def catalog_switches() -> list[SwitchModel]:
    """Every switch model of the catalog (``models/switches``), by name."""
    return [load_switch_model(path.stem)
            for path in sorted((MODELS_DIR / "switches").glob("*.toml"))]


def switches_offering(credits: int, models: list[SwitchModel]) -> list[tuple[SwitchModel, str]]:
    """The *models* whose ports can have *credits* buffers: each with "every
    port" (its default per-port credit suffices) or "long-distance port" (only
    a port given its most buffers, :attr:`SwitchModel.max_port_credit`)."""
    found = []
    for model in models:
        if model.bb_credit >= credits:
            found.append((model, "every port"))
        elif model.max_port_credit is not None and model.max_port_credit >= credits:
            found.append((model, "long-distance port"))
    return found
