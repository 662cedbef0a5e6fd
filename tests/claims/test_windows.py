"""Context windows for the verify call: cutting at sentence ends, packing in order, assigning claims, rendering."""
from __future__ import annotations

from genevals.claims.windows import assign, render, split_windows
from genevals.types import Context


def ctx(*texts: str) -> tuple[Context, ...]:
    return tuple(Context(text=t, rank=i + 1) for i, t in enumerate(texts))


def pieces(windows) -> list[list[tuple[int, int, int]]]:
    return [[(p.context_index, p.start, p.end) for p in w.pieces] for w in windows]


def test_cut_at_the_last_sentence_end_in_the_second_half():
    # "Aaaa bbbb." is 10 characters; budget 16: the boundary after it (the space at 10) lies in [8, 16),
    # so the cut is at 11 and the rest (16 characters) fits.
    contexts = ctx("Aaaa bbbb. Cccc dddd. Eeee.")
    windows = split_windows(contexts, 16)
    assert pieces(windows) == [[(0, 0, 11)], [(0, 11, 27)]]  # 11 + 16 > 16: two windows
    assert [w.chars for w in windows] == [11, 16]


def test_cut_at_a_space_then_anywhere():
    # no sentence end: the last space in [5, 10) is at 9, so the cut is at 10
    assert pieces(split_windows(ctx("aaaa bbbb cccc dddd"), 10)) == [[(0, 0, 10)], [(0, 10, 19)]]
    # no space either: cut at the budget
    assert pieces(split_windows(ctx("abcdefghijklmnopqrstuvwxyz"), 10)) == [[(0, 0, 10)], [(0, 10, 20)],
                                                                            [(0, 20, 26)]]


def test_small_contexts_pack_into_one_window_and_blank_ones_are_skipped():
    contexts = ctx("Short one.", "   ", "Tiny.")
    windows = split_windows(contexts, 16)
    assert pieces(windows) == [[(0, 0, 10), (2, 0, 5)]] and windows[0].chars == 15
    assert render(contexts, windows[0]) == "[1] Short one.\n\n[3] Tiny."
    assert split_windows(ctx("", "  \n"), 16) == []


def test_render_marks_excerpts():
    contexts = ctx("Aaaa bbbb. Cccc dddd. Eeee.")
    first, second = split_windows(contexts, 16)
    assert render(contexts, first) == "[1] (excerpt) Aaaa bbbb."
    assert render(contexts, second) == "[1] (excerpt) Cccc dddd. Eeee."


def test_pieces_cover_each_context_exactly_in_order():
    filler = " ".join(f"Sentence {i} talks about unrelated gardening topics." for i in range(40))
    contexts = ctx(filler + " Marie Curie was born in Warsaw.", "Marie Curie was born in Paris. " + filler)
    windows = split_windows(contexts, 1600)
    assert len(windows) >= 2 and all(w.chars <= 1600 for w in windows)
    for ci, context in enumerate(contexts):
        spans = [(p.start, p.end) for w in windows for p in w.pieces if p.context_index == ci]
        assert spans[0][0] == 0 and spans[-1][1] == len(context.text)
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # no gap, no overlap


def test_assign_claims_to_the_windows_sharing_most_content_words():
    # 31 + 31 > 32 and 31 + 21 > 32: one window per context
    contexts = ctx("Marie Curie was born in Warsaw.", "Some say she was born in Paris.", "Gardening is a hobby.")
    windows = split_windows(contexts, 32)
    assert pieces(windows) == [[(0, 0, 31)], [(1, 0, 31)], [(2, 0, 21)]]
    claims = {1: "Marie Curie was born in Warsaw",  # content words shared: 4 with window 1, 1 ("born") with 2
              2: "Gardening is a relaxing hobby",  # 2 with window 3 only
              3: "Quantum chromodynamics",  # none anywhere: the first window
              4: "born"}  # a tie between windows 1 and 2: both, the earlier first
    assert assign(windows, claims, contexts) == [[1, 3, 4], [1, 4], [2]]
