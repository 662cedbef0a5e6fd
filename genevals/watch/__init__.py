"""``genevals watch``: live traces scored as they come, one run folder per window.

- :mod:`~genevals.watch.config`: the one frozen configuration of every option,
- :mod:`~genevals.watch.otlp`: OTLP/HTTP bodies (protobuf, JSON, gzip) into span records,
- :mod:`~genevals.watch.store`: the durable SQLite (WAL) queue of spans, traces, sessions and decisions,
- :mod:`~genevals.watch.receiver`: the OTLP/HTTP server on 127.0.0.1,
- :mod:`~genevals.watch.loop`: ready traces and sessions into windows, each window one ``genevals`` run,
- :mod:`~genevals.watch.decisions`: the decision log, one line per received trace,
- :mod:`~genevals.watch.budget`: the per-window caps on judge calls and cost, each trace's estimate and its basis,
- :mod:`~genevals.watch.sampling`: the hash rule for sampling and shards (overload narrows the sample by it),
- :mod:`~genevals.watch.filters`: the ``--filter`` expressions over resource and root-span attributes,
- :mod:`~genevals.watch.alerts`: ``--alert`` rules checked on a window's summary, delivered and recorded,
- :mod:`~genevals.watch.trend`: the trend page over the windows (means, intervals, drift, flagged share),
- :mod:`~genevals.watch.follow`: ``--follow FILE``, a growing trace export read as ``tail -F`` reads it.
"""
