"""Load a scenario file: TOML in, a checked :class:`~fcsim.scenario.model.Scenario` out.

Every key a file may hold is declared once, in the tables :data:`TOP_KEYS`,
:data:`RUN_KEYS`, :data:`NODE_KEYS`, :data:`LINK_KEYS`, :data:`STREAM_KEYS` and
:data:`GENERATOR_KEYS`: how it is read, what it accepts and its default
(``docs/scenarios.md`` documents the same tables). The loader applies them, then
checks what spans keys: names, link and workload ends, N_Port IDs, the topology.
The first problem found is raised as a :class:`ScenarioError` of one line.
Quantities with units are read only by :mod:`fcsim.units`.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fcsim.apps.iperf import IperfOptions
from fcsim.apps.netperf import TESTS as NETPERF_TESTS
from fcsim.apps.netperf import NetperfOptions
from fcsim.catalog import MODEL_FOLDER
from fcsim.fabric.switch_model import load_switch_model
from fcsim.fc0.cable import DEFAULT_PROPAGATION, Cable
from fcsim.fc0.speed import CODING_8B10B, CODING_64B66B
from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.fc2.login import ServiceParameters
from fcsim.host.host_model import load_host_model
from fcsim.loop.al_pa import MAX_NL_PORTS, is_nl_al_pa
from fcsim.loop.ring import DEFAULT_REPEAT_WORDS
from fcsim.scenario.model import (
    GeneratorConfig,
    IperfConfig,
    LinkConfig,
    LoopConfig,
    LoopPortConfig,
    NetperfConfig,
    NodeConfig,
    RunConfig,
    Scenario,
    StreamConfig,
    SwitchConfig,
    WorkloadConfig,
)
from fcsim.topology.point_to_point import DEFAULT_PORT_IDS
from fcsim.units import (
    UnitError,
    parse_baud,
    parse_length,
    parse_rate,
    parse_size,
    parse_time,
)
from fcsim.workload.distributions import Constant, Distribution, Exponential, Uniform


class ScenarioError(Exception):
    """A scenario file that cannot be used. ``str()`` is one line,
    ``FILE: KEY.PATH: given VALUE; EXPECTED``; the parts are kept as *file*,
    *path* (empty when about the file as a whole), *problem* and *expected*."""

    def __init__(self, file: str, path: str, problem: str, expected: str) -> None:
        self.file, self.path, self.problem, self.expected = file, path, problem, expected
        super().__init__(f"{file}: {path + ': ' if path else ''}{problem}; {expected}")


class _Bad(Exception):
    """A problem found while reading; :func:`read_table` fills in a missing *path*
    (and with it the problem and the key's description)."""

    def __init__(self, expected: str = "", path: str | None = None, problem: str = "",
                 detail: str = "") -> None:
        super().__init__(expected)
        self.expected, self.path, self.problem, self.detail = expected, path, problem, detail


Reader = Callable[[Any, str], Any]
"""Turns the TOML value at a key path into a typed value, or raises :class:`_Bad`."""

REQUIRED: Any = object()
"""The default of a key that must be given."""


@dataclass(frozen=True)
class Key:
    """One key of a table: how it is *read*, what it *expects* (shown in errors)
    and its *default* (:data:`REQUIRED` if none; None: left unset)."""

    read: Reader
    expects: str
    default: Any = REQUIRED


def show(value: Any) -> str:
    """*value* as it would be written in TOML, cut short if long."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list):
        text = "[" + ", ".join(map(show, value)) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k} = {show(v)}" for k, v in value.items()) + "}"
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _given(value: Any) -> str:
    return f"given {show(value)}"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- readers ----------------------------------------------------------------------


def _when(test: Callable[[Any], Any], convert: Callable[[Any], Any] = lambda v: v) -> Reader:
    """A reader that accepts a value passing *test* and returns *convert* of it."""
    def read(value: Any, path: str) -> Any:
        if not test(value):
            raise _Bad()
        return convert(value)
    return read


def _integer(low: int, high: float = float("inf")) -> Reader:
    return _when(lambda v: _is_int(v) and low <= v <= high)


def _choice(options: dict[str, Any]) -> Reader:
    return _when(lambda v: isinstance(v, str) and v in options, options.get)


def _quantity(parse: Callable[[Any], Any], low: float | None = 0.0,
              high: float = float("inf"), above: bool = False) -> Reader:
    """A value read by *parse* (from :mod:`fcsim.units`) in low..high; *above*: > low."""
    def read(value: Any, path: str) -> Any:
        if type(value) not in (str, int, float):
            raise _Bad()
        try:
            number = parse(value)
        except UnitError as error:
            raise _Bad(detail=str(error)) from None
        if low is not None and not (low < number if above else low <= number <= high):
            raise _Bad()
        return number
    return read


def _per_metre(text: Any) -> float:
    """Seconds per metre in "5 ns/m" or "5 us / 1 km"; each half read by fcsim.units."""
    if not isinstance(text, str) or text.count("/") != 1:
        raise UnitError()
    time, length = (part.strip() for part in text.split("/"))
    per = parse_length(f"1 {length}" if length[:1].isalpha() else length)
    if not per > 0:
        raise UnitError()
    return parse_time(time) / per


def _port_id(value: Any) -> int | None:
    if isinstance(value, str) and re.fullmatch(r"0x[0-9A-Fa-f]{6}", value):
        value = int(value, 16)
    return value if _is_int(value) and 1 <= value <= 0xFFFFEF else None


def _list_of(test: Callable[[Any], bool], length: int | None = None) -> Callable[[Any], bool]:
    """True for a non-empty list of distinct items passing *test* (of *length* if given)."""
    return lambda v: (isinstance(v, list) and len(v) == (length or len(v) or -1)
                      and all(map(test, v)) and len(set(v)) == len(v))


_text = _when(lambda v: isinstance(v, str) and v.strip())
_any_text = _when(lambda v: isinstance(v, str))
_classes = _when(_list_of(lambda c: _is_int(c) and c in (1, 2, 3)), frozenset)
_ends = _when(_list_of(lambda e: isinstance(e, str) and e.strip(), 2), tuple)
_fraction = _when(lambda v: type(v) in (int, float) and 0 <= v < 1, float)
_table = _when(lambda v: isinstance(v, dict))
_tables = _when(lambda v: isinstance(v, list) and all(isinstance(t, dict) for t in v))
_DISTRIBUTIONS = {"constant": (Constant, ("value",)), "exponential": (Exponential, ("mean",)),
                  "uniform": (Uniform, ("low", "high"))}


def _distribution(one: Reader, what: str) -> Reader:
    """A distribution of values read by *one*: a plain value (constant) or a table."""
    kinds = "one of " + ", ".join(map(repr, _DISTRIBUTIONS))

    def read(value: Any, path: str) -> Distribution:
        if not isinstance(value, dict):
            return Constant(one(value, path))
        kind = value.get("distribution")
        if not isinstance(kind, str) or kind not in _DISTRIBUTIONS:
            raise _Bad(kinds, f"{path}.distribution", "missing" if kind is None else _given(kind))
        cls, names = _DISTRIBUTIONS[kind]
        keys = {"distribution": Key(_any_text, kinds), **{n: Key(one, what) for n in names}}
        got = read_table(value, keys, path, f"with distribution = {kind!r}")
        if kind == "uniform" and got["low"] > got["high"]:
            raise _Bad(f"{what}, not below low ({show(value['low'])})", f"{path}.high",
                       _given(value["high"]))
        return cls(*(got[n] for n in names))
    return read


def read_table(raw: dict[str, Any], keys: dict[str, Key], path: str,
               what: str) -> dict[str, Any]:
    """The values of the TOML table *raw* at *path* (a dict, checked by the caller),
    read by *keys*, defaults filled in; *what* names the table in errors."""
    for name in raw:
        if name not in keys:
            raise _Bad(f"allowed keys {what}: {', '.join(keys)}", _join(path, name),
                       "unknown key")
    got: dict[str, Any] = {}
    for name, key in keys.items():
        where = _join(path, name)
        if name not in raw:
            if key.default is REQUIRED:
                raise _Bad(key.expects, where, "missing")
            got[name] = key.default
            continue
        try:
            got[name] = key.read(raw[name], where)
        except _Bad as bad:
            if bad.path is not None:
                raise
            expected = key.expects + (f"; {bad.detail}" if bad.detail else "")
            raise _Bad(expected, where, _given(raw[name])) from None
    return got


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


# -- the tables ---------------------------------------------------------------------

_SP = ServiceParameters()
_TIME = "a time with a unit such as '10 ms'"
_SIZE = "a size with a unit such as '64 KiB' (bare integer: bytes)"
_NAME = "a non-empty string"

TOPOLOGIES: dict[str, tuple[int, int] | None] = {"point-to-point": (2, 1), "fabric": None,
                                                 "loop": None}
"""Supported ``topology`` values and the numbers of nodes and links each needs
(None: any)."""
DEFAULT_IDS: dict[str, tuple[int, ...]] = {"point-to-point": DEFAULT_PORT_IDS}
"""N_Port IDs a topology gives the nodes that set none, in order."""

TOP_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME, None),
    "description": Key(_any_text, "a string", ""),
    "topology": Key(_choice({t: t for t in TOPOLOGIES}),
                    "one of " + ", ".join(map(repr, TOPOLOGIES))),
    "run": Key(_table, "a table, written [run]"),
    "nodes": Key(_tables, "an array of tables, written [[nodes]]"),
    "links": Key(_tables, "an array of tables, written [[links]]", None),
    "workloads": Key(_tables, "an array of tables, written [[workloads]]", []),
    "switches": Key(_tables, "an array of tables, written [[switches]] (fabric only)", []),
    "loop": Key(_table, "a table, written [loop] (loop only)", None),
}
RUN_KEYS: dict[str, Key] = {
    "duration": Key(_quantity(parse_time, above=True), f"{_TIME}, > 0 s"),
    "warmup": Key(_quantity(parse_time), f"{_TIME}, >= 0 s and < run.duration", 0.0),
    "seed": Key(_integer(0), "an integer >= 0", 1),
    "repetitions": Key(_integer(1), "an integer >= 1", 1),
    "login": Key(_when(lambda v: isinstance(v, bool)), "true or false", True),
}
NODE_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME),
    "port_id": Key(_when(_port_id, _port_id), "an N_Port ID: a string such as '0x010200' "
                   "(6 hex digits) or an integer 1..0xFFFFEF", None),
    "bb_credit": Key(_integer(1), "an integer >= 1 (receive buffers)", _SP.bb_credit),
    "rx_data_field": Key(_quantity(parse_size, 256, MAX_DATA_FIELD),
                         f"a data field size of 256..{MAX_DATA_FIELD} bytes such as '2112 B'",
                         _SP.rx_data_field),
    "ee_credit": Key(_integer(1), "an integer >= 1", _SP.ee_credit),
    "classes": Key(_classes, "a non-empty list of distinct classes out of 1, 2, 3 such as "
                   "[2, 3]", _SP.classes),
    "concurrent_sequences": Key(_integer(1), "an integer >= 1", _SP.concurrent_sequences),
    "busy_retry": Key(_quantity(parse_time, above=True), f"{_TIME}, > 0 s", _SP.busy_retry),
    "e_d_tov": Key(_quantity(parse_time, above=True), f"{_TIME}, > 0 s", _SP.e_d_tov),
    "rx_frame_time": Key(_quantity(parse_time), f"{_TIME}, >= 0 s", _SP.rx_frame_time),
    "host": Key(_when(lambda v: isinstance(v, str) and v.strip(),
                      lambda v: _catalog(load_host_model, v)),
                "the name of a host model in models/hosts/ or a model file ending in .toml", None),
    "ip_class": Key(_integer(1, 3), "the class of service of IP over FC: 1, 2 or 3", 3),
    "background_load": Key(_fraction, "a fraction of the processor in [0, 1) such as 0.2 "
                           "(other processes on the host)", None),
}
LINK_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME, None),
    "ends": Key(_ends, "a list of the names of two different nodes such as ['host', 'disk']"),
    "speed": Key(_quantity(parse_baud, None),
                 "a speed name such as '1GFC' or a baud rate such as '265.625 Mbaud'"),
    "coding": Key(_choice({"8b/10b": CODING_8B10B, "64b/66b": CODING_64B66B}),
                  "'8b/10b' or '64b/66b'", None),
    "length": Key(_quantity(parse_length), "a length with a unit such as '1 km', >= 0 m", 0.0),
    "propagation": Key(_quantity(_per_metre), "a time per length such as '5 ns/m', >= 0",
                       DEFAULT_PROPAGATION),
    "bit_error_rate": Key(_fraction, "a number in [0, 1) such as 1e-12", 0.0),
    "cost": Key(_when(lambda v: type(v) in (int, float) and v > 0, float),
                "a number > 0 (FSPF cost of an inter-switch link)", None),
}


def _catalog(load: Callable[[str], Any], name: str) -> Any:
    """A device model from the catalog, or the catalog's own message as the problem."""
    try:
        return load(name)
    except ValueError as error:
        raise _Bad(detail=str(error)) from None


SWITCH_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME),
    "model": Key(_when(lambda v: isinstance(v, str) and v.strip(),
                       lambda v: _catalog(load_switch_model, v)),
                 "the name of a switch model in models/switches/ or a model file ending in .toml"),
    "domain": Key(_integer(1, 239), "a domain ID 1..239 (default: 1, 2, ... in order)", None),
}
_WORKLOAD_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME, None),
    "type": Key(_any_text, "'stream', 'generator', 'netperf' or 'iperf'"),
    "from": Key(_text, "the name of the sending node"),
    "to": Key(_text, "the name of the receiving node"),
    "class": Key(_integer(1, 3), "a class of service: 1, 2 or 3", 3),
    "max_payload": Key(_quantity(parse_size, 1, MAX_DATA_FIELD),
                       f"a data field size of 1..{MAX_DATA_FIELD} bytes such as '2112 B'", None),
    "start": Key(_quantity(parse_time), f"{_TIME}, >= 0 s", 0.0),
    "count": Key(_integer(1), "an integer >= 1 (sequences to send)", None),
}
STREAM_KEYS: dict[str, Key] = {
    **_WORKLOAD_KEYS,
    "size": Key(_quantity(parse_size), f"{_SIZE}, >= 0"),
    "outstanding": Key(_integer(1), "an integer >= 1 (sequences open at once)", 1),
}
GENERATOR_KEYS: dict[str, Key] = {
    **_WORKLOAD_KEYS,
    "size": Key(_distribution(_quantity(parse_size), f"{_SIZE}, >= 0"),
                f"{_SIZE}, or a distribution table of sizes"),
    "interarrival": Key(_distribution(_quantity(parse_time), f"{_TIME}, >= 0 s"),
                        f"{_TIME}, or a distribution table of times; mean > 0 s"),
}
def _sizes(value: Any, path: str) -> tuple[int, ...]:
    """One size, or a non-empty list of sizes (a sweep), each >= 1 byte."""
    items = value if isinstance(value, list) and value else [value]
    return tuple(_quantity(parse_size, 1)(item, path) for item in items)


