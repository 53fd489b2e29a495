"""The ``[[workloads]]`` tables of FC-2 traffic: saturating streams and open-loop
generators with their size and inter-arrival distributions; :data:`Workload`
joins them with the applications of :mod:`fcsim.scenario.sections.apps`, the
block workloads of :mod:`fcsim.storage.config` and the relayed
transfers of :mod:`fcsim.scenario.sections.transfer`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, create_model

from fcsim.fc2.frame import MAX_DATA_FIELD
from fcsim.scenario.sections.apps import IperfSection, NetperfSection
from fcsim.scenario.sections.transfer import TransferSection
from fcsim.schema.fields import (
    SIZE_TEXT,
    TIME_TEXT,
    Count,
    Expects,
    Name,
    Time,
    choice,
    integer,
    size,
    time,
)
from fcsim.schema.section import Section, key
from fcsim.storage.config import DdSection, FioSection
from fcsim.workload.stream import EXCHANGE_USES

DISTRIBUTIONS = {"constant": ("value",), "exponential": ("mean",), "uniform": ("low", "high")}
"""Distribution kinds and their parameters, in order."""
_MEANING = {"value": "always this value", "mean": "the mean of the exponential distribution",
            "low": "the lowest value of the uniform distribution",
            "high": "the highest value of the uniform distribution, >= low"}


def _tables(one: Any, unit: str, prefix: str, example: str) -> list[type[Section]]:
    """One table model per distribution kind, its parameters read by *one*."""
    models = []
    for kind, names in DISTRIBUTIONS.items():
        params: dict[str, Any] = {
            name: (one, key(help=f"{_MEANING[name].capitalize()}, {unit}.", example=example))
            for name in names}
        model = create_model(f"{prefix}{kind.capitalize()}", __base__=Section,
                             __doc__=f"A {kind} distribution of {unit}.",
                             distribution=(Literal[kind], key(help="The kind of distribution.")),
                             **params)
        model.where = f"with distribution = {kind!r}"
        models.append(model)
    return models


def _distribution(one: Any, unit: str, prefix: str, example: str, expects: str) -> Any:
    """A plain value of *one* (always that value) or a distribution table."""
    def plain(value: Any) -> Any:
        return value if isinstance(value, dict) else {"distribution": "constant", "value": value}

    def schema(field: dict[str, Any]) -> None:
        tagged = {k: field.pop(k) for k in ("oneOf", "discriminator") if k in field}
        field["anyOf"] = [{"type": ["string", "number"]}, tagged]
    tables = tuple(_tables(one, unit, prefix, example))
    return Annotated[tables[0] | tables[1] | tables[2], Field(discriminator="distribution",
                                                              json_schema_extra=schema),
                     BeforeValidator(plain), Expects(expects)]


Sizes = _distribution(size(), "bytes", "Size", "1 KiB",
                      f"{SIZE_TEXT}, or a distribution table of sizes")
"""A size in bytes, or a distribution of them."""
Times = _distribution(time(), "s", "Time", "100 us",
                      f"{TIME_TEXT}, or a distribution table of times; mean > 0 s")
"""A time in s, or a distribution of them."""
ServiceClass = integer(1, 3, "a class of service: 1, 2 or 3")
Payload = size(1, MAX_DATA_FIELD, f"a data field size of 1..{MAX_DATA_FIELD} bytes such as "
               f"'{MAX_DATA_FIELD} B'")
Bytes = size()
StripePorts = integer(1, 255, "an integer 1..255 (N_Port pairs to stripe over)")
StripeUnit = size(1, text="a size with a unit such as '64 KiB', >= 1 B")
ExchangeUse = choice(dict(zip(EXCHANGE_USES, EXCHANGE_USES, strict=True)))
EXCHANGES_HELP = ("How a stream uses exchanges: 'per-slot', each of its outstanding slots "
                  "keeps one exchange for the run, as IP over FC (RFC 2625) or a long-lived "
                  "FC-4 stream does; 'per-sequence', each sequence opens an exchange of its "
                  "own (a fresh OX_ID from the N_Port's pool) and ends it when the sequence "
                  "is done, as FCP does for each command. Exchange-based routing chooses a "
                  "path per exchange: once per slot, or per sequence. See docs/fabrics.md.")


class _Sequences(Section):
    """Keys of every FC-2 workload: it sends sequences from one node to another."""

    name: Name = key(None, "The workload's name, unique among workloads; results are "
                     "reported under it (default: workload<i>, i its position from 0).", "bulk")
    type: str = key(help="The kind of workload.")
    source: Name = key(alias="from", help="The sending node.", example="host")
    destination: Name = key(alias="to", help="The receiving node, not from.", example="disk")
    cls: ServiceClass = key(3, "The class of service of its sequences.", 2, alias="class")
    max_payload: Payload = key(
        None, "The largest data field per frame the sender uses, bytes; the receiver's "
        "rx_data_field also applies, whichever is smaller.", "1 KiB")
    start: Time = key("0 s", "When the first sequence is offered, s.", "1 ms")
    count: Count = key(None, "Sequences to send in all; then the workload stops (default: "
                       "no limit).", 100)


class StreamSection(_Sequences):
    """A saturating stream: the next sequence is offered as soon as one completes.
    A Class 3 sequence completes when its last frame is sent, a Class 1/2
    sequence when its last ACK is back."""

    where = "with type = 'stream'"

    type: Literal["stream"] = key(help="A saturating stream.")
    size: Bytes = key(help="Bytes per sequence.", example="64 KiB")
    outstanding: Count = key(1, "Sequences open at once, each in its own exchange.", 4)
    exchanges: ExchangeUse = key("per-slot", EXCHANGES_HELP + " Only 'per-slot' with "
                                 "stripe_ports > 1.", "per-sequence")
    stripe_ports: StripePorts = key(
        1, "FC-3 striping (fabric): N_Port pairs each sequence is striped over, the "
        "source's N_Port i sending to the destination's N_Port i; at most the ports of "
        "either node. 1: not striped.", 4)
    stripe_unit: StripeUnit = key(
        None, "Bytes per stripe unit when stripe_ports > 1 (required then): unit j of the "
        "stream goes over pair j mod stripe_ports, as its own FC-2 sequence, and the "
        "receiver puts the units back in order.", "64 KiB")


class GeneratorSection(_Sequences):
    """An open-loop generator: sequences arrive at random, whatever the backlog.
    `size` and `interarrival` take a plain quantity (always that value) or a
    distribution table: `{ distribution = "constant", value = ... }`,
    `{ distribution = "exponential", mean = ... }` or
    `{ distribution = "uniform", low = ..., high = ... }` (low <= high). Drawn
    sizes are rounded to whole bytes; exponential interarrival times give
    Poisson arrivals."""

    where = "with type = 'generator'"

    type: Literal["generator"] = key(help="An open-loop generator.")
    size: Sizes = key(help="Bytes per sequence, or their distribution.", example="2 KiB")
    interarrival: Times = key(help="Time between arrivals, or its distribution; mean > 0 s.",
                              example={"distribution": "exponential", "mean": "100 us"})


WORKLOADS: dict[str, type[Section]] = {"stream": StreamSection, "generator": GeneratorSection,
                                       "netperf": NetperfSection, "iperf": IperfSection,
                                       "fio": FioSection, "dd": DdSection,
                                       "transfer": TransferSection}
"""Each workload ``type`` and its table."""
Workload = Annotated[StreamSection | GeneratorSection | NetperfSection | IperfSection
                     | FioSection | DdSection | TransferSection, Field(discriminator="type")]
"""One ``[[workloads]]`` table, of the kind its ``type`` names."""
