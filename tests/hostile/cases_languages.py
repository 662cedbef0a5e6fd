"""Cases: languages (issue 35). Text in every script a user sends (mixed scripts, right-to-left with bidi controls,
combining marks, emoji and ZWJ sequences, zero-width characters, full-width forms, NFD, BOMs, very long words
in Han and Thai), through the lexical metrics, the offline models and the language settings: ``--language``
values, a row's ``language`` field of every type, ``--map language=COLUMN``, ``language=`` in the API.

Three kinds:

- argv cases the runner checks as any other (a bad ``--language`` or ``language`` field is refused, naming the
  option, or the file, line and field);
- *scored* cases, API cases whose expression runs ``genevals run`` in the case's process (:func:`cli`: exit 0
  or 1, no traceback, strict JSON) or ``genevals.evaluate`` (:func:`api`), then reads every result: a result
  with status ``ok`` and value 0 for an answer identical to its reference is a *silent zero* and fails the case
  (:func:`silent_zeros`), and summary.json's ``languages`` block must add up (:func:`block_problems`);
- the same for the models (grounding, the offline triad, ``citations_local``): any status, never a traceback.

Failed on c05abbe (the languages base, before issue 35's metrics), for the right reason (a silent zero: rouge
kept only ``[a-z0-9]``, so an identical answer in another script scored 0 with status ok): the ``text-`` cases of
the texts marked ``# main: silent zero`` in :data:`TEXTS`, and the runs that hold one of them (the ``setting-``
cases but de-for-de, vi-for-vi, auto-en-fallback, zh-for-en and th-for-mixed; all-texts-csv, row-languages-*,
nfd-answer-nfc-reference, api-all-texts-*, api-row-field-zh-hant): 43 cases. All pass since the per-language
metrics were merged (4f83cdc).
"""
from __future__ import annotations

import contextlib
import io
import json
import unicodedata
from pathlib import Path
from typing import Any

from hostile.cases import GOOD_ROWS, OK, REFUSED, Case, jsonl, line, run_case

CLS = "languages"
ME = '__import__("hostile.cases_languages", fromlist=["_"])'
LEX = "token_f1,exact_match,rouge,bleu"
#: the offline models (the triad is grounding and the two relevance models: one run each, a model load each)
MODELS = {"grounding": "grounding", "answer-relevance": "answer_relevance_local",
          "context-relevance": "context_relevance_local", "citations": "citations_local"}
#: outputs that must be 1.0 (or a status) for an answer identical to its reference; rouge2 only where the
#: answer has two tokens or more (rouge-score's bigram recall of a one-token text is 0 by its definition)
IDENTICAL_IS_ONE = ("exact_match", "token_f1", "rouge1", "rougeL", "bleu")
BIGRAMS = ("rouge2",)

ZWJ, ZWNJ, ZWSP, WJ = "\u200d", "\u200c", "\u200b", "\u2060"
RLO, LRO, PDF, RLI, LRI, PDI, RLM, LRM = "\u202e", "\u202d", "\u202c", "\u2067", "\u2066", "\u2069", "\u200f", "\u200e"
ZALGO = "".join(chr(c) for c in range(0x0300, 0x0336))  # 54 combining marks stacked on one letter

