"""genevals: scores for RAG answers, and where they make things up."""
__version__ = "0.1.0"
