"""The ``[[workloads]]`` tables of applications on hosts: netperf 2.x and iperf 2."""

from __future__ import annotations

from typing import Literal

from fcsim.apps.netperf import TESTS as NETPERF_TESTS
from fcsim.schema.fields import (
    SIZE_TEXT,
    Count,
    Flag,
    Name,
    OneOrMoreNames,
    Time,
    choice,
    flag,
    one_or_list,
    reader,
    size,
    time,
)
from fcsim.schema.section import Section, key
from fcsim.units import parse_rate, parse_size

OneOrMoreSizes = one_or_list(reader(parse_size, 1),
                             f"{SIZE_TEXT} >= 1 B, or a list of them (a sweep)")
Test = choice({t: t for t in NETPERF_TESTS}, "'TCP_STREAM', 'TCP_RR' or 'UDP_STREAM'")
RrSizes = choice({"request-response": False, "send-size": True},
                 "'request-response' (TCP_RR sizes from request and response, netperf -r; "
                 "netperf's default of one byte each) or 'send-size' (each send_size is the "
                 "request and the response, netperf -r m,m)")
Message = size(1)
TestLength = time(above=True, note="; start + length below run.duration")
Scaling = flag(" (RFC 1323)")


class _Application(Section):
    """Keys of every application workload: it runs between two nodes with hosts."""

    name: Name = key(None, "The workload's name, unique among workloads (default: "
                     "workload<i>).", "stream")
    type: str = key(help="The application.")
    start: Time = key("0 s", "When the application starts, s.", "1 ms")


class NetperfSection(_Application):
    """A netperf 2.x test between two nodes that have hosts (`host` in
    `[[nodes]]`): the host model gives the processor, bus and adapter costs, IP
    goes over FC as RFC 2625 says, and TCP is the BSD-derived stack of
    `fcsim.transport` (see `docs/tcp.md`). The keys mirror netperf's options. A
    TCP_RR ignores `send_size`, as netperf 2.x's TCP_RR ignores -m (its sizes
    come from -r, one byte each by default: `nettest_bsd.c`), so a command that
    passes -m to a TCP_RR runs 1-byte transactions. A list of sizes in
    `send_size` and/or `socket` runs one simulation per combination (as a script
    calling netperf repeatedly would), each with the scenario's repetitions; at
    most one netperf workload may sweep. Other workloads run alongside in every
    run, as "load" pairs."""

    where = "with type = 'netperf'"

    type: Literal["netperf"] = key(help="A netperf test.")
    source: Name = key(alias="from", help="The node running netperf (a host).",
                       example="c110")
    destination: Name = key(alias="to", help="The node running netserver (another host).",
                            example="c180")
    test: Test = key("TCP_STREAM", "The netperf test (-t).", "TCP_RR")
    send_size: OneOrMoreSizes = key(
        "64 KiB", "Bytes per send() call (-m), or a list of them (a sweep). Ignored by "
        "TCP_RR, as netperf 2.x ignores it, unless rr_sizes = 'send-size'.",
        ["4 KiB", "8 KiB"])
    rr_sizes: RrSizes = key(
        "request-response", "TCP_RR only: 'send-size' makes each send_size the request and "
        "the response (-r m,m), so a latency test can sweep message sizes; not with "
        "request/response.", "send-size")
    socket: OneOrMoreSizes = key("64 KiB", "Socket buffer size of both ends, bytes (-s and -S "
                                 "together), or a list of them (a sweep).", "256 KiB")
    nodelay: Flag = key(False, "TCP_NODELAY on both ends (-D).", True)
    length: TestLength = key("10 s", "Test length, s (-l).", "1 s")
    recv_size: Message = key(None, "Bytes per recv() call (-M; default: the remote socket "
                             "size).", "8 KiB")
    request: Message = key(1, "TCP_RR request size, bytes (-r).", "1 B")
    response: Message = key(1, "TCP_RR response size, bytes (-r).", "1 B")
    window_scaling: Scaling = key(True, "RFC 1323 window scaling on both ends.", False)


Protocol = choice({"tcp": False, "udp": True}, "'tcp' or 'udp'; iperf -u")
TestDuration = time(above=True, note="; start + duration below run.duration")
Bandwidths = one_or_list(reader(parse_rate, 0.0, above=True),
                         "a rate such as '100 Mbit/s', or a list of them (a sweep); iperf -b")
Interval = time(above=True)


class IperfSection(_Application):
    """An iperf 2 client on `from` and server on `to` (both nodes with hosts);
    with lists, a mesh: each client sends to each server at once (as seed 003
    runs iperf), reported as their sum. A list of windows and/or bandwidths
    runs one simulation per combination (as a script calling iperf
    repeatedly would), each with the scenario's repetitions; at most one
    workload may sweep."""

    where = "with type = 'iperf'"

    type: Literal["iperf"] = key(help="An iperf test.")
    source: OneOrMoreNames = key(alias="from", help="The node running the iperf client (a "
                                 "host), or a list of them: a mesh, each client sending to "
                                 "each server.", example="h1")
    destination: OneOrMoreNames = key(alias="to", help="The node running the iperf server "
                                      "(another host), or a list of them.", example="h2")
    protocol: Protocol = key("tcp", "TCP or UDP (-u).", "udp")
    parallel: Count = key(1, "Parallel flows (-P): TCP connections, or UDP flows each "
                          "at the bandwidth.", 4)
    window: OneOrMoreSizes = key("64 KiB", "Socket buffer per flow, bytes (-w), or a list "
                                 "of them (a sweep).", ["32 KiB", "64 KiB"])
    length: Message = key(None, "Bytes per write (-l; default: 8 KB for TCP, 1470 B for "
                          "UDP).", "128 KiB")
    bandwidth: Bandwidths = key("1 Mbit/s", "UDP offered rate of each flow, bit/s (-b), or a "
                                "list of them (a sweep).", "100 Mbit/s")
    duration: TestDuration = key("10 s", "Test length, s (-t).", "1 s")
    nodelay: Flag = key(False, "TCP_NODELAY (-N).", True)
    interval: Interval = key(None, "Period of interim reports, s (-i); the results give "
                             "each interval's sum over the mesh and their median, and each "
                             "run's reports (on its own clock, from its start), median and "
                             "the sum of those medians.", "4 s")
    stagger: Time = key("0 s", "A mesh only: the time between the starts of successive "
                        "client-server runs, s, as a script starting them one after another "
                        "would: run k (each client's runs to every server in turn, then the "
                        "next client's) starts at start + k x stagger and runs for duration. "
                        "Default: all at once.", "10 ms")

