"""Checks across keys of the ``[[faults]]`` tables: one target each, of a kind
the fault accepts, that exists in the scenario; the keys each kind needs and
no others; faults within the run; a cable put back only once pulled out."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fcsim.faults.config import (
    BIT_ERROR_RATE,
    CORRUPTED_CHARACTERS,
    KINDS,
    LINK_DOWN,
    LINK_UP,
    LIP,
    LOSS_OF_SYNC,
    PORT_FAILURE,
    SWITCH_FAILURE,
    ScheduledFaultSection,
)
from fcsim.fc3.ports import ports_of
from fcsim.schema.errors import Problem, given, show

TARGET_KEYS = ("link", "ends", "port", "switch")
"""The keys that name a fault's target; a fault has exactly one."""
TARGETS = {LINK_DOWN: ("link", "ends"), LINK_UP: ("link", "ends"),
           BIT_ERROR_RATE: ("link", "ends"), LOSS_OF_SYNC: ("link", "ends", "port"),
           CORRUPTED_CHARACTERS: ("link", "ends", "port"), PORT_FAILURE: ("port",),
           SWITCH_FAILURE: ("switch",), LIP: ("port",)}
"""The target keys each kind accepts."""
NEEDS = {LOSS_OF_SYNC: "duration", BIT_ERROR_RATE: "bit_error_rate",
         CORRUPTED_CHARACTERS: "characters"}
"""The key each kind must have."""
TAKES = {"duration": (LOSS_OF_SYNC, PORT_FAILURE, SWITCH_FAILURE, LINK_DOWN, BIT_ERROR_RATE),
         "bit_error_rate": (BIT_ERROR_RATE,), "characters": (CORRUPTED_CHARACTERS,),
         "from": (BIT_ERROR_RATE,),
         "every": tuple(k for k in KINDS if k != LINK_UP),
         "mean_interval": tuple(k for k in KINDS if k != LINK_UP)}
"""The kinds each kind-specific key belongs to."""
LASTING = (LOSS_OF_SYNC, PORT_FAILURE, SWITCH_FAILURE, LINK_DOWN, BIT_ERROR_RATE)
"""The kinds that need a duration to repeat (the others are over by themselves)."""
KINDS_OF = {"point-to-point": tuple(k for k in KINDS if k not in (LIP, SWITCH_FAILURE)),
            "fabric": tuple(k for k in KINDS if k != LIP), "loop": (LIP,),
            "ethernet": (LINK_DOWN, LINK_UP, SWITCH_FAILURE),
            "myrinet": (LINK_DOWN, LINK_UP, SWITCH_FAILURE)}
"""The kinds of fault each topology models."""


def _words(names: tuple[str, ...]) -> str:
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def fault_problems(doc: Any, raw: dict[str, Any]) -> Iterator[Problem]:
    """Every problem of the ``[[faults]]`` of the checked document *doc* (a
    point-to-point, fabric or loop scenario) read from *raw*."""
    faults = getattr(doc, "faults", [])
    if not faults:
        return
    raws = raw["faults"]
    links = {} if doc.topology == "loop" else {
        link.name or f"link{i}": tuple(link.ends) for i, link in enumerate(doc.links)}
    switches = [s.name for s in getattr(doc, "switches", [])]
    ports = list(ports_of(doc.nodes)) + [end for ends in links.values() for end in ends
                                        if ":" in end]
    cables = _cables(faults, raws, links)
    for i, fault in enumerate(faults):
        given_keys, path = raws[i], f"faults[{i}]"
        if fault.at >= doc.run.duration:
            yield Problem(f"{path}.at", given(given_keys["at"]),
                          f"a time before run.duration ({show(raw['run']['duration'])})")
        allowed = KINDS_OF[doc.topology]
        if fault.kind not in allowed:
            yield Problem(f"{path}.kind", given(fault.kind),
                          f"a kind of fault topology {doc.topology!r} models: "
                          f"{_words(allowed)}")
            continue
        for name, kinds in TAKES.items():
            if name in given_keys and fault.kind not in kinds:
                yield Problem(f"{path}.{name}", given(given_keys[name]),
                              f"no {name} with kind {fault.kind!r} (only with "
                              f"{_words(kinds)})")
        needed = NEEDS.get(fault.kind)
        if needed is not None and needed not in given_keys:
            yield Problem(f"{path}.{needed}", "missing", f"{ScheduledFaultSection.expects(needed)}"
                          f", for kind {fault.kind!r}")
        yield from _target(fault, given_keys, path, links, ports, switches)
        yield from _repeats(fault, given_keys, path, raw["run"]["duration"], doc.run.duration)
        link = _link_of(fault, links)
        if fault.sender is not None and link is not None and fault.sender not in links[link]:
            yield Problem(f"{path}.from", given(fault.sender), "an end of link "
                          f"{link!r}: " + " or ".join(map(repr, links[link])))
        yield from cables.get(i, [])


