"""Packs the top-level data folders into the wheel (the rest is in pyproject.toml).

``templates/`` and ``config/`` stay at the top of the source tree; a built package carries
copies of them as ``pbem/_data/templates`` and ``pbem/_data/config``, found at run time by
:mod:`pbem.locations`. An editable install reads them from the checkout instead.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
DATA_FOLDERS = ("templates", "config")


class BuildWithData(build_py):
    """``build_py`` that also copies the top-level data folders into ``pbem/_data``."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "pbem" / "_data"
        for name in DATA_FOLDERS:
            shutil.rmtree(target / name, ignore_errors=True)
            shutil.copytree(
                HERE / name, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )


setup(cmdclass={"build_py": BuildWithData})