#: slug -> (text, its language or None when no one language owns it); main: silent zero marks the texts whose
#: identical answer scores rouge 0 with status ok on main (c05abbe)
TEXTS: dict[str, tuple[str, str | None]] = {
    "zh": ("巴黎是法国的首都和人口最多的城市。", "zh"),  # main: silent zero
    "zh-fullwidth-punct": ("巴黎，法国首都！（１９２０年）：人口约２１０万。", "zh"),  # main: silent zero
    "zh-traditional": ("臺北是中華民國的首都，位於臺灣北部。", "zh"),  # main: silent zero
    "ja": ("東京は日本の首都で、世界最大の都市圏です。", "ja"),  # main: silent zero
    "ko": ("서울은 대한민국의 수도이며 가장 큰 도시입니다.", "ko"),  # main: silent zero
    "th": ("กรุงเทพมหานครเป็นเมืองหลวงและนครที่มีประชากรมากที่สุดของประเทศไทย", "th"),  # main: silent zero
    "ar": ("باريس هي عاصمة فرنسا وأكبر مدنها من حيث عدد السكان.", "ar"),  # main: silent zero
    "ar-harakat": ("بَارِيسُ هِيَ عَاصِمَةُ فَرَنْسَا", "ar"),  # main: silent zero
    "ar-tatweel-rlm": (f"{RLM}بـــاريس{RLM} هي العاصمة{LRM} 2024", "ar"),  # main: silent zero
    "he": ("פריז היא בירת צרפת והעיר הגדולה ביותר בה.", "he"),  # main: silent zero
    "fa": ("پاریس پایتخت فرانسه و بزرگ‌ترین شهر آن است.", "fa"),  # main: silent zero (ZWNJ inside a word)
    "hi": ("पेरिस फ्रांस की राजधानी और सबसे बड़ा शहर है।", "hi"),  # main: silent zero
    "hi-nukta-nfd": (unicodedata.normalize("NFD", "ज़िंदगी और फ़िल्म क़िस्सा"), "hi"),  # main: silent zero
    "bn": ("ঢাকা বাংলাদেশের রাজধানী ও বৃহত্তম শহর।", "bn"),  # main: silent zero
    "ru": ("Москва — столица России и крупнейший город страны.", "ru"),  # main: silent zero
    "el": ("Η Αθήνα είναι η πρωτεύουσα της Ελλάδας.", "el"),  # main: silent zero
    "vi": ("Hà Nội là thủ đô của nước Cộng hòa Xã hội chủ nghĩa Việt Nam.", "vi"),
    "de-nfd": (unicodedata.normalize("NFD", "Die Straße führt über die Brücke nach Köln."), "de"),
    "es": ("El Museo del Prado está en Madrid, España.", "es"),
    "mixed-scripts": ("Paris（巴黎）は la capitale de la France، عاصمة فرنسا، पेरिस.", None),  # main: silent zero
    "mixed-in-one-word": ("Parisパリ巴黎باريسПариж", None),  # main: silent zero
    "bidi-override": (f"{RLO}Paris is the capital of France{PDF} and {LRO}باريس{PDF}", None),
    "bidi-isolates": (f"The city {RLI}باريس{PDI} is {LRI}Paris{PDI} in English", "en"),
    "zalgo": ("".join(ch + ZALGO[: 8 + i % 20] for i, ch in enumerate("Paris is the capital")), None),
    "devanagari-stacked": ("क्षत्रिय" + "\u094d\u093c" * 30 + " राजधानी", "hi"),  # main: silent zero
    "emoji": ("Paris 🇫🇷 is the capital of France 🏛️ and a big city 🌆", "en"),
    "emoji-zwj": (f"The family 👩{ZWJ}👩{ZWJ}👧{ZWJ}👦 met the coder 👨🏽{ZWJ}💻 in Paris", "en"),
    "emoji-only-with-digit": ("🇫🇷 1️⃣ 👩‍💻 🏳️‍🌈", None),
    "zero-width-inside-words": (f"Pa{ZWSP}ris is{ZWNJ} the{ZWJ} cap{WJ}ital of France", "en"),
    "fullwidth-latin": ("ＰＡＲＩＳ　ＩＳ　ＴＨＥ　ＣＡＰＩＴＡＬ　ＯＦ　ＦＲＡＮＣＥ！　１２３", None),  # main: silent zero
    "fullwidth-digits-zh": ("１９４９年１０月１日，中华人民共和国成立。", "zh"),  # main: silent zero
    "bom-inside": ("\ufeffParis is the\ufeff capital of France.", "en"),
    "han-long-word": ("巴黎法国首都" * 3000, "zh"),  # main: silent zero (18,000 Han characters, no space)
    "thai-long-word": ("กรุงเทพมหานคร" * 1500, "th"),  # main: silent zero (19,500 Thai letters, no space)
    "latin-long-word": ("Donaudampfschifffahrtsgesellschaftskapitän" * 400, "de"),
}

