"""Checks across keys of a fabric's ``[[zones]]``: names unique, every member
an N_Port (by name or port World Wide Name), every workload between N_Ports
that share a zone (unless ``[zoning]`` enforces them in hardware, when the
switches drop such a workload's frames), and ``[zoning]`` only with zones;
virtual N_Ports (NPIV) only with fabric login, without faults or cures that
reset links, never a link end; virtual channels only on an ISL between
switches with virtual output queues, without faults or cures that reset or
disable links, with enough channels for their assignment; ISL trunks as
Brocade forms them (:mod:`fcsim.fabric.trunk`), without faults or cures that
reset or disable links; ``[congestion.fencing]`` with a threshold,
``[congestion.ingress_limit]`` without BB_SC_N; a switch's ``drop_latency``
only with its ``in_order_delivery``. The scenario's checks
(:mod:`fcsim.scenario.checks`) call them with the N_Ports the nodes have."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from typing import Any

from fcsim.fabric.npiv import virtual_ports_of
from fcsim.fabric.trunk import DESKEW_LIMIT, MAX_MEMBERS
from fcsim.fabric.virtual_channels import least_channels
from fcsim.fc2.els_payload import port_wwn
from fcsim.schema.errors import Problem, given
from fcsim.schema.rules import unique


def member_ports(members: tuple[str, ...], ports: list[str]) -> list[str | None]:
    """The N_Port each of *members* names (its name or port WWN), None if none."""
    by_wwn = {port_wwn(port): port for port in ports}
    return [m if m in ports else by_wwn.get(m.lower()) for m in members]


def zone_problems(doc: Any, raw: dict[str, Any], ports: list[str]) -> Iterator[Problem]:
    """Every problem of the ``[[zones]]`` of the checked fabric *doc* read from
    *raw*, whose nodes have the N_Ports named *ports*."""
    zones = getattr(doc, "zones", [])
    enforcement = getattr(getattr(doc, "zoning", None), "enforcement", None)
    if not zones:
        if enforcement is not None:
            yield Problem("zoning", f"enforcement = {enforcement!r} with no [[zones]]",
                          "[zoning] in a fabric with [[zones]] to enforce")
        return
    raws = raw["zones"]
    yield from unique(raws, "zones", "name", [z.name for z in zones])
    sets = []
    for i, zone in enumerate(zones):
        resolved = member_ports(zone.members, ports)
        for j, (member, port) in enumerate(zip(zone.members, resolved, strict=True)):
            if port is None:
                yield Problem(f"zones[{i}].members[{j}]", given(member),
                              "an N_Port name or its port WWN: " + ", ".join(
                                  f"{p!r} ({port_wwn(p)})" for p in ports[:4])
                              + (", ..." if len(ports) > 4 else ""))
        sets.append({p for p in resolved if p is not None})
    if enforcement == "hard":
        return  # the switches drop the frames of a workload between unzoned N_Ports
    for i, w in enumerate(doc.workloads):
        for s, d in _pairs(w):
            if s in ports and d in ports and not any({s, d} <= zone for zone in sets):
                yield Problem(f"workloads[{i}]", f"from {s!r} to {d!r}",
                              "two N_Ports that share a zone (the name server shows an "
                              "N_Port only those)")


def _pairs(w: Any) -> list[tuple[str, str]]:
    """The (sender, receiver) names of workload section *w*."""
    if hasattr(w, "path"):
        return list(pairwise(w.path))
    sources = w.source if isinstance(w.source, tuple) else (w.source,)
    targets = w.destination if isinstance(w.destination, tuple) else (w.destination,)
    return [(s, d) for s in sources for d in targets]


def npiv_run_problems(login: bool, faults: bool, recovers: bool) -> Iterator[str]:
    """What a run with virtual N_Ports (NPIV) needs and does not have, one
    text each: fabric login (*login*), no faults (*faults*: the run has some)
    and no credit loss recovery or port fencing (*recovers*: it has one)."""
    if not login:
        yield "virtual N_Ports with run.login = true: they log in with FDISC"
    if faults or recovers:
        yield ("no virtual N_Ports in a run with faults, credit loss recovery or port "
               "fencing (their logging in again is not modelled)")


def npiv_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of the ``virtual_ports`` of the checked fabric *doc*'s nodes."""
    nodes = getattr(doc, "nodes", [])
    virtual = set(virtual_ports_of(nodes))
    for i, node in enumerate(nodes):
        count = getattr(node, "virtual_ports", 0)
        if not count:
            continue
        congestion = getattr(doc, "congestion", None)
        for allowed in npiv_run_problems(doc.run.login, bool(getattr(doc, "faults", [])),
                                         congestion is not None and (
                                             congestion.credit_loss_recovery is not None
                                             or congestion.fencing is not None)):
            yield Problem(f"nodes[{i}].virtual_ports", given(count), allowed)
        taken = [n.name for n in nodes if n.name in virtual]
        if taken:
            yield Problem(f"nodes[{i}].virtual_ports", given(count),
                          f"virtual N_Ports whose names (NAME.vk) are not another node's "
                          f"name: node {taken[0]!r} exists")
    for i, link in enumerate(getattr(doc, "links", [])):
        for j, end in enumerate(link.ends):
            if end in virtual:
                yield Problem(f"links[{i}].ends[{j}]", given(end),
                              "a node or switch port: a virtual N_Port shares its node's link")


