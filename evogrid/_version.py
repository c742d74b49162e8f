"""The package version (its own module so any layer may import it)."""

__version__ = "0.1.0"