NETPERF_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME, None),
    "type": Key(_any_text, "'netperf'"),
    "from": Key(_text, "the name of the node running netperf (a host)"),
    "to": Key(_text, "the name of the node running netserver (a host)"),
    "test": Key(_choice({t: t for t in NETPERF_TESTS}),
                "'TCP_STREAM', 'TCP_RR' or 'UDP_STREAM'", "TCP_STREAM"),
    "send_size": Key(_sizes, f"{_SIZE} >= 1 B, or a list of them (a sweep); netperf -m "
                     "(ignored by TCP_RR, as netperf 2.x ignores it, unless rr_sizes = "
                     "'send-size')", (65536,)),
    "rr_sizes": Key(_choice({"request-response": False, "send-size": True}),
                    "'request-response' (TCP_RR sizes from request and response, netperf -r; "
                    "netperf's default of one byte each) or 'send-size' (each send_size is the "
                    "request and the response, netperf -r m,m)", False),
    "socket": Key(_sizes, f"{_SIZE} >= 1 B, or a list of them (a sweep); netperf -s and -S",
                  (65536,)),
    "nodelay": Key(_when(lambda v: isinstance(v, bool)), "true or false; netperf -D", False),
    "length": Key(_quantity(parse_time, above=True), f"{_TIME}, > 0 s; netperf -l", 10.0),
    "recv_size": Key(_quantity(parse_size, 1), f"{_SIZE} >= 1 B; netperf -M", None),
    "request": Key(_quantity(parse_size, 1), f"{_SIZE} >= 1 B; TCP_RR request", 1),
    "response": Key(_quantity(parse_size, 1), f"{_SIZE} >= 1 B; TCP_RR response", 1),
    "window_scaling": Key(_when(lambda v: isinstance(v, bool)), "true or false (RFC 1323)",
                          True),
    "start": Key(_quantity(parse_time), f"{_TIME}, >= 0 s", 0.0),
}
IPERF_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME, None),
    "type": Key(_any_text, "'iperf'"),
    "from": Key(_text, "the name of the node running the iperf client (a host)"),
    "to": Key(_text, "the name of the node running the iperf server (a host)"),
    "protocol": Key(_choice({"tcp": False, "udp": True}), "'tcp' or 'udp'; iperf -u", False),
    "parallel": Key(_integer(1), "an integer >= 1; iperf -P", 1),
    "window": Key(_quantity(parse_size, 1), f"{_SIZE} >= 1 B; iperf -w", 65536),
    "length": Key(_quantity(parse_size, 1), f"{_SIZE} >= 1 B; iperf -l", None),
    "bandwidth": Key(_quantity(parse_rate, above=True), "a rate such as '100 Mbit/s'; iperf -b",
                     1e6),
    "duration": Key(_quantity(parse_time, above=True), f"{_TIME}, > 0 s; iperf -t", 10.0),
    "nodelay": Key(_when(lambda v: isinstance(v, bool)), "true or false; iperf -N", False),
    "start": Key(_quantity(parse_time), f"{_TIME}, >= 0 s", 0.0),
}
WORKLOAD_KEYS: dict[str, dict[str, Key]] = {"stream": STREAM_KEYS, "generator": GENERATOR_KEYS,
                                            "netperf": NETPERF_KEYS, "iperf": IPERF_KEYS}


