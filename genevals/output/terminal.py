"""What the terminal shows: text from data made safe to print, and the systems' leaderboard.

Text from data, made safe to print on a terminal: a system name, an id or a metric name can hold ESC
sequences (which recolour, retitle or rewrite the screen), NUL, other C0 and C1 controls, line breaks and bidi
overrides (which reorder what is shown). :func:`visible` shows each such character as its escape (``\\x1b``,
``\\u202e``), so what the terminal prints is what the data holds; everything else is left as it is.

:func:`leaderboard_lines` prints summary.json's ``leaderboard`` (systems as rows, headline metrics as columns, the
best marked) and its significant ``comparisons`` (:mod:`genevals.stats.comparisons`); ``genevals compare`` prints the
same lines."""
from __future__ import annotations

import re
import sys
from typing import Any, Mapping

# C0, DEL and C1 controls; the line and paragraph separators; the bidi marks, embeddings, overrides and
# isolates; lone surrogates (a file name's undecodable bytes, which a UTF-8 stream cannot even encode)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff\ufeff]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(value: Any) -> str:
    """``str(value)`` with every control, separator and bidi-formatting character written as its escape."""
    return _UNSAFE.sub(_escape, value if isinstance(value, str) else str(value))


def visible_message(value: Any) -> str:
    """A message for the terminal as :func:`visible` writes it, its own line breaks and tabs kept: the one place an
    error's text (a file's key, a --profile, a folder's name, all quoted as given) is made safe to print."""
    return "\n".join(visible(line).replace("\\x09", "\t") for line in str(value).split("\n"))


def say(message: Any, stream: Any = None, flush: bool = False) -> None:
    """Print ``message`` on stderr (or ``stream``) as :func:`visible_message` writes it: how every message of the
    command line (an error, a warning, a note, that quotes a path, a file's line, a key or a server's answer as
    given) reaches the terminal, so none of them can recolour, retitle or rewrite the screen."""
    print(visible_message(message), file=sys.stderr if stream is None else stream, flush=flush)


# ------------------------------------------------------------------------------------------- the leaderboard

def _mean(cell: Mapping[str, Any], best: bool) -> str:
    if cell.get("mean") is None:
        return "-"
    coverage = cell.get("coverage")
    partial = f" ({coverage:.0%})" if isinstance(coverage, float) and coverage < 1 else ""
    return f"{cell['mean']:.4f}{'^' if best else ''}{partial}"


def _p(p: float | None) -> str:
    return "p n/a" if p is None else ("p < 0.001" if p < 0.001 else f"p = {p:.3f}")


def leaderboard_table(board: Mapping[str, Any]) -> list[str]:
    """The leaderboard as text: a row per system, a column per headline metric (its mean, a coverage under
    100% beside it; ``^`` the best, since ``*`` marks a low coverage in the run's table)."""
    metrics, rows, best = board.get("metrics") or [], board.get("rows") or [], board.get("best") or {}
    if not metrics or not rows:
        return []
    cells = [["system", *map(visible, metrics)]]
    cells += [[visible(row["system"]), *(_mean(row["values"].get(m) or {}, best.get(m) == row["system"])
                                         for m in metrics)] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths))).rstrip()
            for line in cells]


