"""genevals' version, in one place: the package, its signatures and pyproject.toml read it from here."""
__version__ = "0.1.0"
