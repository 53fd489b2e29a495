"""TCP over a link with bit errors, against what its retransmission rules
predict: netperf TCP_RR with one 1-byte segment each way in flight has no
duplicate ACKs for a fast retransmit, so a transaction whose request or
response frame is hit waits for the retransmission timer, at its floor
(4.4BSD TCPTV_MIN, 1 s) since the round trip is far below it. With frame
loss q = 1 - (1 - p)^(10 x characters) per direction, a transaction fails
with probability P = 1 - (1 - q)^2, and the rate is 1 / (T0 + P x RTO), T0
the lossless round trip. Second-order terms (a retransmission hit again,
backed off to 2 s) add about 2 q, 2 %."""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from fcsim.runner import run_once
from fcsim.scenario.loader import scenario_from_document
from fcsim.transport.tcp_config import TcpConfig

RTO_MIN = next(f.default for f in fields(TcpConfig) if f.name == "rto_min")
"""The retransmission timer's floor, s (4.4BSD TCPTV_MIN, TcpConfig's default)."""

ROOT = Path(__file__).resolve().parents[2]
BER = 1e-5
LENGTH = 400.0
"""Seconds of TCP_RR: about 370 failed transactions, whose Poisson count has a
relative standard deviation of 5 %; the test allows 15 % (three of them)."""


class FrameSizes:
    """Trace sink counting the frames of each size that carry an upper layer's
    unit (the connection's set-up, then the transactions' requests and
    responses)."""

    def __init__(self) -> None:
        self.chars: Counter[int] = Counter()

    def frame(self, time: float, port: Any, frame: Any, start: float, end: float) -> None:
        if frame.sequence is not None and frame.sequence.ulp is not None:
            self.chars[frame.chars] += 1

    def primitive(self, time: float, port: Any, name: str, start: float) -> None:
        """Not needed."""

    def state(self, time: float, port: Any, change: str) -> None:
        """Not needed."""


def scenario(ber: float, length: float):
    document = tomllib.loads((ROOT / "scenarios" / "tcp-noisy-link.toml").read_text())
    document["run"]["duration"] = f"{length + 0.1} s"
    document["workloads"][0]["length"] = f"{length} s"
    document["faults"] = [{"at": "0 s", "kind": "bit-error-rate", "link": "fibre",
                           "bit_error_rate": ber}] if ber else []
    return scenario_from_document(document, "tcp-noisy-link.toml")


def test_tcp_rr_over_bit_errors_loses_what_its_timer_predicts() -> None:
    sizes = FrameSizes()
    clean = run_once(scenario(0.0, 2.0), 1, [sizes])["netperf"]["rr"]
    t0 = clean["round_trip_s"]
    ((chars, _),) = sizes.chars.most_common(1)  # requests and responses: one size
    q = 1 - (1 - BER) ** (10 * chars)
    failed = 1 - (1 - q) ** 2
    predicted = 1 / (t0 + failed * RTO_MIN)
    noisy = run_once(scenario(BER, LENGTH), 1)
    rate = noisy["netperf"]["rr"]["transactions_per_s"]
    assert rate == pytest.approx(predicted, rel=0.15)
    assert rate < 0.05 / t0  # a twentieth of the clean rate, or less
    directions = noisy["links"]["fibre"]["directions"].values()
    errors, frames = sum(d["errors"] for d in directions), sum(d["frames"] for d in directions)
    assert errors / frames == pytest.approx(q, rel=0.15)  # about 390 errors
    assert noisy["faults"]["schedule"][0]["bytes_retransmitted"] > 0.8 * errors