#: slug -> (--language, texts): the run's language set explicitly, right and wrong
SETTINGS = {
    "zh-for-zh": ("zh", ("zh", "zh-fullwidth-punct", "han-long-word")),
    "zh-hant-for-zh": ("zh-Hant", ("zh-traditional",)),
    "ja-for-ja": ("ja", ("ja",)),
    "ko-for-ko": ("ko", ("ko",)),
    "th-for-th": ("th", ("th", "thai-long-word")),
    "ar-for-ar": ("ar", ("ar", "ar-harakat", "ar-tatweel-rlm")),
    "he-for-he": ("he", ("he",)),
    "hi-for-hi": ("hi", ("hi", "hi-nukta-nfd", "devanagari-stacked")),
    "de-for-de": ("de", ("de-nfd", "latin-long-word")),
    "vi-for-vi": ("vi", ("vi",)),
    "auto-zh-fallback": ("auto:zh", ("emoji-only-with-digit", "mixed-in-one-word")),
    "auto-en-fallback": ("auto:en", ("zalgo", "bidi-override")),
    # the wrong language: a user's mistake must still give 1.0 or a status, never 0 with status ok
    "en-for-zh": ("en", ("zh", "fullwidth-digits-zh")),
    "en-for-ar": ("en", ("ar",)),
    "zh-for-en": ("zh", ("emoji", "zero-width-inside-words")),
    "th-for-mixed": ("th", ("mixed-scripts",)),
    "ja-for-zh": ("ja", ("zh",)),
}

#: --language values: slug -> (value, expected)
LANGUAGE_OPTION = {
    "auto": ("auto", OK), "auto-upper-spaced": (" AUTO ", OK), "auto-fullwidth": ("ａｕｔｏ", OK),
    "auto-colon-de": ("auto:de", OK), "auto-colon-zh-hant": ("auto:zh-Hant", OK), "code-zh": ("zh", OK),
    "tag-zh-hant": ("zh-Hant", OK), "tag-pt-br-underscore": ("PT_br", OK), "code-fullwidth-zh": ("ｚｈ", OK),
    "withdrawn-iw": ("iw", OK),
    "bad-xx": ("xx", REFUSED), "bad-english": ("english", REFUSED), "bad-empty": ("", REFUSED),
    "bad-blank": ("   ", REFUSED), "bad-auto-colon": ("auto:", REFUSED), "bad-auto-colon-xx": ("auto:xx", REFUSED),
    "bad-auto-auto": ("auto:auto", REFUSED), "bad-1000-chars": ("e" * 1000, REFUSED),
    "bad-list": ("en,zh", REFUSED), "bad-iso639-2": ("eng", REFUSED), "bad-country-cn": ("cn", REFUSED),
    "bad-zero-width": (f"zh{ZWSP}", REFUSED), "bad-rlo": (f"{RLO}hz", REFUSED), "bad-emoji": ("🇨🇳", REFUSED),
    "bad-arabic-name": ("العربية", REFUSED), "bad-newline": ("zh\nen", REFUSED),
}

#: a row's language field, as JSON text: slug -> (literal, expected)
ROW_FIELD = {
    "code": ('"zh"', OK), "upper": ('"ZH"', OK), "tag-hant": ('"zh-Hant"', OK), "tag-pt-br": ('"PT_br"', OK),
    "fullwidth": ('"ｚｈ"', OK), "withdrawn-in": ('"in"', OK), "auto": ('"auto"', OK), "empty": ('""', OK),
    "blank": ('"  "', OK), "null": ("null", OK),
    "int": ("5", REFUSED), "float": ("1.5", REFUSED), "true": ("true", REFUSED), "list": ('["zh"]', REFUSED),
    "empty-list": ("[]", REFUSED), "object": ('{"code": "zh"}', REFUSED), "zz": ('"zz"', REFUSED),
    "xx": ('"xx"', REFUSED), "english": ('"english"', REFUSED), "auto-colon": ('"auto:de"', REFUSED),
    "1000-chars": ('"' + "z" * 1000 + '"', REFUSED), "zero-width": ('"zh\\u200b"', REFUSED),
    "lone-surrogate": ('"z\\ud800"', REFUSED), "huge-int": ("1" + "0" * 400, REFUSED),
}