# -- arbitrated loop (topology = "loop") ---------------------------------------------


def _al_pa(value: Any) -> int | None:
    if isinstance(value, str) and re.fullmatch(r"0x[0-9A-Fa-f]{2}", value):
        value = int(value, 16)
    return value if _is_int(value) and is_nl_al_pa(value) else None


def _each(one: Reader, expects: str) -> Reader:
    """A list whose items are each read by *one*; errors name the item's index."""
    def read(value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list):
            raise _Bad()
        items = []
        for i, item in enumerate(value):
            try:
                items.append(one(item, f"{path}[{i}]"))
            except _Bad as bad:
                raise _Bad(expects + (f"; {bad.detail}" if bad.detail else ""), f"{path}[{i}]",
                           _given(item)) from None
        return tuple(items)
    return read


_bool = _when(lambda v: isinstance(v, bool))
LOOP_NODE_KEYS: dict[str, Key] = {
    **{name: key for name, key in NODE_KEYS.items() if name != "port_id"},
    "al_pa": Key(_when(_al_pa, _al_pa), "a hard NL_Port AL_PA, one of the 126 neutral-disparity "
                 "values 0x01..0xEF, such as '0x01' or 0xE8", None),
    "fairness": Key(_bool, "true or false", True),
    "repeat_delay": Key(_integer(0), "an integer >= 0 (transmission words)", None),
    "login_credit": Key(_integer(0), "an integer 0..bb_credit (frames)", 0),
}
"""Keys of a [[nodes]] table on a loop: the N_Port ID comes from the AL_PA."""
LOOP_KEYS: dict[str, Key] = {
    "name": Key(_text, _NAME, "loop"),
    "order": Key(_when(_list_of(lambda e: isinstance(e, str) and bool(e.strip())), tuple),
                 "a list of every node's name, each once, in ring order", None),
    "speed": LINK_KEYS["speed"],
    "coding": LINK_KEYS["coding"],
    "hop_length": Key(_quantity(parse_length), "a length with a unit such as '2 m', >= 0 m",
                      0.0),
    "propagation": LINK_KEYS["propagation"],
    "bit_error_rate": LINK_KEYS["bit_error_rate"],
    "repeat_delay": Key(_integer(0), "an integer >= 0 (transmission words)",
                        DEFAULT_REPEAT_WORDS),
    "lip_at": Key(_each(_quantity(parse_time), f"{_TIME}, >= 0 s"),
                  "a list of times such as ['5 ms']", ()),
    "position_map": Key(_bool, "true or false", True),
}
"""Keys of the [loop] table: the ring."""