def channel_problems(doc: Any, raws: list[dict[str, Any]],
                     isolation: bool = False) -> Iterator[Problem]:
    """Every problem of the virtual-channel keys of the checked fabric *doc*'s
    links, read from *raws*; *isolation*: the fabric isolates congestion."""
    yield from _recovery_with_channels(doc)
    models = {s.name: s.model for s in getattr(doc, "switches", [])}
    for i, (link, raw) in enumerate(zip(doc.links, raws, strict=True)):
        count = getattr(link, "virtual_channels", None)
        if count is None:
            for name in ("vc_credit", "vc_assignment"):
                if name in raw:
                    yield Problem(f"links[{i}].{name}", given(raw[name]),
                                  "given with virtual_channels")
            continue
        where = f"links[{i}].virtual_channels"
        if not all(":" in end for end in link.ends):
            yield Problem(where, given(count), "only on an inter-switch link (both ends "
                          "switch ports 'switch:port')")
            continue
        for end in link.ends:
            model = models.get(end.partition(":")[0])
            if model is not None and not model.virtual_output_queues:
                yield Problem(where, given(count), f"switches with virtual output queues at "
                              f"both ends ({end.partition(':')[0]}'s model {model.name} has "
                              "input FIFOs)")
        least = least_channels(link.vc_assignment, isolation)
        exact = link.vc_assignment == "priority"
        if count < least or (exact and count != least):
            yield Problem(where, given(count), f"{'exactly' if exact else 'at least'} "
                          f"{least} with vc_assignment = {link.vc_assignment!r}"
                          + (" and congestion isolation (a channel kept for the isolated "
                             "flows)" if isolation and not exact else ""))


def _recovery_with_channels(doc: Any) -> Iterator[Problem]:
    """One problem if the fabric *doc* has ISLs with virtual channels and
    something that resets or disables links (faults, credit loss recovery,
    fencing): link recovery on a channelled ISL is not modelled."""
    channelled = [f"links[{i}]" for i, link in enumerate(doc.links)
                  if getattr(link, "virtual_channels", None)
                  and all(":" in end for end in link.ends)]
    if not channelled:
        return
    cures = getattr(doc, "congestion", None)
    recovering = [name for name, present in (
        ("faults", bool(getattr(doc, "faults", []))),
        ("congestion.credit_loss_recovery",
         cures is not None and cures.credit_loss_recovery is not None),
        ("congestion.fencing", cures is not None and cures.fencing is not None)) if present]
    if recovering:
        yield Problem(recovering[0], f"given with virtual_channels on {', '.join(channelled)}",
                      "no faults, credit loss recovery or fencing in a fabric with virtual "
                      "channels (link recovery on a channelled ISL is not modelled): drop "
                      "one or the other; isolation and ingress_limit combine with them")


