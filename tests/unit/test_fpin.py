"""FPIN, EDC and RDF: their bytes against the layouts of FC-LS-5 as Linux
``fc_els.h`` writes them, registration after fabric login, delivery to the
N_Port's listeners, and tshark's reading of a capture."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcsim.build import BUILDERS, build_workloads
from fcsim.engine.simulation import Simulation
from fcsim.fc2 import fpin as f
from fcsim.fc2.els_payload import port_name
from fcsim.runner import run_once
from fcsim.scenario.loader import load_scenario
from fcsim.schema.errors import ScenarioError
from fcsim.trace.capture import PcapSink
from fcsim.trace.pcap import PcapWriter
from tests.fabric_text import one_switch_fabric, stream
from tests.tshark import needs_tshark, tshark_rows

ROOT = Path(__file__).resolve().parents[2]

FABRIC = (one_switch_fabric(("a", "b"), "2 ms", "4GFC")
          + stream("s", "a", "b", **{"class": 3}, size="64 KiB"))


def _scenario(tmp_path: Path, extra: str = "", text: str = FABRIC):
    path = tmp_path / "s.toml"
    path.write_text(text + extra)
    return load_scenario(path)


# -- bytes ---------------------------------------------------------------------------

def test_fpin_congestion_layout() -> None:
    """struct fc_els_fpin + struct fc_fn_congn_desc: command 0x16, the list's
    length (20), tag 0x00020004, its length (12), event type, modifier, period
    in ms, severity."""
    payload = f.fpin([f.Congestion(f.CONGESTION_CREDIT_STALL, f.SEVERITY_ALARM, 0.25)])
    assert len(payload) == 8 + 8 + 12
    assert payload[:4] == bytes([0x16, 0, 0, 0])
    assert struct.unpack(">4xIIIHHIB3x", payload) == (20, f.TAG_CONGESTION, 12, 2, 0, 250, 0xF7)


def test_fpin_link_integrity_layout() -> None:
    """struct fc_fn_li_desc: detecting and attached WWPNs, event type, modifier,
    threshold (the window, ms), count, then pname_count WWPNs."""
    d = f.LinkIntegrity(f.LI_INVALID_CRC, 0x2100_0000_0000_0001, 0x2100_0000_0000_0002, 5, 7,
                        (0x2100_0000_0000_0003, 0x2100_0000_0000_0004), 60.0)
    payload = f.fpin([d])
    length = 8 + 8 + 2 + 2 + 4 + 4 + 4 + 2 * 8
    assert len(payload) == 8 + 8 + length
    fields = struct.unpack(">B3xIIIQQHHIIIQQ", payload)
    assert fields == (0x16, 8 + length, f.TAG_LINK_INTEGRITY, length, d.detecting, d.attached,
                      6, 0, 60000, 5, 2, *d.affected)


def test_fpin_peer_congestion_and_delivery_layouts() -> None:
    peer = f.PeerCongestion(f.CONGESTION_CREDIT_STALL, 1, 2, 0.001, (3,))
    payload = f.descriptor_bytes(peer)
    assert struct.unpack(">IIQQHHIIQ", payload) == (f.TAG_PEER_CONGESTION, 36, 1, 2, 2, 0, 1,
                                                    1, 3)
    delivery = f.descriptor_bytes(f.Delivery(f.DELIVERY_TIMEOUT, 1, 2))
    assert struct.unpack(">IIQQI", delivery) == (f.TAG_DELIVERY, 20, 1, 2, 1)


def test_edc_request_and_accept_layouts() -> None:
    """struct fc_els_edc with one fc_diag_cg_sig_desc (tag 0x0001000F, 16
    bytes) as lpfc sends it (it receives warning and alarm every 100 ms);
    the LS_ACC: fc_els_edc_resp, the request information descriptor naming
    EDC, then the F_Port's capability."""
    request = f.edc_request(f.SIGNALS_WARNING_ALARM, 0.1)
    assert len(request) == 8 + 24
    assert struct.unpack(">B3xIIIIHHIHH", request) == (
        0x17, 24, f.TAG_CONGESTION_SIGNAL_CAP, 16, 0, 0, 0, 2, 100, f.FREQUENCY_MS)
    accept = f.edc_accept(f.SIGNALS_WARNING_ALARM, 0.05)
    assert len(accept) == 8 + 12 + 24
    assert struct.unpack(">B3xIIIB3xIIIHHIHH", accept) == (
        0x02, 36, f.TAG_LS_REQUEST_INFO, 4, 0x17, f.TAG_CONGESTION_SIGNAL_CAP, 16, 2, 50,
        f.FREQUENCY_MS, 0, 0, 0)
    assert f.signal_capability(request) == (0, 0.0, 2, 0.1)
    assert f.signal_capability(accept) == (2, 0.05, 0, 0.0)


