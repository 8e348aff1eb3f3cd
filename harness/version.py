"""harness's version, in the one place the build (hatchling) also reads it.

It imports nothing, so any layer may ask for the version (trace exporters,
cassette metadata, ``harness --version``) without importing the package's
runtime through ``harness.__version__``.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
