"""The overview drawing of a large fabric: its switches in tiers, its N_Ports counted.

A fabric of hundreds of switches and thousands of N_Ports cannot be drawn
vertex by vertex (the picture would be a blot, and networkx's layout of more
than 500 vertices needs SciPy). Its overview shows what an engineer reads
from a fabric diagram instead:

- **tiers**: a switch that holds N_Ports is in the outer tier; every other
  switch is as many tiers in as it is ISL hops from the nearest such switch.
  The tiers are drawn as concentric rings, the farthest from the N_Ports in
  the middle: a core-edge fabric shows its cores inside the ring of its edge
  switches, a fat tree its cores, aggregation and edge switches as three
  rings, a full mesh one ring. A switch on an inner ring sits at the mean
  angle of its neighbours outside, so that a fat tree's pods stay together.
- **ISLs**: one straight line per pair of switches, thicker for parallel ISLs.
- **N_Ports**: one marker just outside each switch that holds any, with their
  count, instead of a circle each.
- **a caption** with the counts: switches per tier, N_Ports and the speeds
  of their links, ISLs and theirs.

Positions are computed here (a few sines and cosines), so the overview needs
no SciPy; the same scenario always gives the same picture.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import BinaryIO

import networkx as nx
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

SWITCH_COLOUR = "#f4b942"
"""Switches, as in the detailed drawing."""
NPORT_COLOUR = "#7fb3d5"
"""N_Ports, as in the detailed drawing."""


@dataclass(frozen=True)
class Overview:
    """What the overview of a fabric shows.

    *tiers*: the switches of each tier, innermost first, the outer tier (the
    switches holding N_Ports) last. *nports*: N_Ports linked to each switch
    that holds any. *isls*: ISLs between each pair of switches (names
    sorted). *nport_speeds* and *isl_speeds*: how many links of each speed.
    """

    tiers: tuple[tuple[str, ...], ...]
    nports: dict[str, int]
    isls: dict[tuple[str, str], int]
    nport_speeds: Counter[str]
    isl_speeds: Counter[str]

    def caption(self) -> str:
        """The counts in words, e.g. ``"239 switches in 2 tiers, inside out: 4,
        235 (with the N_Ports); 3,995 N_Ports, 17 on each of 235 switches,
        links 4GFC; 940 ISLs, 4GFC"``."""
        switches = sum(len(tier) for tier in self.tiers)
        tiers = ", ".join(f"{len(tier):,}" for tier in self.tiers)
        text = (f"{switches:,} switches in {len(self.tiers)} tier"
                f"{'' if len(self.tiers) == 1 else 's, inside out: ' + tiers}")
        total = sum(self.nports.values())
        if total:
            text += " (with the N_Ports)" if len(self.tiers) > 1 else ""
            counts = sorted(set(self.nports.values()))
            each = (f"{counts[0]:,} on each of {len(self.nports):,} switches"
                    if len(counts) == 1 else
                    f"{counts[0]:,} to {counts[-1]:,} on each of {len(self.nports):,} switches")
            text += f"; {total:,} N_Ports, {each}, links {_speeds(self.nport_speeds)}"
        isls = sum(self.isls.values())
        if isls:
            text += f"; {isls:,} ISLs, {_speeds(self.isl_speeds)}"
        return text


def _speeds(counts: Counter[str]) -> str:
    """``"4GFC"``, or ``"4GFC x 900, 8GFC x 40"`` for mixed speeds."""
    if len(counts) == 1:
        return next(iter(counts))
    return ", ".join(f"{speed} x {n:,}" for speed, n in counts.most_common())


