"""The faithfulness judge on Chinese, Arabic and Hindi answers, end to end: ``genevals run`` (a real process)
against the fault-injecting judge server (tests/support/fault_server.py), here scripted to reply, per answer,
with claims, quotes and reasons in the answer's language, as the prompts now ask.

Checked from results.jsonl and summary.json: status ok; each claim's source located in the answer and each
evidence quote in its context, the spans exact character offsets into the original strings (``text[start:end]``
is the original's spelling of what the judge quoted: full-width digits, vowel marks, Devanagari digits...);
reasons kept as written; the sample's language in the details and ``lang:auto`` in the signature. A quote the
judge translated instead of copying is not located, in Chinese exactly as in English (``quote_found`` false, no
span, the label as judged), and a claim whose source is a translation, or whose words (Chinese: character pairs)
are not the answer's, is kept apart as invented, never scored.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from support.fault_server import FaultServer, _send
from support.judge_scripts import answer_of, claims_of

# -- Chinese --------------------------------------------------------------------------------------------------------
ZH = "居里夫人出生于华沙。她于1903年获得诺贝尔物理学奖。她活到了120岁。"
# 居0 里1 夫2 人3 出4 生5 于6 华7 沙8 。9 她10 于11 1903 12-15 年16 获17 得18 诺19 贝20 尔21 物22 理23 学24 奖25
# 。26 她27 活28 到29 了30 120 31-33 岁34 。35
ZH_C1 = "玛丽·居里（1867年生于华沙）是一位物理学家和化学家。"
# 玛0 丽1 ·2 居3 里4 （5 1867 6-9 年10 生11 于12 华13 沙14 ）15
ZH_C2 = "居里在１９０３年与他人分享了诺贝尔物理学奖。她于1934年去世，享年66岁。"
# 居0 里1 在2 １９０３ 3-6 年7 与8 他9 人10 分11 享12 了13 诺14 贝15 尔16 物17 理18 学19 奖20 。21 她22 于23
# 1934 24-27 年28 去29 世30 ，31 享32 年33 66 34-35 岁36 。37
ZH_SHORT = "居里夫人出生于华沙。"

# -- Arabic ---------------------------------------------------------------------------------------------------------
AR = "وُلِدَت ماري كوري في وارسو. حصلت على جائزة نوبل في الفيزياء عام 1903."
# و0 ُ1 ل2 ِ3 د4 َ5 ت6, space 7, ماري 8-11, كوري 13-16, في 18-19, وارسو 21-25, "." 26, space 27, حصلت 28-31,
# على 33-35, جائزة 37-41, نوبل 43-46, في 48-49, الفيزياء 51-58, عام 60-62, 1903 64-67, "." 68
AR_C1 = "ولدت ماري كوري في وارسو عام ١٨٦٧."  # ولدت 0-3, ماري 5-8, كوري 10-13, في 15-16, وارسو 18-22
AR_C2 = "تقاسمت كوري جائزة نوبل في الفيزياء عام ١٩٠٣."
# تقاسمت 0-5, كوري 7-10, جائزة 12-16, نوبل 18-21, في 23-24, الفيزياء 26-33, عام 35-37, ١٩٠٣ 39-42, "." 43

# -- Hindi ----------------------------------------------------------------------------------------------------------
HI = "मैरी क्यूरी का जन्म वारसॉ में हुआ था। उन्होंने 1903 में भौतिकी का नोबेल पुरस्कार जीता।"
HI_C1 = "मैरी क्यूरी (जन्म १८६७, वारसॉ) एक भौतिक विज्ञानी थीं।"
HI_C2 = "क्यूरी ने १९०३ में भौतिकी का नोबेल पुरस्कार साझा किया।"

EN = "Marie Curie was born in Warsaw."
EN_C = "Marie Curie was born in Warsaw in 1867."


def claim(text: str, source: str) -> dict:
    return {"claim": text, "source": source}


def verdict(context: int, quote: str, label: str, reason: str) -> dict:
    return {"context": context, "quote": quote, "label": label, "reason": reason}


#: answer -> (the decompose reply's claims, claim text -> its verdict)
SCRIPT = {
    ZH: ([claim("居里夫人出生于华沙。", "居里夫人出生于华沙"),
          claim("居里夫人于1903年获得诺贝尔物理学奖。", "她于１９０３年获得诺贝尔物理学奖"),  # full-width digits
          claim("居里夫人活到了120岁。", "她活到了120岁"),
          claim("Curie lived to be 120.", "She lived to be 120 years old"),  # translated: not the answer's
          claim("量子色动力学支配胶子禁闭。", "居里夫人出生于华沙")],  # a real excerpt, an invented claim
         {"居里夫人出生于华沙。": verdict(1, "1867年生于华沙", "supported", "上下文说她生于华沙。"),
          "居里夫人于1903年获得诺贝尔物理学奖。": verdict(2, "居里在1903年与他人分享了诺贝尔物理学奖", "supported",
                                                 "上下文说她1903年获奖。"),
          "居里夫人活到了120岁。": verdict(2, "她于1934年去世,享年66岁", "contradicted", "享年66岁，不是120岁。")}),
    ZH_SHORT: ([claim("玛丽·居里出生于华沙。", "居里夫人出生于华沙")],
               {"玛丽·居里出生于华沙。": verdict(1, "born in Warsaw in 1867", "supported", "translated quote")}),
    AR: ([claim("ولدت ماري كوري في وارسو.", "ولدت ماري كوري في وارسو"),  # without the answer's vowel marks
          claim("حصلت ماري كوري على جائزة نوبل في الفيزياء عام 1903.", "حصلت على جائزة نوبل في الفيزياء عام 1903")],
         {"ولدت ماري كوري في وارسو.": verdict(1, "وُلِدَت ماري كوري في وارسو", "supported",
                                              "السياق يذكر مكان ولادتها."),
          "حصلت ماري كوري على جائزة نوبل في الفيزياء عام 1903.": verdict(
              2, "جائزة نوبل في الفيزياء عام 1903", "supported", "السياق يذكر الجائزة.")}),
    HI: ([claim("मैरी क्यूरी का जन्म वारसॉ में हुआ था।", "मैरी क्यूरी का जन्म वारसॉ में हुआ था"),
          claim("मैरी क्यूरी ने 1903 में भौतिकी का नोबेल पुरस्कार जीता।",
                "उन्होंने 1903 में भौतिकी का नोबेल पुरस्कार जीता")],
         {"मैरी क्यूरी का जन्म वारसॉ में हुआ था।": verdict(1, "जन्म १८६७, वारसॉ", "supported", "संदर्भ में लिखा है।"),
          "मैरी क्यूरी ने 1903 में भौतिकी का नोबेल पुरस्कार जीता।": verdict(
              2, "1903 में भौतिकी का नोबेल पुरस्कार", "supported", "संदर्भ में पुरस्कार है।")}),
    EN: ([claim(EN, "Marie Curie was born in Warsaw")],
         {EN: verdict(1, "Marie Curie was born in Paris", "supported", "a quote that is not in the context")}),
}


class ScriptedJudge(FaultServer):
    """The fault server, answering decompose and verify prompts from :data:`SCRIPT` (by the answer, and by the
    claim's text); other requests (the preflight) as the fault server does."""

    def _answer(self, h, body):
        content = body["messages"][0]["content"]
        messages = [{"role": "user", "content": content}]
        if "split an answer into atomic claims" in content:
            reply = {"claims": SCRIPT[answer_of(messages)][0]}
        elif "check claims against numbered" in content:
            verdicts = {text: v for claims, by_text in SCRIPT.values() for text, v in by_text.items()}
            reply = {"verdicts": [{"id": cid, **verdicts[text]} for cid, text in claims_of(messages).items()]}
        else:
            return super()._answer(h, body)
        with self._lock:
            self.requests.append({"marker": "scripted", "kind": "scripted", "body": body})
        text = json.dumps(reply, ensure_ascii=False)
        _send(h, 200, {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body.get("model"),
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": len(content) // 4, "completion_tokens": len(text) // 4,
                                 "total_tokens": (len(content) + len(text)) // 4}})


ROWS = [
    {"id": "zh", "question": "居里夫人是谁？", "answer": ZH, "contexts": [ZH_C1, ZH_C2]},
    {"id": "zh-translated-quote", "question": "居里夫人出生在哪里？", "answer": ZH_SHORT, "contexts": [ZH_C1]},
    {"id": "ar", "question": "من هي ماري كوري؟", "answer": AR, "contexts": [AR_C1, AR_C2]},
    {"id": "hi", "question": "मैरी क्यूरी कौन थीं?", "answer": HI, "contexts": [HI_C1, HI_C2], "language": "hi"},
    {"id": "en-unlocated-quote", "question": "Where was Marie Curie born?", "answer": EN, "contexts": [EN_C]},
]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("languages")
    data = tmp / "d.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ROWS), encoding="utf-8")
    with ScriptedJudge() as server:
        done = subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp / "out"), "-q",
                               "--metrics", "faithfulness", "--judge-base-url", server.base_url, "--judge-model",
                               "judge", "--no-judge-cache"], capture_output=True, text=True, timeout=300)
        prompts = [r["body"]["messages"][0]["content"] for r in server.requests if r["kind"] == "scripted"]
    assert done.returncode == 0, done.stderr
    rows = {r["id"]: r["metrics"] for r in map(json.loads, (tmp / "out" / "results.jsonl").read_text(
        encoding="utf-8").splitlines())}
    summary = json.loads((tmp / "out" / "summary.json").read_text(encoding="utf-8"))
    return rows, summary, prompts


