"""The judge's context windows and the refusal detector cut text at sentence ends in every script
(genevals.language.sentences.LOOSE), not only at ". "."""
from __future__ import annotations

from genevals.claims.windows import split_windows
from genevals.text import detect_refusal
from genevals.types import Context


def test_a_chinese_context_is_cut_right_after_a_full_stop():
    sentence = "北京是中国的首都，也是政治和文化中心。"  # 19 characters, no space anywhere
    ctx = Context(sentence * 10, 1, "c")
    windows = split_windows([ctx], 60)
    pieces = [ctx.text[p.start:p.end] for w in windows for p in w.pieces]
    assert "".join(pieces) == ctx.text
    assert all(p.endswith("。") for p in pieces[:-1]) and all(len(p) <= 60 for p in pieces)


def test_a_hindi_context_is_cut_after_a_danda():
    ctx = Context("भारत एक विशाल देश है। " * 8, 1, "c")
    pieces = [ctx.text[p.start:p.end] for w in split_windows([ctx], 70) for p in w.pieces]
    assert all(p.rstrip().endswith("।") for p in pieces)


def test_refusal_parts_are_cut_at_every_script_end():
    # the refusal is one part; the Chinese sentence after it (20+ characters) is a claim: scored, not a refusal
    assert detect_refusal("I don't know.") == "I don't know"
    assert detect_refusal("I don't know。北京是中国的首都，也是政治和文化的中心。") is None
    assert detect_refusal("I don't know.北京是中国的首都，也是政治和文化的中心。") == "I don't know"  # no end: one part