def _row(text: str, n: int, **extra: Any) -> dict:
    return {"id": f"lang-{n}", "question": text[:300], "answer": text, "references": [text],
            "contexts": [{"id": "c1", "text": text}], **extra}


def _rows(*slugs: str) -> list[dict]:
    """Good row 1, a row per text (its answer its own reference), good row 3: English beside the hostile text."""
    return [dict(GOOD_ROWS[0]), *(_row(TEXTS[s][0], i) for i, s in enumerate(slugs)), dict(GOOD_ROWS[2])]


# ------------------------------------------------------------------ the checks of a scored run

def _tokens_at_least_two(text: str) -> bool:
    """Two tokens or more by any tokenizer's reading: two spaced words with a letter or digit, or two Han letters."""
    words = [w for w in text.split() if any(c.isalnum() for c in w)]
    han = sum(1 for c in text if "CJK UNIFIED" in unicodedata.name(c, ""))
    return len(words) >= 2 or han >= 2


def silent_zeros(records: list[dict]) -> list[str]:
    """Results (results.jsonl lines) with status ok and value 0 for an answer identical to one of its references
    that holds a letter or digit (a text of punctuation or emoji alone has no token in any scheme, and its 0 is
    the metric's definition)."""
    found = []
    for record in records:
        answer, refs = record.get("answer"), record.get("references") or []
        if answer not in refs or not any(c.isalnum() for c in answer):
            continue
        for name, result in (record.get("metrics") or {}).items():
            if name in IDENTICAL_IS_ONE or (name in BIGRAMS and _tokens_at_least_two(answer)):
                if result.get("status") == "ok" and result.get("value") == 0:
                    found.append(f"{record.get('id')}: {name} = 0 with status ok for an answer identical to its "
                                 f"reference ({answer[:40]!r})")
    return found


def block_problems(summary: dict, n_samples: int) -> list[str]:
    """summary.json's ``languages`` block, when there is one, adds up."""
    block = summary.get("languages")
    if block is None:
        return []
    problems = []
    by_language = block.get("by_language") or {}
    total = sum(c["samples"] for c in by_language.values())
    if total != block.get("samples") or total > n_samples:
        problems.append(f"languages: {total} samples by language, {block.get('samples')} said, {n_samples} run")
    for code, counts in by_language.items():
        if sum(n for key, n in counts.items() if key != "samples") != counts["samples"]:
            problems.append(f"languages.{code}: the sources do not add up to its samples: {counts}")
    fallback = sum(c.get("fallback", 0) for c in by_language.values())
    if fallback != (block.get("unsure") or {}).get("samples", 0):
        problems.append(f"languages: {fallback} fallback samples, unsure says {block.get('unsure')}")
    return problems


def _strict(text: str) -> Any:
    def refuse(token):
        raise ValueError(f"bare {token} token")
    return json.loads(text, parse_constant=refuse)


def _fail(problems: list[str]) -> None:
    if problems:
        more = f" ... and {len(problems) - 5} more" if len(problems) > 5 else ""
        raise RuntimeError("; ".join(problems[:5]) + more)


# ------------------------------------------------------------------ scored runs, in the case's process

#: slug -> (rows, file name, metrics, extra argv): the runs :func:`cli` makes
RUNS: dict[str, tuple[list[dict], str, str, tuple[str, ...]]] = {}
for _slug in TEXTS:
    RUNS[f"text-{_slug}"] = (_rows(_slug), "in.jsonl", LEX, ())
for _slug, (_value, _texts) in SETTINGS.items():
    RUNS[f"setting-{_slug}"] = (_rows(*_texts), "in.jsonl", LEX, ("--language", _value))