def isolation_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of the checked fabric *doc*'s ``[congestion.isolation]``
    read from *raw*: an ISL with virtual channels to isolate on, and a
    falling threshold not above the rising one."""
    section = getattr(getattr(doc, "congestion", None), "isolation", None)
    if section is None:
        return
    if not any(getattr(link, "virtual_channels", None) for link in doc.links):
        yield Problem("congestion.isolation", "given with no ISL with virtual_channels",
                      "[congestion.isolation] in a fabric with an inter-switch link with "
                      "virtual_channels (the isolated flows take its low-priority channel)")
    if section.falling_threshold > section.rising_threshold:
        yield Problem("congestion.isolation.falling_threshold",
                      given(raw["congestion"]["isolation"]["falling_threshold"]),
                      f"not above rising_threshold ({section.rising_threshold:g})")


def congestion_problems(doc: Any) -> Iterator[Problem]:
    """Every problem of the checked fabric *doc*'s ``[congestion]``: fencing
    needs a threshold; ingress rate limiting is not modelled on F_Ports that
    recover lost credit (a switch offering BB_SC_N)."""
    cures = getattr(doc, "congestion", None)
    fencing = getattr(cures, "fencing", None)
    if fencing is not None and fencing.txwait is None and fencing.credit_zero is None:
        yield Problem("congestion.fencing", "no threshold given",
                      "txwait, credit_zero or both: what fences a port")
    if getattr(cures, "ingress_limit", None) is not None:
        for i, switch in enumerate(getattr(doc, "switches", [])):
            if getattr(switch, "bb_sc_n", 0):
                yield Problem(f"switches[{i}].bb_sc_n", given(switch.bb_sc_n),
                              "0 with [congestion.ingress_limit] (ingress rate limiting "
                              "on a port that recovers lost credit is not modelled)")
        generated = getattr(getattr(doc, "fabric", None), "bb_sc_n", 0)
        if generated:
            yield Problem("fabric.bb_sc_n", given(generated),
                          "0 with [congestion.ingress_limit] (ingress rate limiting on a "
                          "port that recovers lost credit is not modelled)")


def fpin_problems(doc: Any) -> Iterator[Problem]:
    """The problems of ``[fpin]``: an alarm no lower than the warning, a
    throttle only with something that moves it."""
    fpin = getattr(doc, "fpin", None)
    if fpin is not None and fpin.throttle and not (fpin.congestion or fpin.signals):
        yield Problem("fpin.throttle", "given true with congestion = false and signals = false",
                      "congestion = true or signals = true with throttle = true")
    if fpin is not None and fpin.congestion_alarm < fpin.congestion_warning:
        yield Problem("fpin.congestion_alarm", f"given {fpin.congestion_alarm}",
                      f"a share at least congestion_warning ({fpin.congestion_warning})")


def trunk_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of the ``trunk_group`` keys of the checked fabric *doc*'s
    links: each trunk 2..8 inter-switch links between the same two switches,
    at one speed and coding, configured alike (receive buffers, distance,
    cost), cable lengths within :data:`DESKEW_LIMIT`, its name not a link's;
    not in a run with faults."""
    links = getattr(doc, "links", [])
    groups: dict[str, list[int]] = {}
    for i, link in enumerate(links):
        group = getattr(link, "trunk_group", None)
        if group is None:
            continue
        path = f"links[{i}].trunk_group"
        if any(":" not in end for end in link.ends):
            yield Problem(path, given(group), "only on an inter-switch link (both ends "
                          "'switch:port'): a trunk joins two switches")
            continue
        cures = getattr(doc, "congestion", None)
        if getattr(doc, "faults", []) or (cures is not None and (
                cures.credit_loss_recovery is not None or cures.fencing is not None)):
            yield Problem(path, given(group), "no ISL trunks in a run with faults, credit "
                          "loss recovery or fencing (FSPF and link recovery over a trunk "
                          "are not modelled)")
            continue
        if getattr(link, "virtual_channels", None):
            yield Problem(path, given(group), "no virtual_channels on a trunk member (virtual "
                          "channels over a trunk are not modelled)")
            continue
        groups.setdefault(group, []).append(i)
    names = {link.name for link in links if link.name}
    for group, members in groups.items():
        first = links[members[0]]
        last = f"links[{members[-1]}].trunk_group"
        if group in names:
            yield Problem(last, given(group), "a trunk name that is not a link's name")
        if not 2 <= len(members) <= MAX_MEMBERS:
            yield Problem(last, given(group), f"2 to {MAX_MEMBERS} links in one trunk "
                          f"(Brocade: up to eight ports in a trunk group); {len(members)} "
                          "name it")
        pair = {end.partition(":")[0] for end in first.ends}
        lengths = [links[i].length for i in members]
        for i in members[1:]:
            link, path = links[i], f"links[{i}]"
            other = {end.partition(":")[0] for end in link.ends}
            if other != pair or len(pair) != 2:
                yield Problem(f"{path}.ends", given(list(link.ends)), f"the switches of trunk "
                              f"{group!r}'s first link, {' and '.join(sorted(pair))}: a "
                              "trunk joins two switches directly")
            if (link.speed, getattr(link, "coding", None)) != (first.speed,
                                                              getattr(first, "coding", None)):
                yield Problem(f"{path}.speed", given(raw["links"][i].get("speed")),
                              f"the speed of trunk {group!r}'s first link, "
                              f"{raw['links'][members[0]].get('speed')}: a trunk's ports "
                              "run at one speed")
            for key in ("bb_credit", "long_distance", "cost"):
                if getattr(link, key, None) != getattr(first, key, None):
                    yield Problem(f"{path}.{key}", given(raw["links"][i].get(key)),
                                  f"as trunk {group!r}'s first link "
                                  f"({raw['links'][members[0]].get(key)}): a trunk's "
                                  "ports are configured alike")
        if max(lengths) - min(lengths) > DESKEW_LIMIT:
            longest = members[lengths.index(max(lengths))]
            yield Problem(f"links[{longest}].length", given(raw["links"][longest].get("length")),
                          f"cable lengths in trunk {group!r} within {DESKEW_LIMIT:g} m of "
                          f"each other (the shortest is {min(lengths):g} m; Brocade's deskew "
                          "limit)")
def in_order_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """A ``drop_latency`` given to a switch of the checked fabric *doc* (read
    from *raw*) without ``in_order_delivery = true``: it would do nothing."""
    raws = raw.get("switches", [])
    for i, switch in enumerate(getattr(doc, "switches", [])):
        if (i < len(raws) and isinstance(raws[i], dict) and "drop_latency" in raws[i]
                and not getattr(switch, "in_order_delivery", True)):
            yield Problem(f"switches[{i}].drop_latency", given(raws[i]["drop_latency"]),
                          "drop_latency only with in_order_delivery = true (it is the "
                          "pause of in-order delivery after a route change)")
