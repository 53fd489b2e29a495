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
    resource (ValueError otherwise).

    Each round raises the level to where the next resource fills, stops the
    senders on the full ones and takes their entries out of the growth of
    every resource they load: an entry is touched when its sender stops and
    a resource's entries when it fills, so the work is the entries once plus
    one pass over the resources per distinct level."""
    resources = len(capacity)
    if np.any(np.bincount(cols, minlength=senders) == 0):
        raise ValueError("a sender that loads no resource has no max-min rate")
    rate = np.zeros(senders)
    bottleneck = np.full(senders, -1)
    frozen = np.zeros(senders, dtype=bool)
    # only entries on resources that can fill take part
    bounded = np.isfinite(capacity[rows])
    r, c, v = rows[bounded], cols[bounded], values[bounded]
    if np.any(np.bincount(c, minlength=senders) == 0):
        raise ValueError("a sender that no finite resource bounds has no max-min rate")
    by_sender = np.argsort(c, kind="stable")
    sender_start = np.searchsorted(c[by_sender], np.arange(senders + 1))
    by_resource = np.argsort(r, kind="stable")
    resource_start = np.searchsorted(r[by_resource], np.arange(resources + 1))
    moving = v > 0
    growth = np.bincount(r, weights=v, minlength=resources)
    users = np.bincount(r[moving], minlength=resources)  # entries of moving senders
    settled_load = np.zeros(resources)
    level = 0.0
    active = np.flatnonzero(users > 0)  # the resources whose load still grows
    while len(active):
        g = growth[active]
        room = (capacity[active] - settled_load[active] - g * level) / g
        step = max(float(room.min()), 0.0)
        level += step
        full = active[room <= step + TOLERANCE * max(1.0, level)]
        # the senders on a full resource stop; each names the first full one it uses
        entries = _slices(by_resource, resource_start, full)
        entries = entries[~frozen[c[entries]]]
        order = np.lexsort((r[entries], c[entries]))
        hit, first = np.unique(c[entries][order], return_index=True)
        bottleneck[hit] = r[entries][order][first]
        frozen[hit] = True
        rate[hit] = level
        gone = _slices(by_sender, sender_start, hit)
        gr, gv = r[gone], v[gone]
        np.add.at(settled_load, gr, gv * level)
        np.subtract.at(growth, gr, gv)
        np.subtract.at(users, gr[gv > 0], 1)
        active = active[users[active] > 0]
    if np.any(~frozen):
        raise ValueError("a sender that no finite resource bounds has no max-min rate")
    load = np.bincount(rows, weights=values * rate[cols], minlength=resources)
    return Filling(rate, bottleneck, load)


def _slices(order: np.ndarray, start: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The entries ``order[start[i]:start[i + 1]]`` of every *i* in *which*, in one array."""
    lo, hi = start[which], start[which + 1]
    lengths = hi - lo
    offsets = np.repeat(lo - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return order[offsets + np.arange(int(lengths.sum()))]
