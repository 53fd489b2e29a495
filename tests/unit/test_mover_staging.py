"""An HPSS mover's staging rule (HPSS 7.3 Management Guide, Mover buffer size):
double buffering only for a request larger than one mover buffer."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcsim.apps.transfer import mover_staging
from fcsim.scenario.loader import scenario_from_document
from fcsim.schema.errors import ScenarioError


@given(block=st.integers(1, 2**26), buffer=st.integers(1, 2**26))
def test_a_request_that_fits_one_buffer_is_staged_whole(block: int, buffer: int) -> None:
    piece, buffers = mover_staging(block, buffer)
    if block <= buffer:
        assert (piece, buffers) == (block, 1)
    else:
        assert (piece, buffers) == (buffer, 2)


def test_the_guide_s_example() -> None:
    # "if the Mover buffer size is 4MB, but client requests are 512KB, the Mover
    # will not achieve any double buffering benefit"
    assert mover_staging(512 * 1024, 4 * 2**20)[1] == 1


BASE = ('topology = "internetwork"\n[run]\nduration = "1 s"\n\n'
        '[[nodes]]\nname = "a"\nhost = "ideal"\n\n[[nodes]]\nname = "m"\nhost = "ideal"\n\n'
        '[[networks]]\nname = "lan"\ntopology = "ethernet"\n\n[[networks.links]]\n'
        'ends = ["a", "m"]\nspeed = "1000BASE-X"\n\n'
        '[[workloads]]\nname = "t"\ntype = "transfer"\npath = ["a", "m"]\nsize = "1 MiB"\n'
        'block = "1 MiB"\n')


@pytest.mark.parametrize(("extra", "message"), [
    ('mover = "x"\n', "workloads[0].mover"),
    ('mover_buffer = "1 MiB"\n', "workloads[0].mover_buffer"),
    ('mover_request = "512 MB"\n', "workloads[0].mover_request"),
])
def test_a_mover_off_the_path_or_a_buffer_without_mover_is_refused(extra: str,
                                                                   message: str) -> None:
    with pytest.raises(ScenarioError, match=message.replace("[", r"\[").replace("]", r"\]")):
        scenario_from_document(tomllib.loads(BASE + extra), "t.toml")
