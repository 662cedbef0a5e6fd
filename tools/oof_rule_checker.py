"""Out-of-fold predictions of the rule checker exactly as another checkout has it (e.g. main before the learned
detector), refitted by that checkout's calibrate_grounding.fit on the same grouped folds (seed 0), for
``train_grounding.py --extra-oof checker_main=OUT``.

    python tools/oof_rule_checker.py /work/main ../shared/datasets/ragtruth_dev.jsonl OUT.json [--embeddings PKL]

``--embeddings`` preloads a pickle of {text: vector} (train_grounding's cache) so the shared texts are not encoded
again. Run it with that checkout first on sys.path (this script inserts it).
"""
from __future__ import annotations

import importlib.util
import json
import pickle
import sys

import numpy as np


def main(argv: list[str]) -> int:
    checkout, data, out = argv[:3]
    sys.path.insert(0, checkout)
    from genevals.grounding import checker

    if not checker.__file__.startswith(checkout):
        raise SystemExit(f"genevals imported from {checker.__file__}, not {checkout}")
    if "--embeddings" in argv:
        with open(argv[argv.index("--embeddings") + 1], "rb") as fh:
            checker._CACHE.update(pickle.load(fh))
    spec = importlib.util.spec_from_file_location("cal", f"{checkout}/tools/calibrate_grounding.py")
    cal = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cal)
    with open(data, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    feats = checker.featurize([(r["response"], [r["context"]], r.get("question") or "") for r in rows])
    gold = np.array([bool(r["hallucinated"]) for r in rows])
    table = cal.Table(feats)
    oof = np.zeros(len(rows), bool)
    spans: list[list] = [[] for _ in rows]
    for test in cal.group_folds([str(r.get("source_id")) for r in rows], 5, 0):
        cfgs, _ = cal.fit(table, gold, np.setdiff1d(np.arange(len(rows)), test))
        pred = table.predict(cfgs)
        oof[test] = pred[test]
        for i in test:
            if pred[i]:
                spans[i] = [(c.start, c.end) for c, d in zip(feats[i].claims, checker.decide_all(feats[i], cfgs))
                            if d.label != "supported"]
    print("rule checker CV F1", cal.f1(oof, gold))
    with open(out, "w", encoding="utf-8") as fh:
        json.dump({"pred": oof.tolist(), "spans": spans}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