def difference_line(c: Mapping[str, Any], directions: Mapping[str, str] | None = None, *, a: str = "",
                    b: str = "") -> str:
    """One comparison as "metric: better over worse by d [CI], p, n pairs" (the CI of better minus worse);
    ``a``/``b`` name the systems when the comparison's own names are not enough (two runs)."""
    from genevals.stats.comparisons import higher_is_better  # here: it loads numpy, which `genevals --help` must not

    name_a, name_b = a or visible(c["a"]), b or visible(c["b"])
    if c.get("identical"):  # equal on every pair (within float noise): no difference, no test
        return f"{visible(c['metric'])}: {name_a} and {name_b} identical on every sample ({c.get('n_pairs')} pairs)"
    d = c.get("mean_difference") or 0.0
    lo, hi = c.get("ci95") or [None, None]
    a_better = (d > 0) == higher_is_better(c["metric"], (directions or {}).get(c["metric"]))
    if not a_better:  # said from the better system's side
        name_a, name_b, d = name_b, name_a, -d
        lo, hi = (-hi if hi is not None else None), (-lo if lo is not None else None)
    ci = f" [{lo:+.4f}, {hi:+.4f}]" if lo is not None and hi is not None else ""
    d = 0.0 if abs(d) < 5e-5 else d  # a difference that rounds to zero is no "-0.0000"
    if c.get("p_value") is None:  # fewer pairs than a test needs (genevals.stats.MIN_PAIRS): said as it is
        return (f"{visible(c['metric'])}: {name_a} vs {name_b}, difference {d:+.4f}, too few pairs to test "
                f"({c.get('n_pairs')} pairs)")
    return (f"{visible(c['metric'])}: {name_a} over {name_b} by {d:+.4f}{ci}, {_p(c.get('p_value'))}, "
            f"{c.get('n_pairs')} pairs")


#: the comparisons with too few pairs a run prints (the largest differences); the rest are in summary.json
UNTESTED_SHOWN = 3


def leaderboard_lines(summary: Mapping[str, Any], directions: Mapping[str, str] | None = None,
                      quiet: bool = False) -> list[str]:
    """What a run prints of summary.json's leaderboard and comparisons: the table, each significant paired
    difference, and the one-sentence finding; ``quiet``: the finding only. Nothing for a summary without them;
    a run of one system prints the finding alone (with ``quiet``, nothing)."""
    board = summary.get("leaderboard")
    if not isinstance(board, Mapping):
        return []
    finding = f"finding: {visible(board.get('sentence') or '')}"
    if len(board.get("rows") or []) < 2:  # one system: nothing compared, -q says nothing
        return [] if quiet else [finding]
    if quiet:
        return [finding]
    found = summary.get("comparisons") or []
    significant = [c for c in found if c.get("significant")]
    lines = ["leaderboard (^ best mean; paired bootstrap on shared question ids, p < 0.05 significant):",
             *("  " + line for line in leaderboard_table(board))]
    if significant:
        lines.append(f"significant differences ({len(significant)} of {len(found)} compared):")
        lines += ["  " + difference_line(c, directions) for c in significant]
    untested = [c for c in found if c.get("p_value") is None]
    same = sum(1 for c in found if c.get("identical"))  # equal on every pair: no test, said as such
    if not significant and len(found) > len(untested):
        lines.append(f"no significant difference ({len(found) - len(untested)} compared"
                     + (f"; {same} identical on every sample)" if same else ")"))
    if untested:
        from genevals.stats import MIN_PAIRS  # here: it loads numpy, which `genevals --help` must not

        pairs = sorted({c.get("n_pairs") for c in untested if isinstance(c.get("n_pairs"), int)})
        each = f", {pairs[0]} pairs each" if len(pairs) == 1 else ""
        # a screen, not a list: the largest differences first (none that rounds to 0), every one in summary.json
        moved = [c for c in untested if abs(c.get("mean_difference") or 0.0) >= 5e-5]
        shown = sorted(moved, key=lambda c: -abs(c["mean_difference"]))[:UNTESTED_SHOWN]
        lines.append(f"too few pairs to test ({len(untested)} of {len(found)}{each}; a paired test needs at least "
                     f"{MIN_PAIRS}" + ("):" if shown else "; every difference rounds to 0)"))
        lines += ["  " + difference_line(c, directions) for c in shown]
        if len(untested) > len(shown) and shown:
            lines.append(f"  {len(untested) - len(shown)} more in summary.json's comparisons and the report")
    lines += [f"not compared: {visible(entry.get('metric'))}: {visible(entry.get('why'))}"
              for entry in summary.get("not_compared") or () if isinstance(entry, Mapping)]
    return [*lines, finding]
