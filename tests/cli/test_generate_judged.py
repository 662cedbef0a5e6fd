"""``genevals generate`` with a judge, as a user runs it: a real process against an OpenAI-compatible server on
127.0.0.1 that writes the items (support.generation_server) and answers the gates' prompts from a table of facts
(support.gate_judge). Kept items went through every judge gate (none ``not_checked``); a multi-hop item that one
of its chunks answers alone is rejected ``not_multihop`` with the reason, and the set is "made 0 of N", exit 1;
a re-run is answered from the judge cache, byte for byte, with no request."""
from __future__ import annotations

import json

import pytest
from support.cli import genevals, write_jsonl
from support.gate_judge import GateJudge
from support.generate_corpus import Server, corpus, facts

@pytest.fixture
def setup(tmp_path):
    rows = corpus()
    docs = write_jsonl(tmp_path / "docs.jsonl", rows)
    gate_judge = GateJudge(facts(rows))
    with Server(gate_judge) as server:
        yield docs, server, gate_judge


def _run(docs, server, out, mix, n, cache):
    return genevals("generate", docs, "--out", out, "-n", n, "--types", mix, "--no-embeddings",
                    "--judge-base-url", server.base_url, "--judge-model", "judge", "--judge-cache", cache)


def test_kept_items_went_through_every_judge_gate_and_a_rerun_is_cached(setup, tmp_path):
    docs, server, gate_judge = setup
    mix = tmp_path / "mix.toml"
    mix.write_text("[types]\nfact = 1.0\n", encoding="utf-8")
    done = _run(docs, server, tmp_path / "one", mix, 3, tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "one" / "testset.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3
    for row in rows:
        meta = row["metadata"]
        assert meta["type"] == "fact"
        assert set(meta["gates"].values()) == {"passed"}, meta["gates"]
        for gate in ("reference_not_supported", "unanswerable_from_source", "answerable_without_context"):
            assert meta["gates"][gate] == "passed"
        assert meta["provenance"]["prompt_hash"]
        assert row["references"][0] in meta["reference_contexts"][0]["text"]
    assert {"gate_supported", "gate_solve", "gate_closed_book"} <= set(gate_judge.asked)
    asked = server.total
    again = _run(docs, server, tmp_path / "two", mix, 3, tmp_path / "cache")
    assert again.returncode == 0, again.stderr
    assert server.total == asked  # every generation and gate call answered by the cache
    for name in ("testset.jsonl", "qrels.txt", "rejected.jsonl"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_a_multi_hop_item_one_chunk_answers_is_rejected_with_its_reason(setup, tmp_path):
    docs, server, gate_judge = setup
    mix = tmp_path / "mix.toml"
    mix.write_text("[types]\nmulti_hop = 1.0\n", encoding="utf-8")
    out = tmp_path / "out"
    done = _run(docs, server, out, mix, 2, tmp_path / "cache")
    assert done.returncode == 1, done.stderr
    assert "made 0 of 2 items" in done.stderr and "not_multihop" in done.stderr
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rejected and {r["rejection"] for r in rejected} == {"not_multihop"}, [r["rejection"] for r in rejected]
    assert all(r["gate_reasons"]["not_multihop"] for r in rejected)
    assert "gate_each" in gate_judge.asked
    assert (out / "testset.jsonl").read_text(encoding="utf-8") == ""
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    assert card["contract"] == {"kept": 0, "requested": 2, "met": False}
    assert card["rejections"] == {"not_multihop": len(rejected)} and "one chunk" in card["gate_meanings"]["not_multihop"]
    assert card["examples"]["rejected"][0]["reason"] == rejected[0]["gate_reasons"]["not_multihop"][:300] + (
        "..." if len(rejected[0]["gate_reasons"]["not_multihop"]) > 300 else "")
    assert card["cost_per_kept_item"]["per_kept_item"] == {"status": "not_measured", "reason": "no kept item"}
    assert (out / "report.html").is_file()


def test_the_cards_cost_per_kept_item_counts_the_generators_and_the_gates_calls(setup, tmp_path):
    """The card's cost against the server's own counts: the generation requests and the gate requests it received,
    the prompt tokens it reported (its len(content) // 4 rule), the generator's completion tokens (the items'
    provenance), dollars from the price table, each over K."""
    docs, server, _ = setup
    mix = tmp_path / "mix.toml"
    mix.write_text("[types]\nfact = 1.0\n", encoding="utf-8")
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"judge": {"input_per_1k": 2.0, "output_per_1k": 10.0}}), encoding="utf-8")
    out = tmp_path / "priced"
    done = genevals("generate", docs, "--out", out, "-n", 3, "--types", mix, "--no-embeddings",
                    "--judge-base-url", server.base_url, "--judge-model", "judge", "--judge-prices", prices,
                    "--judge-cache", tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    card = json.loads((out / "card.json").read_text(encoding="utf-8"))
    made = [json.loads(line) for name in ("testset.jsonl", "rejected.jsonl")
            for line in (out / name).read_text(encoding="utf-8").splitlines()]
    generations = server.generations()
    probe = [r["body"] for r in server.requests if r["body"]["max_tokens"] == 1]  # the preflight: not counted
    gate_bodies = [r["body"] for r in server.requests if r["body"] not in generations and r["body"] not in probe]
    assert len(generations) == 3 and len(probe) == 1 and len(gate_bodies) == server.total - 4 and gate_bodies
    prompt = sum(len(b["messages"][0]["content"]) // 4 for b in generations)
    gate_prompt = sum(len(b["messages"][0]["content"]) // 4 for b in gate_bodies)
    completion = sum(r.get("metadata", r)["provenance"]["completion_tokens"] for r in made)
    cost = card["cost_per_kept_item"]

    def dollars(p: int, c: int) -> float:
        return p / 1000 * 2.0 + c / 1000 * 10.0

    assert cost["generator"] == {"requests": 3, "cached_requests": 0, "prompt_tokens": prompt,
                                 "completion_tokens": completion, "cost_usd": pytest.approx(dollars(prompt, completion))}
    gates = cost["gates"]
    assert gates["requests"] == len(gate_bodies) and gates["cached_requests"] == 0
    assert gates["prompt_tokens"] == gate_prompt and gates["completion_tokens"] > 0
    assert gates["cost_usd"] == pytest.approx(dollars(gate_prompt, gates["completion_tokens"]))
    total = cost["total"]
    assert total["requests"] == server.total - 1 and total["prompt_tokens"] == prompt + gate_prompt
    assert total["cost_usd"] == pytest.approx(dollars(prompt + gate_prompt, completion + gates["completion_tokens"]))
    per = cost["per_kept_item"]
    assert per["n"] == 3 and per["requests"] == pytest.approx((server.total - 1) / 3)
    assert per["prompt_tokens"] == pytest.approx((prompt + gate_prompt) / 3)
    assert per["cost_usd"] == pytest.approx(total["cost_usd"] / 3)
    assert card["contract"] == {"kept": 3, "requested": 3, "met": True} and (out / "report.html").is_file()


def test_a_jury_writes_with_its_first_judge_and_checks_with_its_second(tmp_path):
    rows = corpus()
    docs = write_jsonl(tmp_path / "docs.jsonl", rows)
    gate_judge = GateJudge(facts(rows))
    mix = tmp_path / "mix.toml"
    mix.write_text("[types]\nfact = 1.0\n", encoding="utf-8")
    with Server(GateJudge({})) as writer, Server(gate_judge) as checker:
        jury = tmp_path / "jury.toml"
        jury.write_text(f'[[judge]]\nname = "writer"\nbase_url = "{writer.base_url}"\nmodel = "judge"\ncache = false\n\n'
                        f'[[judge]]\nname = "checker"\nbase_url = "{checker.base_url}"\nmodel = "judge"\n'
                        "cache = false\n", encoding="utf-8")
        done = genevals("generate", docs, "--out", tmp_path / "out", "-n", 2, "--types", mix, "--no-embeddings",
                        "--jury", jury)
        assert done.returncode == 0, done.stderr
        assert writer.generations() and not checker.generations()
        assert not writer.gates.asked and gate_judge.asked, "the writer was asked to check, or the checker was not"


def test_an_earlier_sets_questions_are_duplicates(tmp_path):
    rows = corpus()
    docs = write_jsonl(tmp_path / "docs.jsonl", rows)
    first = genevals("generate", docs, "--out", tmp_path / "one", "-n", 6, "--no-embeddings")
    assert first.returncode == 0, first.stderr
    again = genevals("generate", docs, "--out", tmp_path / "two", "-n", 6, "--no-embeddings", "--max-attempts", 6,
                     "--earlier", tmp_path / "one" / "testset.jsonl")
    assert again.returncode == 1, again.stderr  # the same seed asks the same items: every one is an earlier set's
    rejected = [json.loads(line) for line in (tmp_path / "two" / "rejected.jsonl").read_text().splitlines()]
    assert len(rejected) == 6 and {r["rejection"] for r in rejected} == {"duplicate"}
    assert all("earlier set" in r["gate_reasons"]["duplicate"] for r in rejected)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "question": "fine?"}\n{"id": "b"}\n', encoding="utf-8")
    refused = genevals("generate", docs, "--out", tmp_path / "three", "-n", 2, "--earlier", bad)
    assert refused.returncode == 2 and f"{bad}:2: field 'question'" in refused.stderr, refused.stderr
