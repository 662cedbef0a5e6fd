"""``genevals curate``: a test set made from scored run folders and their reviews.

Run folders (``genevals run``'s, or a watcher's windows) are read through :mod:`genevals.output.runfolder`, their
reviewers' decisions through :mod:`genevals.review` (the store, the claims, the tally's consensus). Rules choose
samples (:mod:`~genevals.curate.rules`: ``flagged``, ``disputed``, ``low:METRIC<X``, ``sample:N``, the last a
seeded sample stratified by system and value band); the chosen are de-duplicated by content hash and by
near-duplicate (:mod:`~genevals.curate.dedup`); a reviewer's correction becomes a row's reference; the rows go to
``testset.jsonl`` in ``genevals generate``'s format with their provenance, and the counts to ``card.json``
(:mod:`~genevals.curate.testset`). :mod:`~genevals.curate.candidates` reads the inputs (run folders, or trace exports through :mod:`genevals.input.traces`); :mod:`~genevals.curate.
config` holds the one frozen configuration and the rule grammar.
"""