def overview(graph: nx.MultiGraph) -> Overview:
    """The overview of the topology *graph* (:func:`~fcsim.drawing.topology.topology_graph`:
    vertices of ``kind`` "node" or "switch", edges ``label``-led with their speed)."""
    kinds = dict(graph.nodes(data="kind"))
    switches = [name for name, kind in kinds.items() if kind == "switch"]
    nports: Counter[str] = Counter()
    isls: Counter[tuple[str, str]] = Counter()
    nport_speeds: Counter[str] = Counter()
    isl_speeds: Counter[str] = Counter()
    neighbours: dict[str, set[str]] = {name: set() for name in switches}
    for a, b, speed in graph.edges(data="label"):
        ends = sorted((kinds[a], kinds[b]))
        if ends == ["switch", "switch"] and a != b:
            pair = (min(a, b), max(a, b))
            isls[pair] += 1
            isl_speeds[speed] += 1
            neighbours[a].add(b)
            neighbours[b].add(a)
        elif ends == ["node", "switch"]:
            nports[a if kinds[a] == "switch" else b] += 1
            nport_speeds[speed] += 1
    hops = _hops(switches, neighbours, [name for name in switches if nports[name]])
    deepest = max(hops.values(), default=0)
    tiers = tuple(tuple(name for name in switches if hops[name] == depth)
                  for depth in range(deepest, -1, -1))
    return Overview(tuple(tier for tier in tiers if tier), dict(+nports), dict(isls),
                    nport_speeds, isl_speeds)


def _hops(switches: list[str], neighbours: dict[str, set[str]],
          holders: list[str]) -> dict[str, int]:
    """Each switch's ISL hops from the nearest of *holders* (breadth first); a
    switch no path reaches, or every switch if none holds N_Ports, counts 0."""
    hops = dict.fromkeys(holders, 0)
    frontier = list(holders)
    while frontier:
        following = []
        for name in frontier:
            for other in sorted(neighbours[name]):
                if other not in hops:
                    hops[other] = hops[name] + 1
                    following.append(other)
        frontier = following
    return {name: hops.get(name, 0) for name in switches}


def positions(view: Overview) -> dict[str, tuple[float, float]]:
    """Where each switch is drawn: tier *i* of *n* (innermost first) on the ring
    of radius (i + 1) / n, the outer tier on the unit circle in the order
    given, starting at the top and going clockwise; an inner switch ordered by
    the mean angle of its neighbours further out; a tier of one switch in the
    middle when it is the innermost."""
    where: dict[str, tuple[float, float]] = {}
    angle: dict[str, float] = {}
    neighbours: dict[str, list[str]] = {}
    for a, b in view.isls:
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    count = len(view.tiers)
    for index in range(count - 1, -1, -1):
        tier = view.tiers[index]
        if index < count - 1:  # by the neighbours already placed, further out
            def mean(name: str) -> float:
                placed = [angle[n] for n in neighbours.get(name, []) if n in angle]
                if not placed:
                    return math.inf
                mean_angle = math.atan2(sum(math.sin(a) for a in placed),
                                        sum(math.cos(a) for a in placed))
                return (math.pi / 2 - mean_angle) % (2 * math.pi)  # clockwise from the top
            tier = tuple(sorted(tier, key=mean))
        radius = 0.0 if index == 0 and len(tier) == 1 and count > 1 else (index + 1) / count
        for k, name in enumerate(tier):
            theta = math.pi / 2 - 2 * math.pi * k / len(tier)
            angle[name] = theta % (2 * math.pi)
            where[name] = (radius * math.cos(theta), radius * math.sin(theta))
    return where