def test_rdf_request_and_accept_layouts() -> None:
    """lpfc's struct lpfc_els_rdf_req: fc_els_rdf, then an FPIN registration
    descriptor (0x00030001) of its four tags; the LS_ACC (fc_els_rdf_resp)
    lists those the fabric sends."""
    request = f.rdf_request()
    assert len(request) == 36
    assert struct.unpack(">B3xIIII4I", request) == (0x19, 28, f.TAG_FPIN_REGISTER, 20, 4,
                                                    *f.NOTIFICATION_TAGS)
    accept = f.rdf_accept((f.TAG_CONGESTION,))
    assert struct.unpack(">B3xIIIB3xIIII", accept) == (0x02, 12 + 16, 1, 4, 0x19,
                                                       f.TAG_FPIN_REGISTER, 8, 1,
                                                       f.TAG_CONGESTION)
    assert f.registered_tags(request) == f.NOTIFICATION_TAGS
    assert f.registered_tags(accept) == (f.TAG_CONGESTION,)


_NAMES = st.integers(0, 2**64 - 1)
_MS = st.integers(0, 2**32 - 1).map(lambda ms: ms / 1000)
_DESCRIPTORS = st.one_of(
    st.builds(lambda k, d, a, t, n, w: f.LinkIntegrity(k, d, a, t, t, n, w),
              st.integers(0, 0xF), _NAMES, _NAMES, st.integers(0, 2**32 - 1),
              st.lists(_NAMES, max_size=4).map(tuple), _MS),
    st.builds(f.Delivery, st.integers(0, 0xF), _NAMES, _NAMES),
    st.builds(f.PeerCongestion, st.integers(0, 0xF), _NAMES, _NAMES, _MS,
              st.lists(_NAMES, max_size=4).map(tuple)),
    st.builds(f.Congestion, st.integers(0, 0xF), st.sampled_from([0xF1, 0xF7]), _MS))


@given(st.lists(_DESCRIPTORS, min_size=1, max_size=5))
def test_fpin_bytes_round_trip(descriptors: list[f.Descriptor]) -> None:
    """Every descriptor list written reads back the same (periods in whole ms;
    a Link Integrity count travels as its threshold, so here they are equal)."""
    payload = f.fpin(descriptors)
    assert struct.unpack_from(">I", payload, 4)[0] == len(payload) - 8
    assert f.fpin_descriptors(payload) == descriptors


# -- registration and delivery --------------------------------------------------------

class _Listener:
    def __init__(self) -> None:
        self.got: list[tuple[int, f.Descriptor]] = []

    def fpin_received(self, port_name: int, descriptor: f.Descriptor) -> None:
        self.got.append((port_name, descriptor))


