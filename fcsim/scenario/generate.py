"""A generated fabric written out: the ``[fabric]`` table of a scenario file
becomes ``[[switches]]``, ``[[nodes]]``, ``[[links]]`` (and traffic
``[[workloads]]``) tables, appended after the listed ones, before the file is
read. A generated fabric is thus checked, converted and built exactly as the
same fabric written out by hand. Problems of the table itself (keys that do
not go together, more domains than a fabric has, more ports than a switch
model has) are reported first, one line each, naming ``fabric.KEY``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from fcsim.fabric.checks import npiv_run_problems
from fcsim.fabric.shapes import (
    Shape,
    core_edge,
    fan_in,
    fan_out,
    fat_tree,
    full_mesh,
    permutation,
    place_targets,
    random_pairs,
    ring,
    tier,
    to_targets,
)
from fcsim.fabric.trunk import MAX_MEMBERS
from fcsim.scenario.sections.document import Generated
from fcsim.scenario.sections.fabric import FIO_KEYS, FabricSection
from fcsim.schema.errors import Problem, ScenarioError, given, problems_of
from fcsim.schema.section import Section, key

MAX_DOMAINS = 239
"""Switch domains a fabric may hold (domain IDs 1..239, FC-SW)."""
_ALLOWED = {"core-edge": ("switches", "cores"), "full-mesh": ("switches",),
            "fat-tree": ("pods",)}
"""The count keys each kind takes; the first is required."""
_NAMED = {"ring": "ring", "permutation": "perm", "random-pairs": "pair", "fan-in": "fanin",
          "fan-out": "fanout"}
"""The name of each traffic pattern's workloads, before their number."""
_TAKES = {"targets": "fan-in", "sources": "fan-out", "traffic_seed": "random-pairs"}
"""The traffic keys that go with one pattern only."""


class _FabricOnly(Section):
    """The ``[fabric]`` table alone, read before the rest of the file."""

    fabric: Generated = key(help="The generated fabric.")


def expand(data: dict[str, Any], file: str) -> dict[str, Any]:
    """*data*, the TOML document of scenario file *file*, with the tables its
    ``[fabric]`` table generates appended (*data* itself if it has none, or
    if a table to append to is not an array); :class:`ScenarioError` with
    every problem of the ``[fabric]`` table."""
    raw = data.get("fabric")
    listed = ("switches", "nodes", "links", "workloads")
    if data.get("topology") != "fabric" or raw is None or not all(
            isinstance(data.get(name, []), list) for name in listed):
        return data  # reading the file reports what is wrong
    try:
        fabric = _FabricOnly.model_validate({"fabric": raw}).fabric
    except ValidationError as error:
        raise ScenarioError(file, problems_of(error, _FabricOnly, {"fabric": raw})) from None
    problems = [*_combination(fabric, raw), *_npiv(fabric, raw, data)]
    if not problems:
        shape = shape_of(fabric)
        problems = list(_room(fabric, raw, shape, len(data.get("switches", []))))
    if problems:
        raise ScenarioError(file, problems)
    return {**data, **tables(fabric, raw, shape, data)}


def shape_of(fabric: FabricSection) -> Shape:
    """The switches, N_Ports and ISLs *fabric* describes (its keys checked)."""
    n, isls = fabric.nodes_per_switch, fabric.isls
    if fabric.kind == "core-edge":
        return core_edge(fabric.switches, _cores(fabric), n, isls)  # type: ignore[arg-type]
    if fabric.kind == "full-mesh":
        return full_mesh(fabric.switches, n, isls)  # type: ignore[arg-type]
    return fat_tree(fabric.pods, n, isls)  # type: ignore[arg-type]


def _cores(fabric: FabricSection) -> int:
    return 2 if fabric.cores is None else fabric.cores


def _written(raw: dict[str, Any], name: str) -> Any:
    """The value of key *name* as the file writes it, or its default."""
    return raw[name] if name in raw else FabricSection.model_fields[name].default


