"""The package's version, in a module of its own so that front ends read it without
importing the package root (``deepresearch/__init__.py``, the library's face)."""

__version__: str = "0.1.0"
