"""``genevals watch``: live traces scored as they come (issue 50).

Spans arrive over OTLP/HTTP (:mod:`~genevals.watch.receiver`, bodies read by :mod:`~genevals.watch.otlp`), from a
followed file or a backfill file; each batch is committed to a SQLite queue under ``--out``
(:mod:`~genevals.watch.store`) before it is acknowledged. :mod:`~genevals.watch.loop` decides each trace once
(sampled by the hash of its id, filtered, capped, sharded), gathers the scored ones into windows, and runs each
window as one ordinary run folder ``DIR/windows/NNNN`` through :func:`genevals.evaluate`; every decision is one
line of ``DIR/decisions.jsonl`` (:mod:`~genevals.watch.decisions`). The options are one frozen
:class:`~genevals.watch.config.WatchConfig`.

Sampling, filters, alerts, the trend page and the followed file are W2's modules (sampling, filters, alerts,
trend, follow): pure pieces the loop wires in.
"""
