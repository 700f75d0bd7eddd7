"""The package's version, from its metadata: pyproject.toml is the one place it is set."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("clusterscore")
except PackageNotFoundError:  # pragma: no cover (run from a source tree, not installed)
    __version__ = "0+unknown"
