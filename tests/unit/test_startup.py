"""The command line starts without the drawing libraries: only a command that
draws (figures, validate's report, run --report, topology, trace --output)
loads matplotlib."""

from __future__ import annotations

import subprocess
import sys


def test_importing_the_command_line_loads_no_matplotlib() -> None:
    code = ("import sys, fcsim.cli; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_the_figures_command_still_knows_its_papers() -> None:
    from fcsim.validation import figures
    from fcsim.validation.figure_plan import PAPERS

    assert figures.PAPERS is PAPERS
