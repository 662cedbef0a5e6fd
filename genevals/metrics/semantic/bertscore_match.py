"""BERTScore's matching step: idf weights and greedy cosine matching of embedded texts.

The numbers are bert-score's own (``bert_score.utils.greedy_cos_idf`` and the idf formula of ``get_idf_dict``,
idf(t) = log((N + 1) / (df(t) + 1)), with [CLS] and [SEP] weighted 0 when idf is off); this module feeds them
texts already embedded once by :class:`~genevals.metrics.semantic.bertscore_embed.Embedder`.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from contextlib import nullcontext
from math import log
from typing import Sequence

from genevals.metrics.semantic.bertscore_model import one_torch_thread


class IdfCounter:
    """bert-score's ``get_idf_dict``, streamed: documents are counted one at a time, memory stays flat."""

    def __init__(self) -> None:
        self.counts: Counter = Counter()
        self.n_docs = 0

    def add(self, ids: Sequence[int]) -> None:
        self.counts.update(set(ids))
        self.n_docs += 1

    def idf_dict(self) -> defaultdict:
        n = self.n_docs
        idf = defaultdict(lambda: log((n + 1) / 1))
        idf.update({idx: log((n + 1) / (c + 1)) for idx, c in self.counts.items()})
        return idf


def plain_idf_dict(tokenizer) -> defaultdict:
    """bert-score's weights without idf: 1 for every token, 0 for [CLS] and [SEP]."""
    idf = defaultdict(lambda: 1.0)
    idf[tokenizer.sep_token_id] = 0
    idf[tokenizer.cls_token_id] = 0
    return idf


def greedy_scores(pairs: Sequence[tuple[tuple, tuple]], idf_dict, device: str, batch_size: int = 64):
    """P, R, F (float32 tensor [n, 3], CPU) for (candidate, reference) items, each (ids, embedding).

    bert-score's ``bert_cos_score_idf`` matching step: pad with pad_sequence (value 2.0), idf weights from
    ``idf_dict``, ``greedy_cos_idf``. Pairs are batched by length to keep padding small.
    """
    import torch
    from bert_score.utils import greedy_cos_idf
    from torch.nn.utils.rnn import pad_sequence

    order = sorted(range(len(pairs)), key=lambda j: (len(pairs[j][0][0]), len(pairs[j][1][0])), reverse=True)
    out = torch.zeros((len(pairs), 3), dtype=torch.float32)

    def stats(items):
        embs = [e.to(device) for _, e in items]
        idfs = [torch.tensor([idf_dict[t] for t in ids], dtype=torch.float, device=device) for ids, _ in items]
        lens = torch.tensor([e.size(0) for e in embs], dtype=torch.long)
        emb_pad = pad_sequence(embs, batch_first=True, padding_value=2.0)
        idf_pad = pad_sequence(idfs, batch_first=True)
        mask = (torch.arange(int(lens.max())).expand(len(lens), -1) < lens.unsqueeze(1)).to(device)
        return emb_pad, mask, idf_pad

    with torch.inference_mode(), one_torch_thread() if device == "cpu" else nullcontext():
        for start in range(0, len(order), batch_size):
            chunk = order[start:start + batch_size]
            ref_stats = stats([pairs[j][1] for j in chunk])
            hyp_stats = stats([pairs[j][0] for j in chunk])
            p, r, f = greedy_cos_idf(*ref_stats, *hyp_stats)
            out[torch.tensor(chunk)] = torch.stack((p, r, f), dim=-1).float().cpu()
    return out
