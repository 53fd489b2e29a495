"""Test-suite settings: property tests are reproducible in CI.

With ``CI`` set (as the CI script sets it) hypothesis draws the same examples
on every run and keeps no example database, so a CI result depends on the
code alone; elsewhere it explores new examples each run.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")
