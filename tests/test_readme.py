"""The README's "Adding a metric" section runs as written: its metric registers and its test passes."""
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## Adding a metric", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_adding_a_metric_example_registers_and_its_test_passes(isolated_registry):
    metric_code, test_code = _blocks()
    namespace: dict = {}
    exec(compile(metric_code, "README:answer_length.py", "exec"), namespace)
    exec(compile(test_code, "README:test_answer_length.py", "exec"), namespace)
    namespace["test_answer_length"]()

    from genevals import registry

    assert registry.family_of("within_budget") == ("answer_length", {})
    [sel] = registry.select(["within_budget"])
    assert sel.metric.max_words == 50 and sel.keep("within_budget") and not sel.keep("answer_words")


def test_the_offline_judge_figure_in_the_readme_is_the_stored_out_of_fold_one():
    """The README quotes the figure that detector.json stores (and every offline run states), not another."""
    from genevals.grounding import figure

    h = figure.packaged().headline
    text = " ".join(README.read_text(encoding="utf-8").split("### Validating a judge", 1)[1].split())
    d, w = h["detector"], h["word_overlap"]
    assert (f"F1 {d['f1']:.3f} [95% CI {d['ci95'][0]:.3f}, {d['ci95'][1]:.3f}] on the {h['n']} answers "
            f"({h['sources']} sources), against {w['f1']:.3f} [{w['ci95'][0]:.3f}, {w['ci95'][1]:.3f}] for the "
            "word-overlap rule on the same folds") in text
    assert ("a tie" in text) == h["tie"]