def _repeats(fault: Any, raw: dict[str, Any], path: str, run_text: Any,
             run_duration: float) -> Iterator[Problem]:
    """The problems of a repeating fault's keys (every, mean_interval, until)."""
    if "every" in raw and "mean_interval" in raw:
        yield Problem(f"{path}.mean_interval", given(raw["mean_interval"]),
                      "no mean_interval with every: a fault repeats periodically or at random")
    repeats = fault.every is not None or fault.mean_interval is not None
    if "until" in raw and not repeats:
        yield Problem(f"{path}.until", given(raw["until"]),
                      "no until without every or mean_interval")
    if not repeats:
        return
    if fault.until is not None and not fault.at < fault.until <= run_duration:
        yield Problem(f"{path}.until", given(raw["until"]),
                      f"a time after at ({show(raw['at'])}) and no later than run.duration "
                      f"({show(run_text)})")
    if fault.kind in LASTING and fault.duration is None:
        yield Problem(f"{path}.duration", "missing",
                      f"{ScheduledFaultSection.expects('duration')}, for a {fault.kind!r} "
                      "that repeats")
    elif (fault.every is not None and fault.duration is not None
          and fault.duration >= fault.every):
        yield Problem(f"{path}.duration", given(raw["duration"]),
                      f"shorter than every ({show(raw['every'])}): each occurrence over "
                      "before the next")


def _target(fault: Any, raw: dict[str, Any], path: str, links: dict[str, tuple[str, ...]],
            ports: list[str], switches: list[str]) -> Iterator[Problem]:
    """The problems of *fault*'s target."""
    named = [k for k in TARGET_KEYS if k in raw]
    accepted = TARGETS[fault.kind]
    if not named:
        yield Problem(path, "no target", f"one of {_words(accepted)} with kind "
                      f"{fault.kind!r}")
        return
    for extra in named[1:]:
        yield Problem(f"{path}.{extra}", given(raw[extra]),
                      f"one target only: {named[0]} is given")
    key = named[0]
    if key not in accepted:
        yield Problem(f"{path}.{key}", given(raw[key]),
                      f"a target of kind {fault.kind!r}: {_words(accepted)}")
    elif key == "link" and fault.link not in links:
        yield Problem(f"{path}.link", given(fault.link),
                      "the name of a link: " + ", ".join(map(repr, links)))
    elif key == "ends" and _link_of(fault, links) is None:
        yield Problem(f"{path}.ends", given(raw["ends"]), "the two ends of a link: "
                      + ", ".join(show(list(e)) for e in links.values()))
    elif key == "port" and fault.port not in ports:
        yield Problem(f"{path}.port", given(fault.port),
                      "a port: " + ", ".join(map(repr, ports)))
    elif key == "switch" and fault.switch not in switches:
        yield Problem(f"{path}.switch", given(fault.switch),
                      "the name of a switch: " + ", ".join(map(repr, switches)))


def _link_of(fault: Any, links: dict[str, tuple[str, ...]]) -> str | None:
    """The name of the link *fault* names by `link` or `ends`, if it exists."""
    if fault.ends is not None:
        return next((name for name, ends in links.items() if set(ends) == set(fault.ends)),
                    None)
    return fault.link if fault.link in links else None


def _cables(faults: list[Any], raws: list[dict[str, Any]],
            links: dict[str, tuple[str, ...]]) -> dict[int, list[Problem]]:
    """The problems of link-downs and link-ups out of turn, by fault index: a
    cable is pulled out only while in, put back only while out (faults in
    time order, equal times in file order)."""
    out: dict[int, list[Problem]] = {}
    down: dict[str, int] = {}
    for i in sorted(range(len(faults)), key=lambda i: (faults[i].at, i)):
        kind, link = faults[i].kind, _link_of(faults[i], links)
        if kind not in (LINK_DOWN, LINK_UP) or link is None or faults[i].duration is not None:
            continue  # a link-down with a duration puts the cable back itself
        if kind == LINK_DOWN and link in down:
            why = f"a link that is up at that time: link {link!r} is down from " \
                  f"faults[{down[link]}] on"
        elif kind == LINK_UP and link not in down:
            why = f"a link that is down at that time: link {link!r} has no link-down " \
                  f"before at = {show(raws[i]['at'])}"
        else:
            if kind == LINK_DOWN:
                down[link] = i
            else:
                del down[link]
            continue
        out.setdefault(i, []).append(Problem(f"faults[{i}].kind", given(kind), why))
    return out
