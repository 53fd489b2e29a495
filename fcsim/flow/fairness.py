"""Max-min fair rates by progressive filling (water-filling).

Every sender's rate rises at the same pace from zero; when a resource is
full (its load reaches its capacity) the senders that use it stop there and
the others go on, until every sender has stopped (Bertsekas and Gallager,
*Data Networks*, 2nd ed., 1992, §6.5.2, "progressive filling"). The result
is max-min fair: no sender's rate can grow without lowering that of one
whose rate is no larger.

Resources and senders are a sparse matrix: sender *j* puts ``value`` units
of load on resource *i* per unit of its rate (a link's seconds of line per
frame, a hop's credit-seconds per frame, ...); resource *i* holds at most
``capacity[i]``. The computation is numpy over the matrix's entries, once
per distinct level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TOLERANCE = 1e-9
"""Relative slack under which a resource counts as full."""


@dataclass(frozen=True)
class Filling:
    """The outcome: each sender's *rate* and the index of the resource that
    stopped it (*bottleneck*), and each resource's *load*."""

    rate: np.ndarray
    bottleneck: np.ndarray
    load: np.ndarray


def max_min(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, capacity: np.ndarray,
            senders: int) -> Filling:
    """Max-min fair rates of *senders* senders over the resources of *capacity*;
    the entries (*rows*, *cols*, *values*) give sender ``cols[k]``'s load on
    resource ``rows[k]`` per unit of rate. Every sender must load some
    resource (ValueError otherwise)."""
    resources = len(capacity)
    if np.any(np.bincount(cols, minlength=senders) == 0):
        raise ValueError("a sender that loads no resource has no max-min rate")
    rate = np.zeros(senders)
    bottleneck = np.full(senders, -1)
    frozen = np.zeros(senders, dtype=bool)
    # only entries on resources that can fill take part; frozen senders' load is kept aside
    bounded = np.isfinite(capacity[rows])
    r, c, v = rows[bounded], cols[bounded], values[bounded]
    unbounded = np.bincount(c, minlength=senders) == 0
    settled_load = np.zeros(resources)
    level = 0.0
    while True:
        growth = np.bincount(r, weights=v, minlength=resources)
        load = settled_load + growth * level
        grows = growth > 0
        if not grows.any():
            break  # what moves is bounded nowhere
        room = np.full(resources, np.inf)
        room[grows] = (capacity[grows] - load[grows]) / growth[grows]
        step = max(float(room.min()), 0.0)
        level += step
        full = grows & (room <= step + TOLERANCE * np.maximum(1.0, level))
        # the senders on a full resource stop; each names the first full one it uses
        on_full = full[r]
        hit = np.unique(c[on_full])
        first = np.full(senders, resources)
        np.minimum.at(first, c[on_full], r[on_full])
        bottleneck[hit] = first[hit]
        frozen[hit] = True
        rate[hit] = level
        stays = ~frozen[c]
        settled_load += np.bincount(r[~stays], weights=v[~stays] * level, minlength=resources)
        r, c, v = r[stays], c[stays], v[stays]
        if not len(r):
            break
    if np.any(unbounded | ~frozen):
        raise ValueError("a sender that no finite resource bounds has no max-min rate")
    load = np.bincount(rows, weights=values * rate[cols], minlength=resources)
    return Filling(rate, bottleneck, load)