def tables(fabric: FabricSection, raw: dict[str, Any], shape: Shape,
           data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The ``switches``, ``nodes``, ``links`` and ``workloads`` arrays of *data*
    with those of *shape* appended, written as a scenario file writes them."""
    model = _written(raw, "model")
    models = {"edge": model, "core": raw.get("core_model", model),
              "aggregation": raw.get("core_model", model)}
    speed, isl_speed = raw["speed"], raw.get("isl_speed", raw["speed"])
    core_isl_speed = raw.get("core_isl_speed", isl_speed)
    length, isl_length = _written(raw, "length"), _written(raw, "isl_length")
    links = [{"name": node, "ends": [node, f"{switch}:{port}"], "speed": speed,
              "length": length} for node, switch, port in shape.nodes]
    several = fabric.isls > 1
    roles = dict(shape.switches)
    credit = {link_key: raw[key_name] for key_name, link_key in
              (("isl_bb_credit", "bb_credit"), ("isl_long_distance", "long_distance"))
              if key_name in raw}
    for i, ((a, pa), (b, pb)) in enumerate(shape.isls):
        name = f"{a}-{b}" + (f"-{i % fabric.isls}" if several else "")
        upper = roles[a] == "aggregation" and roles[b] == "core"  # a fat tree's upper tier
        trunk = {"trunk_group": f"{a}-{b}"} if fabric.isl_trunking else {}
        links.append({"name": name, "ends": [f"{a}:{pa}", f"{b}:{pb}"],
                      "speed": core_isl_speed if upper else isl_speed, "length": isl_length,
                      **credit, **trunk})
    node_keys = raw.get("node", {})
    virtual = {"virtual_ports": raw["virtual_ports"]} if "virtual_ports" in raw else {}
    storage = raw.get("storage", {})
    targets = storage_targets(fabric, shape)
    links += [{"name": name, "ends": [name, f"{switch}:{port}"],
               "speed": storage.get("speed", speed), "length": storage.get("length", length)}
              for name, switch, port in targets]
    workloads = [
        {"name": f"{_NAMED[fabric.traffic]}{e}", "type": "stream", "from": source,
         "to": destination, "class": 3, "size": _written(raw, "stream_size"),
         "outstanding": _written(raw, "outstanding"), "exchanges": _written(raw, "exchanges")}
        for e, (source, destination) in enumerate(traffic_pairs(fabric, shape))]
    if targets and fabric.storage.workload == "fio":
        fio = {name: storage[name] for name in ("rw", *FIO_KEYS) if name in storage}
        workloads += [{"name": f"fio{j}", "type": "fio", "from": host, "to": target,
                       **{"rw": "read", **fio}}
                      for j, (host, target) in enumerate(to_targets(shape, targets))]
    routing = {key: raw[key] for key in ("routing", "bb_sc_n") if key in raw}
    return {"switches": [*data.get("switches", []),
                         *({"name": name, "model": models[role], **routing}
                           for name, role in shape.switches)],
            "nodes": [*data.get("nodes", []),
                      *({"name": node, **node_keys, **virtual} for node, _, _ in shape.nodes),
                      *({"name": name, "target": storage["model"], **node_keys}
                        for name, _, _ in targets)],
            "links": [*data.get("links", []), *links],
            "workloads": [*data.get("workloads", []), *workloads]}


def traffic_pairs(fabric: FabricSection, shape: Shape) -> list[tuple[str, str]]:
    """The (source, destination) N_Ports of the streams *fabric*'s traffic
    pattern generates on *shape*."""
    if fabric.traffic == "ring":
        return ring(shape, fabric.nodes_per_switch)
    if fabric.traffic == "permutation":
        return permutation(shape)
    if fabric.traffic == "random-pairs":
        return random_pairs(shape, fabric.traffic_seed)
    if fabric.traffic == "fan-in":
        return fan_in(shape, fabric.targets)
    if fabric.traffic == "fan-out":
        return fan_out(shape, fabric.sources)
    return []


def storage_switches(fabric: FabricSection, shape: Shape) -> tuple[str, ...]:
    """The switches *fabric*'s storage targets attach to (``on`` read on *shape*)."""
    on = fabric.storage.on
    return on if isinstance(on, tuple) else tier(shape, on)


def storage_targets(fabric: FabricSection, shape: Shape) -> tuple[tuple[str, str, int], ...]:
    """The storage targets of *fabric* as (name, switch, port), none without
    ``[fabric.storage]``."""
    if fabric.storage is None:
        return ()
    return place_targets(shape, fabric.storage.count, storage_switches(fabric, shape))


def _combination(fabric: FabricSection, raw: dict[str, Any]) -> Iterator[Problem]:
    """The count keys given must be those of the kind; fat-tree pods are even."""
    allowed = _ALLOWED[fabric.kind]
    for name in ("switches", "cores", "pods", "core_model"):
        if name in raw and name not in allowed and not (name == "core_model"
                                                        and fabric.kind != "full-mesh"):
            takes = " and ".join(allowed + (("core_model",) if fabric.kind != "full-mesh"
                                            else ()))
            yield Problem(f"fabric.{name}", given(raw[name]),
                          f"not with kind = {fabric.kind!r}, which takes {takes}")
    if allowed[0] not in raw:
        yield Problem(f"fabric.{allowed[0]}", "missing",
                      f"kind = {fabric.kind!r} needs {FabricSection.expects(allowed[0])}")
    elif fabric.kind == "core-edge" and _cores(fabric) >= fabric.switches:  # type: ignore[operator]
        yield Problem("fabric.cores", given(_cores(fabric)),
                      f"fewer than switches ({fabric.switches}): at least one edge switch")
    if fabric.kind == "fat-tree" and fabric.pods is not None and fabric.pods % 2:
        yield Problem("fabric.pods", given(raw["pods"]), FabricSection.expects("pods"))
    for name, pattern in _TAKES.items():
        if name in raw and fabric.traffic != pattern:
            yield Problem(f"fabric.{name}", given(raw[name]),
                          f"only with traffic = {pattern!r} (traffic is {fabric.traffic!r})")
    if "core_isl_speed" in raw and fabric.kind != "fat-tree":
        yield Problem("fabric.core_isl_speed", given(raw["core_isl_speed"]),
                      f"not with kind = {fabric.kind!r}: its inter-switch links are one tier, "
                      "set by isl_speed")
    if fabric.isl_trunking and not 2 <= fabric.isls <= MAX_MEMBERS:
        yield Problem("fabric.isl_trunking", given(raw["isl_trunking"]),
                      f"with isls 2..{MAX_MEMBERS} (the ISLs of each joined pair form one "
                      f"trunk; isls is {fabric.isls})")
    if "isl_bb_credit" in raw and "isl_long_distance" in raw:
        yield Problem("fabric.isl_long_distance", given(raw["isl_long_distance"]),
                      "not with isl_bb_credit: give the buffers or the distance they are "
                      "reserved for, not both")


def _npiv(fabric: FabricSection, raw: dict[str, Any], data: dict[str, Any]) -> Iterator[Problem]:
    """Virtual N_Ports go with what the run needs for them (read from the
    file's ``[run]``, ``[[faults]]`` and ``[congestion]`` as written: a
    wrongly typed one is reported when the file is read)."""
    if not fabric.virtual_ports:
        return
    run, congestion = data.get("run", {}), data.get("congestion", {})
    login = run.get("login", True) if isinstance(run, dict) else True
    recovers = isinstance(congestion, dict) and any(
        congestion.get(name) is not None for name in ("credit_loss_recovery", "fencing"))
    for allowed in npiv_run_problems(login is not False, bool(data.get("faults")), recovers):
        yield Problem("fabric.virtual_ports", given(raw["virtual_ports"]), allowed)


def _room(fabric: FabricSection, raw: dict[str, Any], shape: Shape,
          listed: int) -> Iterator[Problem]:
    """Domains left for the generated switches; ports of each switch model for
    the ports each switch uses; two N_Ports for generated traffic, fewer fan-in
    targets or fan-out sources than N_Ports; room for the storage targets."""
    count = _ALLOWED[fabric.kind][0]
    if listed + len(shape.switches) > MAX_DOMAINS:
        yield Problem(f"fabric.{count}", given(raw[count]),
                      f"a fabric of at most {MAX_DOMAINS} domains: {len(shape.switches)} "
                      f"generated switches and {listed} listed in [[switches]] make "
                      f"{listed + len(shape.switches)}")
    used = shape.ports_used()
    for role in ("edge", "core"):  # the first switch of a role uses as many as any
        name = next((n for n, r in shape.switches if r == role), None)
        model = fabric.model if role == "edge" else fabric.core_model or fabric.model
        if name is not None and used[name] > model.ports:
            yield _too_many_ports(fabric, raw, name, role, used[name], model.ports,
                                  model.name)
    if fabric.traffic != "none" and len(shape.nodes) < 2:
        yield Problem("fabric.traffic", given(raw["traffic"]),
                      f"'none' with a single N_Port: {fabric.traffic} needs two N_Ports or more")
    elif fabric.traffic == "fan-in" and fabric.targets >= len(shape.nodes):
        yield Problem("fabric.targets", given(raw.get("targets", fabric.targets)),
                      f"at most {len(shape.nodes) - 1}: fewer than the {len(shape.nodes)} "
                      "N_Ports, so that one at least sends")
    elif fabric.traffic == "fan-out" and fabric.sources >= len(shape.nodes):
        yield Problem("fabric.sources", given(raw.get("sources", fabric.sources)),
                      f"at most {len(shape.nodes) - 1}: fewer than the {len(shape.nodes)} "
                      "N_Ports, so that one at least receives")
    if fabric.storage is not None:
        yield from _storage_room(fabric, raw["storage"], shape)


def _storage_room(fabric: FabricSection, raw: dict[str, Any], shape: Shape) -> Iterator[Problem]:
    """The switches ``on`` names exist in *shape*, have the ports for the
    targets, and the fio keys go with a generated workload within the
    device's queue depth."""
    storage = fabric.storage
    switches = storage_switches(fabric, shape)
    generated = [name for name, _ in shape.switches]
    unknown = [name for name in switches if name not in generated]
    if not switches or unknown:
        has = ("no core switches" if fabric.kind == "full-mesh" else
               f"no switch {unknown[0]!r}" if unknown else "none")
        yield Problem("fabric.storage.on", given(raw.get("on", storage.on)),
                      f"'edge', 'core' or generated switches ({', '.join(generated[:4])}"
                      f"{', ...' if len(generated) > 4 else ''}): this fabric has {has}")
        return
    roles = dict(shape.switches)
    used = shape.ports_used()
    for name, switch, port in storage_targets(fabric, shape):
        model = fabric.model if roles[switch] == "edge" else fabric.core_model or fabric.model
        if port >= model.ports:
            yield Problem("fabric.storage.count", given(storage.count),
                          f"fewer: target {name} would take port {port} of switch {switch}, "
                          f"which uses {used[switch]} of its model {model.name}'s "
                          f"{model.ports} ports")
            return
    fio = [name for name in ("rw", *FIO_KEYS) if name in raw]
    if storage.workload == "none" and fio:
        yield Problem(f"fabric.storage.{fio[0]}", given(raw[fio[0]]),
                      "only with workload = 'fio' (workload is 'none')")
    elif storage.workload == "fio" and storage.iodepth > storage.model.queue_depth:
        yield Problem("fabric.storage.iodepth", given(raw["iodepth"]),
                      f"at most the target's queue depth ({storage.model.queue_depth}, "
                      f"{storage.model.name})")


def _too_many_ports(fabric: FabricSection, raw: dict[str, Any], name: str, role: str,
                    used: int, ports: int, model: str) -> Problem:
    """The problem of switch *name* (the first of its *role*) needing *used*
    ports where its *model* has *ports*: at the key whose largest value fits."""
    n, isls = fabric.nodes_per_switch, fabric.isls
    has = f"its model {model} has {ports} ports"
    if role == "core" and fabric.kind == "core-edge":
        return Problem("fabric.switches", given(raw["switches"]),
                       f"at most {_cores(fabric) + ports // isls}: core switch {name} takes "
                       f"isls ({isls}) ports per edge switch and {has}")
    if role == "core":
        return Problem("fabric.pods", given(raw["pods"]),
                       f"at most {ports // isls // 2 * 2}: core and aggregation switches take "
                       f"pods x isls ({isls}) ports and {has}")
    isl_ports = used - n
    formula = {"core-edge": f"cores {_cores(fabric)}", "full-mesh": "(switches - 1)",
               "fat-tree": "pods/2"}[fabric.kind] + f" x isls {isls}"
    if isl_ports < ports:
        return Problem("fabric.nodes_per_switch", given(n),
                       f"at most {ports - isl_ports}: edge switch {name} takes {isl_ports} "
                       f"ports for ISLs ({formula}) and {has}")
    key_name = _ALLOWED[fabric.kind][1 if fabric.kind == "core-edge" else 0]
    return Problem(f"fabric.{key_name}", given(raw.get(key_name, _cores(fabric))),
                   f"fewer switches joined or fewer isls: edge switch {name} needs "
                   f"{isl_ports} ports for ISLs ({formula}) and {has}")