def _check_loop_sections(top: dict[str, Any]) -> None:
    """[[links]] for every topology but a loop; [loop] and 2..126 nodes for a loop."""
    loop = top["topology"] == "loop"
    if top["links"] is None:
        if not loop:
            raise _Bad(TOP_KEYS["links"].expects, "links", "missing")
        top["links"] = []
    elif loop:
        raise _Bad("no [[links]] on a loop: the [loop] table describes the ring", "links",
                   f"given {_count(len(top['links']), 'link')}")
    if loop and top["loop"] is None:
        raise _Bad(TOP_KEYS["loop"].expects, "loop", "missing")
    if not loop and top["loop"] is not None:
        raise _Bad("no [loop] outside topology = 'loop'", "loop", _given(top["loop"]))
    if loop and not 2 <= len(top["nodes"]) <= MAX_NL_PORTS:
        raise _Bad(f"topology 'loop' needs 2 to {MAX_NL_PORTS} nodes", "nodes",
                   f"given {_count(len(top['nodes']), 'node')}")


def _loop_port(got: dict[str, Any], raw: dict[str, Any], path: str) -> LoopPortConfig:
    """Take the loop keys out of a node's values *got*."""
    port = LoopPortConfig(**{k: got.pop(k) for k in ("al_pa", "fairness", "repeat_delay",
                                                      "login_credit")})
    if port.login_credit > got["bb_credit"]:
        raise _Bad(f"an integer 0..bb_credit ({got['bb_credit']})", f"{path}.login_credit",
                   _given(raw["login_credit"]))
    return port


