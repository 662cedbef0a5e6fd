"""token_f1 and exact_match in MLQA's languages, through the real command line: MLQA's official values
(``mlqa_evaluation_v1.py`` on XQuAD pairs) exactly, for every pair, with ``--language L`` and with a row's
``language`` field; a language whose segmenter is not installed gets a status naming the install, never a number."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support import mlqa

from genevals.language.tokens import normalize

WITHOUT_LANGUAGES = Path(__file__).resolve().parents[2] / "support" / "without_languages"


def _by_language(pairs: list[dict]) -> dict[str, list[dict]]:
    return {lang: [p for p in pairs if p["lang"] == lang] for lang in mlqa.LANGUAGES}


def test_golden_subset_is_all_there() -> None:
    pairs = mlqa.load(mlqa.SUBSET)
    counts = {lang: len(group) for lang, group in _by_language(pairs).items()}
    assert all(n >= 30 for n in counts.values()) and sum(counts.values()) == len(pairs), counts


def test_golden_subset_exact_with_language_flag(tmp_path) -> None:
    for lang, pairs in _by_language(mlqa.load(mlqa.SUBSET)).items():
        got = mlqa.run(tmp_path, pairs, "--language", lang, "--token-norm", "mlqa", name=lang)
        missed = [(p["prediction"], p["gold"]) for p, m in zip(pairs, got) if not mlqa.exact(p, m)]
        assert not missed, (lang, missed)
        details = got[0]["token_f1"]["details"]
        assert details["language"] == lang and details["language_source"] == "run"
        assert details["normalization"] == "mlqa-v1"


def test_english_squad_rule_differs_from_mlqa_only_on_unicode_punctuation(tmp_path) -> None:
    """SQuAD v1.1 keeps Unicode punctuation (``‘often``, ``—``); MLQA's script deletes it. With ``--token-norm
    squad`` exactly the pairs whose texts the two rules normalise differently miss MLQA's value; by default
    (MLQA's rule) none does."""
    pairs = _by_language(mlqa.load(mlqa.SUBSET))["en"]
    differ = [normalize(p["prediction"], "en", "squad") != normalize(p["prediction"], "en", "mlqa")
              or normalize(p["gold"], "en", "squad") != normalize(p["gold"], "en", "mlqa") for p in pairs]
    assert sum(differ) >= 3
    default = mlqa.run(tmp_path, pairs, "--language", "en", name="default")
    assert all(mlqa.exact(p, m) for p, m in zip(pairs, default))
    assert default[0]["token_f1"]["details"]["normalization"] == "mlqa-v1"
    got = mlqa.run(tmp_path, pairs, "--language", "en", "--token-norm", "squad")
    assert {i for i, (p, m) in enumerate(zip(pairs, got)) if not mlqa.exact(p, m)} <= \
        {i for i, d in enumerate(differ) if d}
    assert sum(not mlqa.exact(p, m) for p, m in zip(pairs, got)) >= 3  # the rules do differ on these
    assert got[0]["token_f1"]["details"]["normalization"] == "squad-v1.1"


def test_golden_subset_exact_with_a_language_field_per_row(tmp_path) -> None:
    pairs = mlqa.load(mlqa.SUBSET)
    got = mlqa.run(tmp_path, pairs, "--token-norm", "mlqa", language_field=True)
    assert all(mlqa.exact(p, m) for p, m in zip(pairs, got))
    assert {m["exact_match"]["details"]["language_source"] for m in got} == {"row"}


def test_shared_vectors_exact_for_every_pair_with_language_flag(tmp_path) -> None:
    if not mlqa.SHARED.is_file():
        pytest.skip("../shared/vectors/multilingual is not present")
    pairs = mlqa.load(mlqa.SHARED)
    assert len(pairs) == 4424
    for lang, group in _by_language(pairs).items():
        got = mlqa.run(tmp_path, group, "--language", lang, "--token-norm", "mlqa", name=lang)
        missed = [(p["prediction"], p["gold"], p["f1"], m["token_f1"]) for p, m in zip(group, got)
                  if not mlqa.exact(p, m)]
        assert not missed, (lang, len(missed), missed[:3])


def test_signature_names_language_and_normalisation(tmp_path) -> None:
    pairs = _by_language(mlqa.load(mlqa.SUBSET))["zh"][:3]
    mlqa.run(tmp_path, pairs, "--language", "zh")
    manifest = json.loads((tmp_path / "pairs-out" / "manifest.json").read_text(encoding="utf-8"))
    signatures = json.dumps(manifest)
    assert "token_f1|norm:mlqa-v1+unicode-nfkc|seg:zh=mlqa-mixed" in signatures
    assert "|lang:zh|" in signatures


def test_missing_segmenter_gives_a_status_with_the_install_command(tmp_path) -> None:
    """In a process where the languages extra is not installed (hidden by tests/support/without_languages),
    Japanese, Korean and Thai rows get ``unsupported_language`` with ``pip install 'genevals[languages]'``, no
    value; the English and Chinese rows of the same run are scored."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(WITHOUT_LANGUAGES), *filter(None, [env.get("PYTHONPATH")])])
    probe = subprocess.run([sys.executable, "-c", "import MeCab"], check=False, capture_output=True, text=True, env=env)
    assert probe.returncode == 1 and "ModuleNotFoundError" in probe.stderr
    pairs = [{"lang": "ja", "prediction": "東京都に住んでいます", "gold": "東京都に住んでいます"},
             {"lang": "ko", "prediction": "서울에서 살아요", "gold": "서울에서 살아요"},
             {"lang": "th", "prediction": "ภาษาไทยง่ายนิดเดียว", "gold": "ภาษาไทยง่ายนิดเดียว"},
             {"lang": "en", "prediction": "the cat sat", "gold": "a cat sat"},
             {"lang": "zh", "prediction": "北京是首都", "gold": "首都北京"}]
    got = mlqa.run(tmp_path, pairs, language_field=True, metrics="token_f1,exact_match,rouge", env=env)
    for pair, metrics in zip(pairs[:3], got[:3]):
        for name in ("token_f1", "exact_match", "rouge1", "rouge2", "rougeL"):
            result = metrics[name]
            assert result["status"] == "unsupported_language" and result["value"] is None, (pair["lang"], name)
            assert "pip install 'genevals[languages]'" in result["reason"]
            assert result["details"]["language"] == pair["lang"]
    assert got[3]["token_f1"] == {**got[3]["token_f1"], "status": "ok", "value": 1.0}
    assert got[4]["token_f1"]["status"] == "ok" and got[4]["token_f1"]["value"] == (2 * (4 / 5) * 1.0) / ((4 / 5) + 1.0)  # 5 and 4 Han characters, 4 shared


def test_norm_setting_is_checked(tmp_path) -> None:
    from genevals.metrics.lexical.squad import TokenF1

    # the one checker's message, as the API and --set give it
    with pytest.raises(ValueError, match=r"norm: unknown value 'MLQA' \(did you mean 'mlqa'\?\) \(one of mlqa, squad\)"):
        TokenF1(norm="MLQA")
    rows = tmp_path / "one.jsonl"
    rows.write_text('{"answer": "x", "references": ["y"]}\n', encoding="utf-8")
    done = mlqa.genevals("run", str(rows), "-m", "token_f1", "--token-norm", "nope", "-o", str(tmp_path / "o"))
    assert done.returncode == 2 and "--token-norm" in done.stderr and "Traceback" not in done.stderr
