"""Metric families: each module is one family (see genevals.registry)."""
