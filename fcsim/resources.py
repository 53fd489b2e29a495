"""Where fcsim finds the files it reads at run time: the device catalog
(``models/``), the scenarios of the papers (``scenarios/``), the validation
claims (``validation/claims.toml``) and the sensitivity table
(``validation/sensitivity.toml``).

In a source checkout (the README's editable install) they are the project's
own folders, so an edit shows at once. An install from a wheel carries a copy
inside the package, ``fcsim/_data`` (made by ``setup.py``), found through
:mod:`importlib.resources`.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[1]
"""The project folder when fcsim runs from a source checkout."""
IN_SOURCE_TREE = (SOURCE_ROOT / "pyproject.toml").is_file() and (SOURCE_ROOT / "models").is_dir()
"""True in a source checkout, False in an install from a wheel."""
DATA_ROOT = SOURCE_ROOT if IN_SOURCE_TREE else Path(str(files("fcsim") / "_data"))
"""The folder holding ``models/``, ``scenarios/`` and ``validation/`` (claims and sensitivity)."""