def _loop(raw: dict[str, Any], names: list[str]) -> LoopConfig:
    got = read_table(raw, LOOP_KEYS, "loop", "in [loop]")
    order = got["order"] or tuple(names)
    for i, name in enumerate(order):
        _known(name, f"loop.order[{i}]", names)
    missing = [name for name in names if name not in order]
    if missing:
        raise _Bad(f"{LOOP_KEYS['order'].expects}; {show(missing[0])} is missing",
                   "loop.order", _given(raw["order"]))
    speed = got["speed"] if got["coding"] is None else replace(got["speed"], coding=got["coding"])
    return LoopConfig(got["name"], order, speed, Cable(got["hop_length"], got["propagation"]),
                      got["bit_error_rate"], got["repeat_delay"], got["lip_at"],
                      got["position_map"])


def _check_loop_classes(raws: list[dict[str, Any]], workloads: tuple[WorkloadConfig, ...]) -> None:
    for i, w in enumerate(workloads):
        if w.cls == 1:
            raise _Bad("a class of service on a loop: 2 or 3", f"workloads[{i}].class",
                       _given(raws[i]["class"]))


# -- the scenario -------------------------------------------------------------------


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and check the scenario file at *path*; :class:`ScenarioError` if it is
    missing, unreadable, not TOML or not a valid scenario. A UTF-8 byte-order
    mark at the start (Windows editors write one) is skipped."""
    return scenario_from_document(read_document(path), os.fspath(path))


def read_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The TOML document in the scenario file at *path*, unchecked;
    :class:`ScenarioError` if it is missing, unreadable or not TOML."""
    file = os.fspath(path)
    try:
        with open(file, encoding="utf-8-sig", newline="") as handle:
            data = tomllib.loads(handle.read())
    except tomllib.TOMLDecodeError as error:
        match = re.fullmatch(r"(.*?)\s*\(at (line \d+, column \d+|end of document)\)",
                             str(error))
        where, message = (match[2], match[1]) if match else ("", str(error))
        raise ScenarioError(file, where, f"not valid TOML ({message})",
                            "see https://toml.io/en/v1.0.0") from None
    except UnicodeDecodeError:
        raise ScenarioError(file, "", "not UTF-8 text", "a TOML file in UTF-8") from None
    except OSError as error:
        problem = "is a directory" if Path(file).is_dir() else f"cannot read ({error.strerror})"
        raise ScenarioError(file, "", problem, "a scenario file in TOML") from None
    return data


