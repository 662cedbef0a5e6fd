"""Rank metrics of the retrieved contexts: the formulas (ranking), their column-wise form for whole batches
(ranking_columns) and the metric family that builds rankings from samples (retrieval)."""
