"""The thresholds of ``genevals report``, checked against what the run folders' metrics declare before anything is
written (:func:`genevals.output.thresholds.validate`); ``genevals run``'s are the lifecycle's
(:mod:`genevals.lifecycle.gates`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from genevals import registry
from genevals.output import runfolder, thresholds


def check_report(given: Sequence[thresholds.Threshold], run_dirs: Sequence[Path]) -> None:
    """ThresholdError unless every threshold names an output the runs' summaries hold, declared by their outputs.json
    (or by the metrics installed now, for an older run folder)."""
    if not given:
        return
    computed: dict[str, Mapping[str, Any] | None] = {}
    for run_dir in run_dirs:
        if not (Path(run_dir) / runfolder.SUMMARY_FILE).is_file():
            continue  # the report itself says what is missing
        declared = runfolder.read_outputs(run_dir)
        systems = runfolder.read_summary(run_dir).get("systems") or {}
        for metrics in systems.values() if isinstance(systems, Mapping) else ():
            for name in metrics if isinstance(metrics, Mapping) else ():
                decl = declared.get(name) if isinstance(declared, Mapping) else None
                if computed.get(name) is None:
                    computed[name] = decl if isinstance(decl, Mapping) else registry.declaration_of(name)
    thresholds.validate(given, computed, registry.declaration_of, registry.known_names())
