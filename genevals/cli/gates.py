"""The thresholds of ``genevals run`` and ``genevals report``, checked against what the metrics declare before
anything is scored or written (:func:`genevals.thresholds.validate`)."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from genevals import registry, runfolder, thresholds


def check_run(given: Sequence[thresholds.Threshold], selected: Sequence[registry.Selected]) -> None:
    """ThresholdError unless every threshold names an output the selected metrics write, with the flag its
    direction takes and a value inside its range."""
    if given:
        thresholds.validate(given, registry.declarations(selected), registry.declaration_of,
                            registry.known_names())


def check_report(given: Sequence[thresholds.Threshold], run_dirs: Sequence[Path]) -> None:
    """The same for ``genevals report``: the outputs the runs' summaries hold, declared by their outputs.json
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
