"""Build hook: ship the device catalog, the example scenarios, the validation
claims and the sensitivity table inside the package (``fcsim/_data``), so
that an install from a wheel finds them (:mod:`fcsim.resources`). An
editable install reads them from the source tree instead. Everything else is in pyproject.toml."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA = ("models", "scenarios", "validation/claims.toml", "validation/sensitivity.toml")
"""Project files that fcsim reads at run time, relative to the project folder."""


class BuildWithData(build_py):
    """``build_py`` that also copies :data:`DATA` into ``fcsim/_data``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "fcsim" / "_data"
        for name in DATA:
            source, copy = Path(name), target / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, copy, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, copy)


setup(cmdclass={"build_py": BuildWithData})
