"""An ISL trunk of k members carries one exchange at k times one ISL's
payload rate (docs/fabric-services.md, "ISL trunking")."""

from __future__ import annotations

import pytest

from fcsim.fc0.speed import speed_named
from fcsim.fc2.frame import FRAMING_BYTES, MAX_DATA_FIELD
from fcsim.fc2.port import MIN_FILL_WORDS
from fcsim.runner import run_once
from tests.trunk_fabric import ISL_SPEED, trunk_scenario


def isl_payload_rate() -> float:
    """Payload bytes/s of one ISL sending full frames back to back: a frame's
    characters (its data field and framing) and the fill words after it."""
    chars = MAX_DATA_FIELD + FRAMING_BYTES + 4 * MIN_FILL_WORDS
    return speed_named(ISL_SPEED).char_rate * MAX_DATA_FIELD / chars


@pytest.mark.parametrize("members", [2, 4, 8])
def test_a_trunk_of_k_isls_carries_one_exchange_at_k_times_one_isls_rate(members: int) -> None:
    result = run_once(trunk_scenario([10.0] * members), 1)
    rate = result["workloads"]["s"]["throughput_bytes_per_s"]
    assert rate == pytest.approx(members * isl_payload_rate(), rel=0.005)


def test_plain_parallel_isls_carry_one_exchange_at_one_isls_rate() -> None:
    """The same exchange over the same ISLs untrunked takes one of them."""
    result = run_once(trunk_scenario([10.0] * 4, trunked=False), 1)
    rate = result["workloads"]["s"]["throughput_bytes_per_s"]
    assert rate == pytest.approx(isl_payload_rate(), rel=0.005)
