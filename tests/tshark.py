"""tshark for the capture tests: the mark that skips a test where it is not
installed, and the fields of a capture's frames as tshark reads them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")


def tshark_rows(path: Path, home: Path, *fields: str, where: str = "") -> list[list[str]]:
    """Per frame of the capture *path* that the display filter *where* keeps
    (every frame if empty), the values of *fields* as tshark prints them
    (tab-separated, one line a frame); tshark's preferences from the empty
    folder *home*, so a user's own do not change what is read."""
    args = ["tshark", "-r", str(path), "-T", "fields"]
    for field in fields:
        args += ["-e", field]
    if where:
        args += ["-Y", where]
    out = subprocess.run(args, capture_output=True, text=True, check=True,
                         env={"HOME": str(home)}).stdout
    return [line.split("\t") for line in out.splitlines() if line]
