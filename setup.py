"""Everything about the package is in pyproject.toml except one line it cannot say: the judge prompts live in
prompts/ at the repository root (one home, no symlinks) and install as the genevals.prompts package, and
pyproject's package discovery only finds packages inside genevals/. package-dir maps the package (pyproject)."""
from setuptools import find_namespace_packages, setup

setup(packages=[*find_namespace_packages(include=["genevals*"]), "genevals.prompts"])