def scenario_from_document(data: dict[str, Any], file: str) -> Scenario:
    """Check the TOML document *data* of scenario file *file* (named in errors;
    model files are found relative to its folder); :class:`ScenarioError` if it
    is not a valid scenario."""
    folder = MODEL_FOLDER.set(Path(file).parent)
    try:
        return _scenario(data, file)
    except _Bad as bad:
        raise ScenarioError(file, bad.path or "", bad.problem, bad.expected) from None
    finally:
        MODEL_FOLDER.reset(folder)


def _scenario(data: dict[str, Any], file: str) -> Scenario:
    top = read_table(data, TOP_KEYS, "", "at the top level")
    loop = top["topology"] == "loop"
    _check_loop_sections(top)
    _check_counts(top["topology"], len(top["nodes"]), len(top["links"]))
    run = RunConfig(**read_table(top["run"], RUN_KEYS, "run", "in [run]"))
    if run.warmup >= run.duration:
        raise _Bad(f"a time less than run.duration ({show(data['run']['duration'])})",
                   "run.warmup", _given(data["run"]["warmup"]))
    fabric = top["topology"] == "fabric"
    if top["switches"] and not fabric:
        raise _Bad("no [[switches]] outside topology = 'fabric'", "switches",
                   f"given {len(top['switches'])} switches")
    switches = tuple(SwitchConfig(**read_table(raw, SWITCH_KEYS, f"switches[{i}]",
                                               "in [[switches]]"))
                     for i, raw in enumerate(top["switches"]))
    _unique(top["switches"], "switches", "name", [sw.name for sw in switches])
    _unique(top["switches"], "switches", "domain", [sw.domain for sw in switches])
    if fabric and not switches:
        raise _Bad("at least one [[switches]] table", "switches", "missing")
    nodes = tuple(_node(raw, f"nodes[{i}]", loop) for i, raw in enumerate(top["nodes"]))
    names = _unique(top["nodes"], "nodes", "name", [n.name for n in nodes])
    if loop:
        _unique(top["nodes"], "nodes", "al_pa", [n.loop and n.loop.al_pa for n in nodes])
    if fabric:
        for i, node in enumerate(nodes):
            if node.port_id is not None:
                raise _Bad("no port_id: the fabric assigns N_Port IDs (domain/port/00)",
                           f"nodes[{i}].port_id", _given(top["nodes"][i]["port_id"]))
    defaults = DEFAULT_IDS.get(top["topology"], (None,) * len(nodes))
    ids = [n.port_id or default for n, default in zip(nodes, defaults, strict=True)]
    _unique(top["nodes"], "nodes", "port_id", [i and f"0x{i:06X}" for i in ids])
    ports = {sw.name: sw.model.ports for sw in switches}
    links = tuple(_link(raw, f"links[{i}]", i, names, ports)
                  for i, raw in enumerate(top["links"]))
    _unique(top["links"], "links", "name", [link.name for link in links])
    if fabric:
        _check_fabric_ends(top["links"], links, names)
    if loop:
        links = (_loop(top["loop"], names),)
    workloads = tuple(_workload(raw, f"workloads[{i}]", i, names)
                      for i, raw in enumerate(top["workloads"]))
    if loop:
        _check_loop_classes(top["workloads"], workloads)
    _unique(top["workloads"], "workloads", "name", [w.name for w in workloads])
    _check_netperf(top["workloads"], workloads, nodes, run)
    return Scenario(name=top["name"] or Path(file).stem, topology=top["topology"], run=run,
                    nodes=nodes, links=links, workloads=workloads, source=file,
                    description=top["description"], switches=switches)


