"""The value types of scenario and model files, as annotated types for pydantic.

Each type reads one kind of TOML value into SI (quantities through
:mod:`fcsim.units`, the one place that parses units), refuses anything else
with the text of what it accepts, and describes itself in JSON Schema. The
accepted-values text is kept on the type as :class:`Expects`, so an error
about a key (wrong value, missing) always says the same thing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from fcsim.units import UnitError, parse_baud, parse_length, parse_rate, parse_size, parse_time

ERROR_TYPE = "fcsim"
"""The pydantic error type of a value these types refuse; its context holds
``expected``, the text of what is accepted."""


@dataclass(frozen=True)
class Expects:
    """Annotation metadata: what a key accepts, in words, for error messages."""

    text: str


def refuse(expected: str) -> PydanticCustomError:
    """The error a value type raises: *expected* says what it accepts."""
    return PydanticCustomError(ERROR_TYPE, "{expected}", {"expected": expected})


def value_type(base: Any, read: Callable[[Any], Any], expects: str,
               schema: dict[str, Any]) -> Any:
    """An annotated type: *read* turns a TOML value into the typed value or
    raises ValueError (its text, if any, is added to *expects*)."""
    def check(value: Any) -> Any:
        try:
            return read(value)
        except ValueError as error:
            detail = str(error)
            raise refuse(f"{expects}; {detail}" if detail else expects) from None
    return Annotated[base, PlainValidator(check), WithJsonSchema(schema), Expects(expects)]


def is_int(value: Any) -> bool:
    """True for a TOML integer (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _test(ok: bool) -> None:
    if not ok:
        raise ValueError()


# -- quantities ------------------------------------------------------------------------

TIME_TEXT = "a time with a unit such as '10 ms'"
SIZE_TEXT = "a size with a unit such as '64 KiB' (bare integer: bytes)"
_QUANTITY_SCHEMA = {"type": ["string", "number"]}


def reader(parse: Callable[[Any], Any], low: float | None = 0.0, high: float = float("inf"),
           above: bool = False) -> Callable[[Any], Any]:
    """A function reading a quantity by *parse* in low..high (*above*: strictly
    above low; *low* None: any); ValueError, with the unit problem if any, otherwise."""
    def read(value: Any) -> Any:
        _test(type(value) in (str, int, float))
        try:
            number = parse(value)
        except UnitError as error:
            raise ValueError(str(error)) from None
        if low is not None:
            _test(low < number if above else low <= number <= high)
        return number
    return read


def quantity(parse: Callable[[Any], Any], expects: str, low: float | None = 0.0,
             high: float = float("inf"), above: bool = False) -> Any:
    """A quantity read by *parse* in low..high (*above*: strictly above low)."""
    return value_type(float, reader(parse, low, high, above), expects, _QUANTITY_SCHEMA)


def time(above: bool = False, note: str = "") -> Any:
    """A time in s, >= 0 (or > 0 with *above*); *note* is added to the text."""
    return quantity(parse_time, f"{TIME_TEXT}, {'>' if above else '>='} 0 s{note}",
                    above=above)


def size(low: int = 0, high: float = float("inf"), text: str = "") -> Any:
    """A size in bytes in low..high; *text* replaces the default wording."""
    return quantity(parse_size, text or f"{SIZE_TEXT}, >= {low}" + ("" if low == 0 else " B"),
                    low, high)


def length(text: str = "a length with a unit such as '1 km', >= 0 m", above: bool = False) -> Any:
    """A length in m, >= 0 (> 0 with *above*)."""
    return quantity(parse_length, text, above=above)


def rate(note: str = "") -> Any:
    """A bit rate in bit/s, > 0."""
    return quantity(parse_rate, f"a rate such as '100 Mbit/s'{note}", above=True)


def _per_metre(text: Any) -> float:
    """Seconds per metre in "5 ns/m" or "5 us / 1 km"; each half read by fcsim.units."""
    if not isinstance(text, str) or text.count("/") != 1:
        raise UnitError()
    time_part, length_part = (part.strip() for part in text.split("/"))
    per = parse_length(f"1 {length_part}" if length_part[:1].isalpha() else length_part)
    if not per > 0:
        raise UnitError()
    return parse_time(time_part) / per


Propagation = quantity(_per_metre, "a time per length such as '5 ns/m', >= 0")
"""One-way delay per metre of cable, s/m."""
Speed = quantity(parse_baud, "a speed name such as '1GFC' or a baud rate such as "
                 "'265.625 Mbaud'", low=None)
"""A line speed: a catalog name or a baud rate (a :class:`fcsim.fc0.speed.Speed`)."""


# -- plain values ------------------------------------------------------------------------


def integer(low: int, high: int | None = None, text: str = "") -> Any:
    """A TOML integer in low..high; *text* replaces the default wording."""
    expects = text or f"an integer >= {low}"

    def read(value: Any) -> int:
        _test(is_int(value) and low <= value and (high is None or value <= high))
        return value
    bounds = {"minimum": low} | ({"maximum": high} if high is not None else {})
    return value_type(int, read, expects, {"type": "integer", **bounds})


def _bool(value: Any) -> bool:
    _test(isinstance(value, bool))
    return value


def flag(note: str = "") -> Any:
    """true or false."""
    return value_type(bool, _bool, f"true or false{note}", {"type": "boolean"})


def _name(value: Any) -> str:
    _test(isinstance(value, str) and bool(value.strip()))
    return value


Name = value_type(str, _name, "a non-empty string", {"type": "string", "minLength": 1})
"""A non-empty name."""


def _text(value: Any) -> str:
    _test(isinstance(value, str))
    return value


Text = value_type(str, _text, "a string", {"type": "string"})
"""Any string."""


def fraction(text: str, above: bool = False) -> Any:
    """A number in [0, 1) ((0, 1) with *above*)."""
    def read(value: Any) -> float:
        _test(type(value) in (int, float) and (0 < value if above else 0 <= value) and value < 1)
        return float(value)
    bound = {"exclusiveMinimum": 0} if above else {"minimum": 0}
    return value_type(float, read, text, {"type": "number", **bound, "exclusiveMaximum": 1})


def number(text: str, low: float = 0.0, above: bool = False) -> Any:
    """A plain number >= low (> low with *above*)."""
    def read(value: Any) -> float:
        _test(type(value) in (int, float) and (value > low if above else value >= low))
        return float(value)
    bound = {"exclusiveMinimum": low} if above else {"minimum": low}
    return value_type(float, read, text, {"type": "number", **bound})


def choice(options: dict[str, Any], text: str | None = None) -> Any:
    """One of the strings in *options*, read as its value there."""
    expects = text or "one of " + ", ".join(map(repr, options))

    def read(value: Any) -> Any:
        _test(isinstance(value, str) and value in options)
        return options[value]
    return value_type(str, read, expects, {"type": "string", "enum": list(options)})


def hex_or_integer(digits: int, valid: Callable[[int], bool], text: str) -> Any:
    """An integer written as TOML integer or as a string "0x" + *digits* hex digits."""
    pattern = re.compile(rf"0x[0-9A-Fa-f]{{{digits}}}")

    def read(value: Any) -> int:
        if isinstance(value, str) and pattern.fullmatch(value):
            value = int(value, 16)
        _test(is_int(value) and valid(value))
        return value
    return value_type(int, read, text, {"anyOf": [
        {"type": "string", "pattern": f"^0x[0-9A-Fa-f]{{{digits}}}$"}, {"type": "integer"}]})


def distinct_list(item: Callable[[Any], bool], text: str, length: int | None = None,
                  item_schema: dict[str, Any] | None = None) -> Any:
    """A non-empty list of distinct items passing *item* (of *length* if given), as a tuple."""
    def read(value: Any) -> tuple[Any, ...]:
        _test(isinstance(value, list) and len(value) == (length or len(value) or -1)
              and all(map(item, value)) and len(set(value)) == len(value))
        return tuple(value)
    schema: dict[str, Any] = {"type": "array", "items": item_schema or {}, "uniqueItems": True,
                              "minItems": length or 1}
    if length:
        schema["maxItems"] = length
    return value_type(tuple, read, text, schema)


def name_list(at_least: int, text: str) -> Any:
    """A list of at least *at_least* distinct non-empty names, as a tuple."""
    def read(value: Any) -> tuple[str, ...]:
        _test(isinstance(value, list) and len(value) >= at_least
              and all(isinstance(m, str) and m.strip() for m in value)
              and len(set(value)) == len(value))
        return tuple(value)
    return value_type(tuple, read, text, {"type": "array",
                                          "items": {"type": "string", "minLength": 1},
                                          "minItems": at_least, "uniqueItems": True})


def one_or_list(one: Callable[[Any], Any], text: str) -> Any:
    """One value or a non-empty list of them, each read by *one*, as a tuple."""
    def read(value: Any) -> tuple[Any, ...]:
        items = value if isinstance(value, list) and value else [value]
        return tuple(one(item) for item in items)
    return value_type(tuple, read, text, {"anyOf": [
        _QUANTITY_SCHEMA, {"type": "array", "items": _QUANTITY_SCHEMA, "minItems": 1}]})



def tables(item: Any, text: str, at_least: int = 0) -> Any:
    """An array of tables (``[[name]]``), each validated as *item*; *text* says
    what is accepted, shown when the value is not an array of tables."""
    def check(value: Any) -> Any:
        if not (isinstance(value, list) and all(isinstance(one, dict) for one in value)
                and len(value) >= at_least):
            raise refuse(text)
        return value
    return Annotated[list[item], BeforeValidator(check), Expects(text),
                     Field(min_length=at_least)]


def table(item: Any, text: str) -> Any:
    """A table (``[name]``) validated as *item*."""
    def check(value: Any) -> Any:
        if not isinstance(value, dict):
            raise refuse(text)
        return value
    return Annotated[item, BeforeValidator(check), Expects(text)]


Flag = flag()
"""true or false."""
Time = time()
"""A time >= 0 s."""
PositiveTime = time(above=True)
"""A time > 0 s."""
Count = integer(1)
"""An integer >= 1."""
Words = integer(0, text="an integer >= 0 (transmission words)")
"""A delay in transmission words (40 line bits at 8b/10b)."""
NodeNames = distinct_list(lambda e: isinstance(e, str) and bool(e.strip()),
                          "a list of every node's name, each once, in ring order",
                          item_schema={"type": "string", "minLength": 1})
"""Node names, each once (a loop's ring order)."""
Ends = distinct_list(lambda e: isinstance(e, str) and bool(e.strip()),
                     "a list of the names of two different nodes such as ['host', 'disk']", 2,
                     {"type": "string", "minLength": 1})
"""The two ends of a link."""



def _names(value: Any) -> tuple[str, ...]:
    names = value if isinstance(value, list) else [value]
    _test(bool(names) and all(isinstance(n, str) and n.strip() for n in names)
          and len(set(names)) == len(names))
    return tuple(names)


OneOrMoreNames = value_type(tuple, _names, "a node name, or a list of distinct node names",
                            {"anyOf": [{"type": "string", "minLength": 1}, {
                                "type": "array", "items": {"type": "string", "minLength": 1},
                                "minItems": 1, "uniqueItems": True}]})
"""One node name or several, as a tuple."""