def spans(text: str, items: list[dict], key: str) -> list[str]:
    return ["".join(text[a:b] for a, b in (item[key] if key == "spans" else [item[key]])) for item in items]


def test_chinese_claims_quotes_and_reasons(run):
    rows, _, _ = run
    f = rows["zh"]["faithfulness"]
    assert f["status"] == "ok"
    d = f["details"]
    # 2 of the 3 located claims supported, 1 contradicted; the translated claim is not the answer's
    assert f["value"] == pytest.approx(2 / 3) and rows["zh"]["contradiction_rate"]["value"] == pytest.approx(1 / 3)
    assert [c["spans"] for c in d["claims"]] == [[[0, 9]], [[10, 26]], [[27, 35]]]
    assert spans(ZH, d["claims"], "spans") == ["居里夫人出生于华沙", "她于1903年获得诺贝尔物理学奖", "她活到了120岁"]
    assert [c["text"] for c in d["invented_claims"]] == ["Curie lived to be 120.", "量子色动力学支配胶子禁闭。"]
    assert d["invented_claims"][0]["note"] == "source excerpt not found in the answer"
    # none of its 11 character pairs (量子, 子色, ... 禁闭) is in the answer or the question: 0 / 11 < 1 / 2
    assert d["invented_claims"][1]["note"] == ("claim words mostly absent from the answer and question "
                                               "(invented content)")
    assert rows["zh"]["invented_claims"]["value"] == 2
    v = d["verdicts"]
    assert [(x["context_index"], x["quote_found"], x["quote_span"]) for x in v] == [
        (0, True, [6, 15]), (1, True, [0, 21]), (1, True, [22, 37])]
    assert ZH_C1[6:15] == "1867年生于华沙"
    assert ZH_C2[0:21] == "居里在１９０３年与他人分享了诺贝尔物理学奖"  # the context's full-width digits
    assert ZH_C2[22:37] == "她于1934年去世，享年66岁"  # its full-width comma
    assert [x["reason"] for x in v] == ["上下文说她生于华沙。", "上下文说她1903年获奖。", "享年66岁，不是120岁。"]
    assert [x["label"] for x in v] == ["supported", "supported", "contradicted"]
    assert (d["language"], d["language_source"]) == ("zh", "detected")


