"""sacrebleu-style signature strings: ``metric|key:value|...|genevals:VERSION``, and the one rule for which scores
may be compared: those whose signatures agree (:func:`signature_difference`)."""
from __future__ import annotations

import re
from importlib import metadata
from typing import Any, Mapping

from genevals._version import __version__

#: genevals' own version in a part of a signature (the last part, or inside a nested one such as the cascade's
#: ``local:grounding;...;genevals:0.1.0``)
_GENEVALS = re.compile(r"(?:\A|;)genevals:[^;]*")
#: What a comparison that was not made says of it, before the settings that differ.
SIGNATURES_DIFFER = "signatures differ"


def package_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "none"


def make_signature(metric: str, **settings: object) -> str:
    """Join a metric name and its settings into a stable string; genevals' version always comes last."""
    parts = [metric]
    for key, value in settings.items():
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        parts.append(f"{key}:{value}")
    parts.append(f"genevals:{__version__}")
    return "|".join(parts)


def _parts(signature: str) -> dict[str, str]:
    """A signature's parts by key (the text before the first ``:``; the metric's name is its own key), without
    genevals' version."""
    kept = (_GENEVALS.sub("", part) for part in signature.split("|"))
    return {part.partition(":")[0]: part for part in kept if part}


def signature_difference(a: Any, b: Any) -> str | None:
    """Why scores made under signatures ``a`` and ``b`` may not be compared, as "signatures differ (lang:auto vs
    lang:en)" (each part that differs, ``a``'s first; a part only one side has is set against "none"); None when
    they may: equal once genevals' own version is left out, or either unknown (a run folder or history row with
    no signature for the metric: nothing to tell them apart by).

    genevals' version alone is no difference: a change of a metric's arithmetic is named by a setting of its own
    in its signature (``rouge2_one_token:identical=1``), while every release bumps the version. The versions of
    the libraries that compute a metric (``rouge-score:0.1.2``, ``runtime:onnxruntime==1.32.0``) are part of
    what computed it, and do differ."""
    if not isinstance(a, str) or not isinstance(b, str) or not a or not b:
        return None
    pa, pb = _parts(a), _parts(b)
    if pa == pb:
        return None
    keys = list(dict.fromkeys([*pa, *pb]))
    shown = [f"{pa.get(k, 'none')} vs {pb.get(k, 'none')}" for k in keys if pa.get(k) != pb.get(k)]
    return f"{SIGNATURES_DIFFER} ({', '.join(shown)})"


def signature_of(output: str, signatures: Any, families: Mapping[str, Any] | None = None) -> str | None:
    """The signature an output was scored under: ``signatures`` (summary.json's, keyed by metric family) of
    the output's family (``families[output]``; the output's own name when it names no family), or None."""
    if not isinstance(signatures, Mapping):
        return None
    family = (families or {}).get(output)
    found = signatures.get(family if isinstance(family, str) else output)
    return found if isinstance(found, str) else None