def _node(raw: dict[str, Any], path: str, loop: bool = False) -> NodeConfig:
    if loop:
        got = read_table(raw, LOOP_NODE_KEYS, path, "in [[nodes]] of a loop")
        port = _loop_port(got, raw, path)
    else:
        got, port = read_table(raw, NODE_KEYS, path, "in [[nodes]]"), None
    name, port_id = got.pop("name"), got.pop("port_id", None)
    host, ip_class = got.pop("host", None), got.pop("ip_class", 3)
    background = got.pop("background_load", None)
    if background is not None and host is None:
        raise _Bad("a host model for the node (background_load loads a host's processor)",
                   f"{path}.background_load", _given(background))
    return NodeConfig(name, port_id, ServiceParameters(**got), port, host, ip_class, background)


def _link(raw: dict[str, Any], path: str, index: int, nodes: list[str],
          switches: dict[str, int]) -> LinkConfig:
    got = read_table(raw, LINK_KEYS, path, "in [[links]]")
    for i, end in enumerate(got["ends"]):
        name, sep, number = end.partition(":")
        if not sep:
            _known(end, f"{path}.ends[{i}]", nodes)
        elif name not in switches or not (number.isdigit() and int(number) < switches[name]):
            known = ", ".join(f"{n}:0..{p - 1}" for n, p in switches.items()) or "none"
            raise _Bad(f"a node name or a switch port written 'switch:port' ({known})",
                       f"{path}.ends[{i}]", _given(end))
    speed = got["speed"] if got["coding"] is None else replace(got["speed"], coding=got["coding"])
    return LinkConfig(got["name"] or f"link{index}", got["ends"], speed,
                      Cable(got["length"], got["propagation"]), got["bit_error_rate"],
                      got["cost"])


def _workload(raw: dict[str, Any], path: str, index: int, nodes: list[str]) -> WorkloadConfig:
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in WORKLOAD_KEYS:
        raise _Bad(STREAM_KEYS["type"].expects, f"{path}.type",
                   "missing" if kind is None else _given(kind))
    got = read_table(raw, WORKLOAD_KEYS[kind], path, f"with type = {kind!r}")
    _known(got["from"], f"{path}.from", nodes)
    _known(got["to"], f"{path}.to", nodes)
    if got["to"] == got["from"]:
        raise _Bad(f"a node other than from ({show(got['from'])})", f"{path}.to",
                   _given(got["to"]))
    if kind == "iperf":
        options = IperfOptions(got["protocol"], got["parallel"], got["window"], got["length"],
                               got["bandwidth"], got["duration"], got["nodelay"])
        return IperfConfig(got["name"] or f"workload{index}", got["from"], got["to"], options,
                           got["start"])
    if kind == "netperf":
        sizes, sockets = got["send_size"], got["socket"]
        options = NetperfOptions(got["test"], sizes[0], sockets[0], sockets[0], got["nodelay"],
                                 got["length"], got["recv_size"], got["request"],
                                 got["response"], got["window_scaling"])
        sized = got["rr_sizes"]
        if "rr_sizes" in raw and got["test"] != "TCP_RR":
            raise _Bad("no rr_sizes outside test = 'TCP_RR'", f"{path}.rr_sizes",
                       _given(raw["rr_sizes"]))
        if sized and ("request" in raw or "response" in raw):
            raise _Bad("either rr_sizes = 'send-size' (request and response of each send_size, "
                       "netperf -r m,m) or request/response", f"{path}.rr_sizes",
                       _given(raw["rr_sizes"]))
        return NetperfConfig(got["name"] or f"workload{index}", got["from"], got["to"], options,
                             sizes, sockets, got["start"], sized)
    common = dict(name=got["name"] or f"workload{index}", source=got["from"],
                  destination=got["to"], size=got["size"], cls=got["class"],
                  max_data_field=got["max_payload"], start=got["start"], count=got["count"])
    if kind == "stream":
        return StreamConfig(**common, outstanding=got["outstanding"])
    if not got["interarrival"].mean > 0:
        raise _Bad(GENERATOR_KEYS["interarrival"].expects, f"{path}.interarrival",
                   _given(raw["interarrival"]))
    return GeneratorConfig(**common, interarrival=got["interarrival"])