def overview_figure(graph: nx.MultiGraph, title: str) -> Figure:
    """The overview of the topology *graph*, drawn, titled *title*."""
    view = overview(graph)
    where = positions(view)
    outer = len(view.tiers[-1]) if view.tiers else 1
    side = min(18.0, max(9.0, 4.0 + outer * 0.05))
    fig = Figure(figsize=(side, side + 0.8))
    ax = fig.add_axes((0.02, 0.07, 0.96, 0.88))
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_xlim(-1.32, 1.32)
    ax.set_ylim(-1.32, 1.32)
    ax.set_title(title, fontsize=12)
    points_per_unit = side * 72 * 0.96 / 2.64  # axis units to points
    pairs = list(view.isls.items())
    if pairs:
        ax.add_collection(LineCollection(
            [(where[a], where[b]) for (a, b), _ in pairs],
            linewidths=[0.4 + 0.5 * (n - 1) for _, n in pairs], colors="#4a4a4a",
            alpha=min(0.8, max(0.2, 40 / len(pairs))), zorder=1))
    for index, tier in enumerate(view.tiers):
        spacing = _spacing(tier, where, points_per_unit)
        size = min(14.0, max(3.0, 0.7 * spacing))  # marker side, points
        xs, ys = zip(*(where[name] for name in tier), strict=True)
        ax.scatter(xs, ys, marker="s", s=size ** 2, c=SWITCH_COLOUR, edgecolors="#8a5a00",
                   linewidths=0.5, zorder=3)
        font = min(8.0, max(3.0, 0.8 * spacing))
        for name in tier:
            if index == len(view.tiers) - 1:  # the outer ring: inside it, along the radius
                _radial_text(ax, where[name], name, font, inward=True,
                             offset=size * 0.9 / points_per_unit)
            else:  # an inner ring, among the ISLs: level, on a white ground
                _level_text(ax, where[name], name, font, size / points_per_unit)
    spacing = _spacing(view.tiers[-1], where, points_per_unit) if view.tiers else 40.0
    badge_size = min(14.0, max(3.0, 0.7 * spacing))
    for name, count in view.nports.items():
        x, y = where[name]
        radius = math.hypot(x, y) or 1.0
        badge = (x + x / radius * 0.07, y + y / radius * 0.07)
        ax.plot([x, badge[0]], [y, badge[1]], color="#7a9cb8", linewidth=0.5, zorder=2)
        ax.scatter([badge[0]], [badge[1]], marker="o", s=badge_size ** 2, c=NPORT_COLOUR,
                   edgecolors="#2e6d9a", linewidths=0.5, zorder=3)
        _radial_text(ax, badge, f"{count:,}", min(8.0, max(3.0, 0.8 * spacing)),
                     inward=False, offset=0.035)
    ax.legend(handles=[
        Line2D([], [], marker="s", linestyle="", markerfacecolor=SWITCH_COLOUR,
               markeredgecolor="#8a5a00", label="switch"),
        Line2D([], [], marker="o", linestyle="", markerfacecolor=NPORT_COLOUR,
               markeredgecolor="#2e6d9a", label="its N_Ports (how many)"),
        Line2D([], [], color="#4a4a4a", label="ISL (thicker: parallel ISLs)")],
        loc="upper left", fontsize=9, frameon=False)
    fig.text(0.5, 0.03, view.caption(), ha="center", va="center", fontsize=10, wrap=True)
    return fig


def draw_overview(graph: nx.MultiGraph, title: str, out: BinaryIO, suffix: str) -> None:
    """Draw the overview of the topology *graph* into *out* as *suffix* (.png/.svg)."""
    overview_figure(graph, title).savefig(out, format=suffix.lstrip("."), dpi=150)


def _spacing(tier: tuple[str, ...], where: dict[str, tuple[float, float]],
             points_per_unit: float) -> float:
    """Points between neighbouring switches of *tier* along their ring."""
    if len(tier) < 2:
        return 40.0
    radius = math.hypot(*where[tier[0]])
    return 2 * math.pi * radius / len(tier) * points_per_unit


def _level_text(ax: Axes, at: tuple[float, float], text: str, size: float,
                marker: float) -> None:
    """*text* level beside the marker at *at* (*marker*: its side in axis units),
    on the side away from the middle (below a switch in the middle), on a white
    ground over the ISLs and under the markers."""
    x, y = at
    radius = math.hypot(x, y)
    ux, uy = (x / radius, y / radius) if radius else (0.0, -1.0)
    ax.text(x + ux * marker, y + uy * marker, text, fontsize=size, zorder=2.5,
            ha="left" if ux > 0.38 else "right" if ux < -0.38 else "center",
            va="bottom" if uy > 0.38 else "top" if uy < -0.38 else "center",
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.85})


def _radial_text(ax: Axes, at: tuple[float, float], text: str, size: float,
                 inward: bool, offset: float) -> None:
    """*text* at *at* (not the middle), pushed *offset* (axis units) out from the
    middle (in if *inward*), along the radius (turned upright on the left half)."""
    x, y = at
    radius = math.hypot(x, y)
    ux, uy = x / radius, y / radius
    sign = -1.0 if inward else 1.0
    degrees = math.degrees(math.atan2(uy, ux))
    left = ux < 0
    outward = (not inward) != left
    ax.text(x + sign * ux * offset, y + sign * uy * offset, text, fontsize=size,
            rotation=degrees + 180 if left else degrees, rotation_mode="anchor",
            ha="left" if outward else "right", va="center")
