"""Recovery after a cable is put back, against its closed form: the primitive
sequence handshake (five one-way trips, each recognised after three ordered
sets, after the receiver's signal and synchronisation) plus the
point-to-point login (FLOGI both ways, PLOGI: two round trips and four
116-byte frames)."""

from __future__ import annotations

import dataclasses

import pytest

from fcsim.faults.config import FaultConfig
from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import frame_chars
from fcsim.fc2.port_states import IDLES_ON_ENTRY, LOS_DEASSERT, RECOGNITION_WORDS, SYNC_WORDS
from fcsim.runner import run_once
from fcsim.scenario.workload_model import StreamConfig
from tests.builders import p2p

STEPS = 5
"""Primitive sequences the handshake waits for: NOS, OLS, LR, LRR, Idle."""
R_RDY_WORDS = 3
"""Replies (FLOGI's ACC, PLOGI, PLOGI's ACC) sent just after their port frees
the buffer of the frame they answer: each waits for that R_RDY's word."""


@pytest.mark.parametrize("speed", ["1GFC", "4GFC"])
@pytest.mark.parametrize("length", [1_000.0, 10_000.0, 50_000.0])
def test_recovery_takes_the_handshake_and_the_login(speed: str, length: float) -> None:
    up = 0.004
    scenario = dataclasses.replace(
        p2p((StreamConfig("w", "a", "b", 8192),), 0.01, speed=speed, length=length),
        faults=(FaultConfig(0.002, "link-down", link="link"),
                FaultConfig(up, "link-up", link="link")))
    record = run_once(scenario, 1)["faults"]["schedule"][1]
    rate = speed_named(speed)
    d, w = length * 5e-9, rate.word_time
    frame = frame_chars(116) * rate.char_time
    handshake = STEPS * d + LOS_DEASSERT + (SYNC_WORDS + STEPS * RECOGNITION_WORDS) * w
    login = IDLES_ON_ENTRY * w + 4 * frame + 4 * d + R_RDY_WORDS * w
    assert record["recovered_s"] == pytest.approx(up + handshake + login, abs=1e-9)
    assert record["time_to_recover_s"] == pytest.approx(handshake + login, abs=1e-9)