RUNS["all-texts-csv"] = (_rows(*TEXTS), "in.csv", LEX, ())
RUNS["row-languages-mixed"] = ([{**_row(TEXTS[s][0], i), **({"language": TEXTS[s][1]} if TEXTS[s][1] else {})}
                                for i, s in enumerate(TEXTS)], "in.jsonl", LEX, ("--language", "en"))
RUNS["row-languages-mapped-csv"] = ([{**_row(TEXTS[s][0], i), "lang": TEXTS[s][1] or ""} for i, s in enumerate(TEXTS)],
                                    "in.csv", LEX, ("--map", "language=lang"))
RUNS["row-languages-mapped-jsonl"] = ([{**_row(TEXTS[s][0], i), "Sprache": TEXTS[s][1]} for i, s in enumerate(TEXTS)],
                                      "in.jsonl", LEX, ("--map", "language=Sprache"))
RUNS["nfd-answer-nfc-reference"] = ([{**_row(unicodedata.normalize("NFD", t), i), "references": [
    unicodedata.normalize("NFC", t)]} for i, (t, _) in enumerate(TEXTS.values())], "in.jsonl", LEX, ())
#: the texts the models read; the slow ones (a model load each) read them all in one run
MODEL_TEXTS = ("zh", "ar", "hi", "mixed-scripts", "emoji-zwj", "zalgo")
for _name, _metrics in MODELS.items():
    if _name == "citations":
        for _slug in MODEL_TEXTS:
            RUNS[f"model-{_name}-{_slug}"] = (_rows(_slug), "in.jsonl", _metrics, ())
    else:
        RUNS[f"model-{_name}-all"] = (_rows(*MODEL_TEXTS), "in.jsonl", _metrics, ())


def _csv(rows: list[dict]) -> bytes:
    import csv

    out = io.StringIO()
    names = list(dict.fromkeys(k for r in rows for k in r if k not in ("contexts",)))
    writer = csv.DictWriter(out, names, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v)
                         for k, v in row.items() if k in names})
    return out.getvalue().encode("utf-8")


