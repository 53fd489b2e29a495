"""Receive buffers a switch port reserves for a long-distance ISL, from the
distance it is configured for, as Brocade Fabric OS computes them.

Brocade's ``portCfgLongDistance <port> LS <desired_distance>`` reserves
``distance_km x LinkSpeed_Gbps / 2 + 6`` buffers for a port (+14 more with
QoS): "(50 km * 2 Gbps / 2) + 6 = 56 buffers" (Brocade Fabric OS
Administrator's Guide 53-1001763-02, 53-1002745-02 and v7.3.0, "Buffer
credit management": 31, 56, 106, 206, 406 buffers at 50 km and 1, 2, 4, 8,
16 Gbit/s). The 6 are reserved for fabric services, multicast and broadcast,
on virtual channels of their own; data frames get the distance term,
``distance_km x Gbps / 2``, about one full frame per 2 km of round trip at
each Gbit/s, enough to keep the link busy with full frames. This model has
no virtual channels, so a port offers data frames that distance term; a
fractional result is rounded up (an assumption: the guide's examples are
whole numbers). LinkSpeed is the speed's name in Gbit/s (1, 2, 4, 8, 16, 32 for
1GFC ... 32GFC): its data rate in units of 1GFC's, 100 MB/s.
"""

from __future__ import annotations

import math

from fcsim.fc0.speed import Speed, speed_named

_ONE_GBIT = speed_named("1GFC").char_rate
"""Characters a second of 1GFC: the unit of the nominal speeds 1, 2, 4 ... Gbit/s."""


def nominal_gbps(speed: Speed) -> float:
    """*speed*'s nominal Fibre Channel rate in Gbit/s (4 for 4GFC, 16 for 16GFC)."""
    return speed.char_rate / _ONE_GBIT


def long_distance_buffers(distance: float, speed: Speed) -> int:
    """Receive buffers for data frames a switch port configured for *distance*
    (m, > 0) at *speed* offers: ``ceil(km x Gbps / 2)`` (Brocade's reserve
    without its 6 buffers for fabric services)."""
    if not distance > 0:
        raise ValueError(f"long-distance setting must be > 0 m, got {distance!r}")
    return max(1, math.ceil(distance / 1000 * nominal_gbps(speed) / 2 - 1e-9))
