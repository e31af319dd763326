"""Where the server finds the files it ships with, and where relative paths point.

The templates and the default configuration live at the top of the source tree
(``templates/``, ``config/``). A wheel carries copies of them inside the package, under
``pbem/_data/`` (see ``setup.py``), so an installed server never reads a checkout.
Running from a checkout (``make run``, an editable install), those top-level folders are
read directly and relative paths such as ``var`` are taken from the checkout; an installed
package takes them from the current working directory, never from site-packages.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent
# The folder name inside the installed package that holds the top-level data folders.
DATA = PACKAGE / "_data"


def from_checkout() -> bool:
    """True when the package is the ``pbem/`` folder of a source checkout."""
    return (CHECKOUT / "pyproject.toml").is_file() and not DATA.is_dir()


def data_dir(name: str) -> Path:
    """The shipped data folder ``name`` (``templates``, ``config``): the installed copy,
    or the checkout's folder when running from the source tree."""
    installed = DATA / name
    return installed if installed.is_dir() else CHECKOUT / name


def base_dir() -> Path:
    """The folder relative paths in the configuration (``paths.var``, a SQLite file) are
    taken from: the checkout, or the current working directory for an installed package."""
    return CHECKOUT if from_checkout() else Path.cwd()
