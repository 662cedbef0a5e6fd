"""Human review of a run's hallucination verdicts: reviewers' decisions stored beside the run.

* :mod:`~genevals.review.records`: one decision as a checked value, and which decisions are current;
* :mod:`~genevals.review.store`: the decisions, in SQLite in the run folder (``review.sqlite``), read without
  trusting the file (bad rows skipped and counted, a file that is no store refused naming it);
* :mod:`~genevals.review.claims`: the run's samples and claims as the review sees them (digests, spans);
* :mod:`~genevals.review.tally`: fresh and stale decisions, progress, agreement between reviewers, the judge's
  precision on reviewed claims;
* :mod:`~genevals.review.citations`: decisions on the citation check's verdicts (stale, tally, label rows);
* :mod:`~genevals.review.export`: reviewed answers as labelled rows for ``genevals validate``;
* :mod:`~genevals.review.requests`: a request's body as a decision, each field's type checked (400 naming it);
* :mod:`~genevals.review.queue`: ``--queue N``, the answers to review drawn by stratum with their inclusion
  probabilities, so the labels measure the judge on the whole run;
* :mod:`~genevals.review.items` and :mod:`~genevals.review.page`: the item-by-item page of a queued or
  ``--blind`` review, and which verdicts a reviewer may see;
* :mod:`~genevals.review.app`: the served run (page, samples, decisions);
* :mod:`~genevals.review.server`: ``genevals review RUN_DIR``, the report served with writes enabled;
* :mod:`~genevals.review.testset`, :mod:`~genevals.review.set_review` and :mod:`~genevals.review.set_app`:
  ``genevals review SET_DIR``, a generated test set's items marked valid / invalid / unsure on the same server and
  store, a seeded uniform queue, and the valid-item rate with its Wilson interval in the set's card.json.

It reads run folders and renders through :mod:`genevals.report`; it never imports scoring code.
"""