def test_arabic_with_and_without_vowel_marks(run):
    rows, _, _ = run
    f = rows["ar"]["faithfulness"]
    assert (f["status"], f["value"]) == ("ok", 1.0)
    d = f["details"]
    assert [c["spans"] for c in d["claims"]] == [[[0, 26]], [[28, 68]]]
    assert spans(AR, d["claims"], "spans") == ["وُلِدَت ماري كوري في وارسو", "حصلت على جائزة نوبل في الفيزياء عام 1903"]
    v = d["verdicts"]
    assert [(x["context_index"], x["quote_span"]) for x in v] == [(0, [0, 23]), (1, [12, 43])]
    assert AR_C1[0:23] == "ولدت ماري كوري في وارسو"  # the judge quoted it with the answer's vowel marks
    assert AR_C2[12:43] == "جائزة نوبل في الفيزياء عام ١٩٠٣"  # and with ASCII digits
    assert [x["reason"] for x in v] == ["السياق يذكر مكان ولادتها.", "السياق يذكر الجائزة."]
    assert d["language"] == "ar" and d["language_source"] == "detected"
    assert d["invented_claims"] == []


def test_hindi_spans_and_the_rows_language(run):
    rows, _, _ = run
    f = rows["hi"]["faithfulness"]
    assert (f["status"], f["value"]) == ("ok", 1.0)
    d = f["details"]
    first, second = "मैरी क्यूरी का जन्म वारसॉ में हुआ था", "उन्होंने 1903 में भौतिकी का नोबेल पुरस्कार जीता"
    at = HI.index(second)
    assert [c["spans"] for c in d["claims"]] == [[[0, len(first)]], [[at, at + len(second)]]]
    assert spans(HI, d["claims"], "spans") == [first, second]
    v = d["verdicts"]
    got = [(x["context_index"], HI_C1[slice(*x["quote_span"])] if x["context_index"] == 0
            else HI_C2[slice(*x["quote_span"])]) for x in v]
    # the context's Devanagari digits, where the judge wrote ASCII ones
    assert got == [(0, "जन्म १८६७, वारसॉ"), (1, "१९०३ में भौतिकी का नोबेल पुरस्कार")]
    assert v[1]["quote_span"] == [HI_C2.index("१९०३"), HI_C2.index("पुरस्कार") + len("पुरस्कार")]
    assert [x["reason"] for x in v] == ["संदर्भ में लिखा है।", "संदर्भ में पुरस्कार है।"]
    assert (d["language"], d["language_source"]) == ("hi", "row")