def _check_netperf(raws: list[dict[str, Any]], workloads: tuple[WorkloadConfig, ...],
                   nodes: tuple[NodeConfig, ...], run: RunConfig) -> None:
    """netperf runs between hosts, fits in the run, and at most one sweeps."""
    hosts = {n.name for n in nodes if n.host is not None}
    sweeping = None
    for i, w in enumerate(workloads):
        if not isinstance(w, NetperfConfig | IperfConfig):
            continue
        for key, name in (("from", w.source), ("to", w.destination)):
            if name not in hosts:
                raise _Bad("a node with a host model (key 'host' in [[nodes]])",
                           f"workloads[{i}].{key}", _given(name))
        key, length = (("length", w.options.length) if isinstance(w, NetperfConfig)
                       else ("duration", w.options.duration))
        if w.start + length >= run.duration:
            raise _Bad(f"a test that ends before run.duration ({show(run.duration)} s); "
                       f"set start + {key} below it", f"workloads[{i}].{key}",
                       _given(raws[i].get(key, "10 s")))
        if isinstance(w, NetperfConfig) and w.sweeps:
            if sweeping is not None:
                raise _Bad(f"no sweep: workloads[{sweeping}] already sweeps",
                           f"workloads[{i}].send_size", _given(raws[i].get("send_size")))
            sweeping = i


def _check_fabric_ends(raws: list[dict[str, Any]], links: tuple[LinkConfig, ...],
                       nodes: list[str]) -> None:
    """Each link touches a switch port, each switch port and node is used once."""
    seen: dict[str, str] = {}
    for i, link in enumerate(links):
        if all(":" not in end for end in link.ends):
            raise _Bad("a switch port written 'switch:port' at one end at least",
                       f"links[{i}].ends", _given(raws[i]["ends"]))
        for j, end in enumerate(link.ends):
            if end in seen:
                raise _Bad(f"an end not already used by {seen[end]}", f"links[{i}].ends[{j}]",
                           _given(end))
            seen[end] = f"links[{i}]"
    for name in nodes:
        if name not in seen:
            raise _Bad("every node linked to a switch port", "links",
                       f"no link for node {name!r}")


def _known(name: str, path: str, nodes: list[str]) -> None:
    if name not in nodes:
        raise _Bad("the name of a node: " + ", ".join(map(repr, nodes)), path, _given(name))


def _unique(raws: list[dict[str, Any]], section: str, key: str, values: list[Any]) -> list[Any]:
    """*values*, one per table of *section*; the second of two equal ones is an error."""
    for i, value in enumerate(values):
        if value is not None and value in values[:i]:
            first = values.index(value)
            by_default = [f" ({show(value)} by default)" if key not in raws[j] else ""
                          for j in (i, first)]
            article = "an" if key[0] in "aeiou" else "a"
            raise _Bad(f"{article} {key} not used by {section}[{first}]{by_default[1]}",
                       f"{section}[{i}].{key}",
                       _given(raws[i][key]) if key in raws[i] else f"none{by_default[0]}")
    return values


def _check_counts(topology: str, nodes: int, links: int) -> None:
    want = TOPOLOGIES[topology]
    if want is not None and (nodes, links) != want:
        section, count = ("nodes", nodes) if nodes != want[0] else ("links", links)
        raise _Bad(f"topology {topology!r} needs exactly {want[0]} nodes and {want[1]} "
                   f"link{'s' if want[1] > 1 else ''}", section,
                   f"given {_count(count, section[:-1])}")


def _count(n: int, noun: str) -> str:
    """*n* *noun*s, in words: "1 node", "3 nodes"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