def test_nports_register_after_flogi_and_listeners_get_descriptors(tmp_path: Path) -> None:
    """With [fpin] each N_Port sends EDC then RDF after its FLOGI; the F_Ports
    settle on warning and alarm signals at the longer period; an FPIN sent to
    an N_Port reaches its listeners, in order, with its port name."""
    scenario = _scenario(tmp_path, '[fpin]\ncongestion = true\nsignals = true\n'
                                   'signal_period = "1 ms"\n')
    sim = Simulation(1)
    net = BUILDERS["fabric"](sim, scenario)
    first, second = _Listener(), _Listener()
    net.nodes["b"].listen_fpin(first)
    net.nodes["b"].listen_fpin(second)
    build_workloads(sim, scenario, net)
    sim.run(0.0005)
    for name in ("a", "b"):
        login = net.logins[name]
        assert login.fpin_tags == (f.TAG_PEER_CONGESTION, f.TAG_CONGESTION)
        assert login.signals == (f.SIGNALS_WARNING_ALARM, 0.001)
        assert net.fpin.registered[net.addresses[name]] == login.fpin_tags
    assert net.nodes["b"].ready_at is not None
    descriptor = f.Congestion(f.CONGESTION_CREDIT_STALL, f.SEVERITY_WARNING, 0.001)
    net.fpin._send("b", [descriptor])
    sim.run(0.001)
    assert first.got == second.got == [(port_name("b"), descriptor)]
    assert [d for _, d in net.nodes["b"].fpin.log] == [descriptor]


def test_an_nport_registers_only_for_what_the_fabric_sends(tmp_path: Path) -> None:
    """RDF's LS_ACC lists the notifications of the rules turned on; without
    signals there is no EDC and the N_Port takes none."""
    scenario = _scenario(tmp_path, "[fpin]\nlink_integrity = true\n")
    sim = Simulation(1)
    net = BUILDERS["fabric"](sim, scenario)
    sim.run(0.0005)
    assert net.logins["a"].fpin_tags == (f.TAG_LINK_INTEGRITY,)
    assert net.logins["a"].signals == (f.SIGNALS_NONE, 0.0)
    assert net.fpin.signalled == {}


def test_without_fpin_nothing_registers(tmp_path: Path) -> None:
    """A fabric without [fpin]: no receiver, no results key."""
    scenario = _scenario(tmp_path)
    result = run_once(scenario, 1)
    assert "fpin" not in result


def test_an_alarm_below_the_warning_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="fpin.congestion_alarm"):
        _scenario(tmp_path, "[fpin]\ncongestion_warning = 0.5\ncongestion_alarm = 0.2\n")


# -- tshark ------------------------------------------------------------------------------

@needs_tshark
def test_tshark_reads_edc_rdf_and_fpin(tmp_path: Path) -> None:
    """Wireshark 4.0 has no dissector for EDC (0x17), RDF (0x19) or FPIN
    (0x16): it reads each as an FC ELS of that command (and its LS_ACC),
    between the right addresses, with no malformed frame and no warning."""
    text = (ROOT / "scenarios" / "fabric-slow-drain.toml").read_text().replace(
        'duration = "10 ms"', 'duration = "3 ms"')
    scenario = _scenario(tmp_path, '\n[fpin]\ncongestion = true\ncongestion_window = "1 ms"\n'
                                   'signals = true\nsignal_period = "500 us"\n', text)
    capture = tmp_path / "slow.pcap"
    with PcapWriter(capture) as writer:
        run_once(scenario, 1, [PcapSink(writer, frozenset({"slow"}))])

    rows = tshark_rows(capture, tmp_path, "fc.d_id", "fc.s_id", "_ws.col.Info", where="fcels")
    infos = [(d, s, info) for d, s, info in rows]
    slow = "03.00.00"
    assert ("ff.ff.fe", slow, "0x17") in infos and (slow, "ff.ff.fe", "ACC (0x17)") in infos
    assert ("ff.ff.fd", slow, "0x19") in infos and (slow, "ff.ff.fd", "ACC (0x19)") in infos
    assert (slow, "ff.ff.fd", "0x16") in infos
    assert not any(info == "ACC (0x16)" for _, _, info in infos)  # an FPIN is not answered
    assert tshark_rows(capture, tmp_path, "frame.number", where="_ws.malformed") == []
    assert tshark_rows(capture, tmp_path, "frame.number",
                       where="_ws.expert.severity >= 6291456") == []
