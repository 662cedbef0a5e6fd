"""Settings that more than one metric family declares, written once: the claim judges' (faithfulness, cascade,
and the triad's context_recall and answer_correctness split a text into claims). A family's own settings stay
beside its code; this module sits below the families (the layers contract), so each may take these."""
from __future__ import annotations

from genevals.settings import Setting

MAX_CLAIMS = Setting("max_claims", int, 12, "claims extracted per answer at most", minimum=1)
WORKED_EXAMPLE = Setting("worked_example", bool, None, "show the judge a worked example (default: for small models)")
#: the default is genevals.claims.locate.FUZZY_THRESHOLD (tests/settings check it), not imported: that module
#: loads rapidfuzz, which declaring a setting must not
FUZZY_THRESHOLD = Setting("fuzzy_threshold", float, 90.0,
                          "fuzzy match score (0-100) a quoted span needs to be found in the contexts",
                          minimum=0, maximum=100)