def test_a_translated_quote_is_not_located_as_in_english(run):
    rows, _, _ = run
    zh, en = rows["zh-translated-quote"]["faithfulness"], rows["en-unlocated-quote"]["faithfulness"]
    for f in (zh, en):
        assert f["status"] == "ok" and f["value"] == 1.0  # the label as judged ...
        [v] = f["details"]["verdicts"]
        assert (v["quote_found"], v["quote_span"]) == (False, None)  # ... but its evidence is not in the context
    assert zh["details"]["claims"][0]["spans"] == [[0, 9]] and zh["details"]["language"] == "zh"
    assert en["details"]["language"] == "en"


def test_prompts_ask_for_the_answers_language_and_the_signature_names_the_setting(run):
    rows, summary, prompts = run
    decompose = [p for p in prompts if "split an answer into atomic claims" in p]
    verify = [p for p in prompts if "check claims against numbered" in p]
    assert len(decompose) == len(verify) == len(ROWS)
    assert all("in the language of the answer" in p and "never translate it" in p for p in decompose)
    assert all('Copy "quote" character for character from the passage' in p for p in verify)
    assert any(ZH in p for p in decompose) and any(AR_C2 in p for p in verify)  # sent as written, not escaped away
    assert "|lang:auto|" in summary["signatures"]["faithfulness"]
    assert all(r["faithfulness"]["details"]["judge"]["prompt_version"] for r in rows.values())