def cli(tmp: str, slug: str) -> str:
    """``genevals run`` (in this process) on :data:`RUNS`' ``slug``: exit 0 or 1, no traceback, strict JSON, no
    silent zero, a languages block that adds up; a RuntimeError naming what is wrong otherwise."""
    from genevals.cli import main

    rows, name, metrics, extra = RUNS[slug]
    path, out = Path(tmp) / name, Path(tmp) / "scored"
    path.write_bytes(_csv(rows) if name.endswith(".csv") else jsonl(*(line(r) for r in rows)))
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["run", str(path), "--out", str(out), "--metrics", metrics, "--no-history", *extra])
    said = stderr.getvalue()
    problems = [] if code in (0, 1) else [f"exit {code}: {said[-800:]}"]
    if "Traceback" in said:
        problems.append("traceback on stderr")
    if not problems:
        records = [_strict(text) for text in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
        summary = _strict((out / "summary.json").read_text(encoding="utf-8"))
        problems += silent_zeros(records) + block_problems(summary, len(records))
        if (summary.get("meta") or {}).get("language") is None:
            problems.append("summary.json's meta does not record the run's language setting")
    _fail(problems)
    return f"{slug}: {code}"


#: slug -> (rows, metrics, language=): the calls :func:`api` makes
CALLS: dict[str, tuple[list[dict], str, Any]] = {
    "all-texts-auto": (_rows(*TEXTS), LEX, None),
    "all-texts-zh": (_rows(*TEXTS), LEX, "zh"),
    "all-texts-auto-ar": (_rows(*TEXTS), LEX, "auto:ar"),
    "row-field-pt-br": ([{**_row("O Rio de Janeiro fica no Brasil.", 0), "language": "pt-BR"}], LEX, "en"),
    "row-field-zh-hant": ([{**_row("臺北是首都", 0), "language": "zh-Hant"}], LEX, None),
}


def api(tmp: str, slug: str) -> str:
    """``genevals.evaluate`` on :data:`CALLS`' ``slug``: no silent zero, a summary in strict JSON that adds up."""
    import genevals

    rows, metrics, language = CALLS[slug]
    results = genevals.evaluate(rows, metrics.split(","), language=language)
    records = [r.to_dict() for r in results]
    summary = _strict(json.dumps(results.summary(), allow_nan=False))
    problems = silent_zeros(records) + block_problems(summary, len(records))
    want = {"row-field-pt-br": "pt", "row-field-zh-hant": "zh"}.get(slug)
    if want and records[0].get("language") != want:
        problems.append(f"the row's language was read as {records[0].get('language')!r}, not {want!r}")
    if summary["meta"].get("language") != str(genevals.language.LanguageSetting.parse(language)):
        problems.append(f"meta.language is {summary['meta'].get('language')!r}")
    _fail(problems)
    return slug


# ------------------------------------------------------------------ the cases

def _file(*middle: str) -> bytes:
    return jsonl(line(GOOD_ROWS[0]), *middle, line(GOOD_ROWS[2]))


def scored() -> list[Case]:
    out = []
    for slug in RUNS:
        model = slug.startswith("model-")
        out.append(Case(id=f"{CLS}-{slug}", cls=CLS, expect=OK, api=f"{ME}.cli(TMP, {slug!r})",
                        limit=40 if model or "long" in slug or slug.startswith(("all-", "row-", "nfd-")) else 20))
    for slug in CALLS:
        out.append(Case(id=f"{CLS}-api-{slug}", cls=CLS, expect=OK, api=f"{ME}.api(TMP, {slug!r})", limit=30))
    return out


def options() -> list[Case]:
    out = []
    body = _file(line(_row(TEXTS["zh"][0], 1)))
    for slug, (value, expect) in LANGUAGE_OPTION.items():
        out.append(run_case(f"{CLS}-option-{slug}", CLS, expect, body, metrics=LEX, extra=("--language", value),
                            where=("--language",) if expect == REFUSED else ()))
    for slug, value in (("int", "5"), ("list", "['zh']"), ("bytes", "b'zh'"), ("xx", "'xx'"), ("empty", "''"),
                        ("english", "'English'"), ("1000-chars", "'z' * 1000"), ("auto-colon", "'auto:'")):
        out.append(Case(id=f"{CLS}-api-language-{slug}", cls=CLS, expect=REFUSED, where=("language",), limit=10,
                        api=f"evaluate(ROWS, M, language={value})"))
    for slug, value in (("none", "None"), ("zh-hant", "'zh-Hant'"), ("setting", "genevals.language.LanguageSetting"
                                                                         ".parse('auto:ja')")):
        out.append(Case(id=f"{CLS}-api-language-ok-{slug}", cls=CLS, expect=OK, limit=10,
                        api=f"evaluate(ROWS, M, language={value})"))
    # a row's language from a DataFrame column, numpy text, a mapped field
    for slug, data, expect in (
            ("frame-nan", "pd.DataFrame([{**r, 'language': np.nan} for r in ROWS])", OK),
            ("frame-none", "pd.DataFrame([{**r, 'language': None} for r in ROWS])", OK),
            ("frame-tag", "pd.DataFrame([{**r, 'language': 'zh-Hant'} for r in ROWS])", OK),
            ("frame-int", "pd.DataFrame([{**r, 'language': 5} for r in ROWS])", REFUSED),
            ("numpy-str", "[{**r, 'language': np.str_('pt-BR')} for r in ROWS]", OK),
            ("numpy-int", "[{**r, 'language': np.int64(1)} for r in ROWS]", REFUSED),
            ("bytes", "[{**r, 'language': b'zh'} for r in ROWS]", REFUSED)):
        out.append(Case(id=f"{CLS}-api-row-{slug}", cls=CLS, expect=expect, limit=10, api=f"evaluate({data}, M)",
                        where=("language",) if expect == REFUSED else ()))
    out.append(Case(id=f"{CLS}-api-row-mapped", cls=CLS, expect=OK, limit=10,
                    api="evaluate([{**r, 'lang': 'ar'} for r in ROWS], M, column_map={'language': 'lang'})"))
    out.append(Case(id=f"{CLS}-api-row-mapped-bad", cls=CLS, expect=REFUSED, limit=10, where=("language", "lang"),
                    api="evaluate([{**r, 'lang': 'arabic'} for r in ROWS], M, column_map={'language': 'lang'})"))
    return out


def fields() -> list[Case]:
    out = []
    row = _row(TEXTS["ar"][0], 1, language="@@")
    for slug, (literal, expect) in ROW_FIELD.items():
        text = line(row).replace('"@@"', literal)
        out.append(run_case(f"{CLS}-field-{slug}", CLS, expect, _file(text), metrics=LEX,
                            where=("in.jsonl:2", "language") if expect == REFUSED else ()))
    # --map language=COLUMN: a CSV column, a JSONL field, a column holding bad codes, one that is absent
    csv_good = "id,answer,references,lang\n1,巴黎,巴黎,zh-Hant\n2,Paris,Paris,\n3,باريس,باريس,AR\n"
    out.append(run_case(f"{CLS}-map-csv", CLS, OK, csv_good.encode(), name="in.csv", metrics=LEX,
                        extra=("--map", "language=lang")))
    out.append(run_case(f"{CLS}-map-csv-bad-code", CLS, REFUSED, (csv_good + "4,x,x,klingon\n").encode(),
                        name="in.csv", metrics=LEX, extra=("--map", "language=lang"),
                        where=("in.csv:5", "language", "lang")))
    out.append(run_case(f"{CLS}-map-jsonl", CLS, OK, _file(line({**_row("巴黎", 1), "lng": "zh"})), metrics=LEX,
                        extra=("--map", "language=lng")))
    out.append(run_case(f"{CLS}-map-jsonl-bad-type", CLS, REFUSED, _file(line({**_row("巴黎", 1), "lng": ["zh"]})),
                        metrics=LEX, extra=("--map", "language=lng"), where=("in.jsonl:2", "language", "lng")))
    out.append(run_case(f"{CLS}-map-absent-column", CLS, REFUSED, _file(line(_row("巴黎", 1))), metrics=LEX,
                        extra=("--map", "language=nothere"), where=("--map", "nothere")))
    out.append(run_case(f"{CLS}-map-to-answer-column", CLS, REFUSED, _file(line(_row("巴黎", 1))), metrics=LEX,
                        extra=("--map", "language=answer"), where=("in.jsonl:1", "language")))
    # a whole file: a BOM, then Chinese, Arabic and Hindi rows with their language fields
    rows = [line({**_row(TEXTS[s][0], i), "language": TEXTS[s][1]}) for i, s in enumerate(("zh", "ar", "hi"))]
    out.append(run_case(f"{CLS}-file-bom-jsonl", CLS, OK, b"\xef\xbb\xbf" + jsonl(*rows), metrics=LEX))
    out.append(run_case(f"{CLS}-file-bom-csv", CLS, OK, b"\xef\xbb\xbf" + csv_good.encode(), name="in.csv",
                        metrics=LEX, extra=("--map", "language=lang")))
    for slug, field in (("answer", "answer"), ("reference", "references")):
        value = "巴黎@@" if field == "answer" else ["巴黎@@"]
        text = line({**_row("巴黎", 1), field: value}).replace("@@", "\\ud800")
        out.append(run_case(f"{CLS}-file-lone-surrogate-{slug}", CLS, REFUSED, _file(text), metrics=LEX,
                            where=("in.jsonl:2", field)))
    out.append(run_case(f"{CLS}-file-surrogate-pair-emoji", CLS, OK,
                        _file(line(_row("Paris @@ France", 1)).replace("@@", "\\ud83c\\uddeb\\ud83c\\uddf7")),
                        metrics=LEX))
    return out


def cases() -> list[Case]:
    return [*scored(), *options(), *fields()]
