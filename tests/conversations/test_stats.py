"""Statistics by conversation (issue 38): turn-level means with intervals from a cluster bootstrap over
conversations, coverage in turns and conversations, and the same summary from every engine."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conversations import forms

from genevals.stats import bootstrap_ci
from genevals.stats.cluster import cluster_bootstrap_ci, clusters_of, paired_clustered
from genevals.output import runfolder


def correlated(seed=1, k=40):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 12, size=k)
    quality = rng.beta(3, 2, size=k)
    values = np.repeat(quality, sizes) + rng.normal(0, 0.05, sizes.sum())
    return values, np.repeat(np.arange(k), sizes).astype(float)


def test_correlated_turns_widen_the_interval():
    values, codes = correlated()
    naive, cluster = bootstrap_ci(values), cluster_bootstrap_ci(values, codes)
    assert cluster[1] - cluster[0] > 2 * (naive[1] - naive[0])
    assert cluster[0] < values.mean() < cluster[1]


def test_one_turn_per_conversation_is_the_plain_bootstrap_in_distribution():
    rng = np.random.default_rng(3)
    values = rng.random(400)
    naive, cluster = bootstrap_ci(values), cluster_bootstrap_ci(values, np.arange(400.0))
    assert abs((cluster[1] - cluster[0]) / (naive[1] - naive[0]) - 1) < 0.1


def test_the_interval_does_not_depend_on_order_or_codes():
    values, codes = correlated()
    order = np.random.default_rng(5).permutation(values.size)
    renamed = codes * 7919 + 3
    assert cluster_bootstrap_ci(values, codes) == cluster_bootstrap_ci(values[order], renamed[order])
    sums, counts = clusters_of([1.0, 2.0, 3.0], [5.0, 5.0, 1.0])
    assert sums.tolist() == [3.0, 3.0] and counts.tolist() == [1.0, 2.0]


def test_paired_comparison_pairs_conversations():
    a = {f"c{c}:{t}": 0.5 + 0.1 * (c % 3) for c in range(10) for t in range(5)}
    b = {k: v - 0.05 for k, v in a.items()}
    found = paired_clustered("m", "A", a, "B", b, {k: k.split(":")[0] for k in a})
    assert found.n_pairs == 10 and found.mean_difference == pytest.approx(0.05)
    assert found.significant == (found.ci_low > 0 or found.ci_high < 0)


def genevals(*args):
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300)


def summary(tmp_path, name, data, *extra):
    done = genevals("run", str(data), "-o", str(tmp_path / name), "-q", "-m", "token_f1,rouge", "--no-history",
                    *extra)
    assert done.returncode == 0, done.stderr
    return json.loads((tmp_path / name / "summary.json").read_text())["systems"]


def test_a_run_summarises_by_conversation_in_every_engine(tmp_path):
    """Two conversations and a single answer in one file: 6 samples, 3 clusters (the single answer is its own),
    2 conversations with a scored turn; the worker engine (the
    conversation turns split across processes) gives the same summary as the local one."""
    rows = [json.loads(line) for line in forms.native(tmp_path / "c.jsonl").read_text().splitlines()]
    rows.append({"id": "single", "question": "q", "answer": "a b", "references": ["a b c"]})
    data = forms.write_jsonl(tmp_path / "in.jsonl", rows)
    local = summary(tmp_path, "local", data)
    f1 = local["default"]["token_f1"]
    assert (f1["scored"], f1["total"], f1["conversations"], f1["conversations_total"]) == (5, 6, 2, 2)
    assert f1["ci_method"] == "cluster bootstrap over conversations"
    assert summary(tmp_path, "workers", data, "--workers", "2") == local


def test_a_run_without_conversations_keeps_its_summary(tmp_path):
    data = forms.write_jsonl(tmp_path / "in.jsonl", [{"id": str(i), "answer": f"a {i}", "references": [f"a {i} b"]}
                                                     for i in range(8)])
    f1 = summary(tmp_path, "out", data)["default"]["token_f1"]
    assert "conversations" not in f1 and "ci_method" not in f1


def test_two_systems_are_compared_by_conversation(tmp_path):
    """Two systems answering the same two conversations: the comparison pairs conversations (n_pairs 2, not the 5
    turns) and says so."""
    rows = []
    for system, worse in (("A", False), ("B", True)):
        for line in forms.native(tmp_path / "c.jsonl").read_text().splitlines():
            row = dict(json.loads(line), system=system)
            for turn in row["turns"]:
                if worse and turn["role"] == "assistant":
                    turn["content"] = turn["content"].split()[0] + " nothing"
            rows.append(row)
    data = forms.write_jsonl(tmp_path / "in.jsonl", rows)
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-q", "-m", "token_f1", "--no-history")
    assert done.returncode == 0, done.stderr
    [found] = json.loads((tmp_path / "out" / "summary.json").read_text())["comparisons"]
    assert found["n_pairs"] == 2 and found["mean_difference"] > 0
    assert found["test"].startswith("paired bootstrap over conversations")


def test_a_run_resumed_mid_conversation_summarises_alike(tmp_path):
    """--resume after a run cut inside a conversation (3 of 5 turns written): the turns still to score are scored
    with their history, and the summary is the uninterrupted run's."""
    data = forms.native(tmp_path / "in.jsonl")
    whole = summary(tmp_path, "out", data)
    results = tmp_path / "out" / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:1]))  # c1's line: its 3 turns
    assert summary(tmp_path, "out", data, "--resume") == whole
    lines = [row for _, row in runfolder.iter_rows(results)]
    assert len(lines) == 5 and next(r for r in lines if r["id"] == "c2:2")["history"][0]["content"] == \
        "What is polonium?"


def test_the_terminal_says_the_means_cover_conversations(tmp_path):
    """The table's first line names the conversations the CIs resample, beside the turn count."""
    data = forms.native(tmp_path / "c.jsonl")
    done = genevals("run", str(data), "-o", str(tmp_path / "out"), "-m", "token_f1", "--no-history")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("5 samples (2 conversations, CIs by conversation), 1 system(s)")
