"""The grades: the offline model's probability cut at the documented points, and the LLM judge's reply read."""
import pytest

from genevals.labels import offline, umbrela


@pytest.mark.parametrize("p, grade", [(0.0, 0), (0.4999, 0), (0.5, 1), (0.59, 1), (0.6, 2), (0.749, 2), (0.75, 3),
                                      (1.0, 3)])
def test_the_offline_grade_is_how_many_cut_points_the_probability_reaches(p, grade):
    assert offline.CUTS == (0.5, 0.6, 0.75)
    assert offline.grade_of(p) == grade


def test_the_offline_cut_points_are_the_ones_the_docstring_documents():
    doc = " ".join(offline.__doc__.split())
    assert "grade 0: p < 0.5" in doc and "grade 3: p >= 0.75" in doc and "coarse" in doc


@pytest.mark.parametrize("reply, grade", [
    ('{"score": 3}', 3), ('```json\n{"score": 0}\n```', 0), ('{"score": "2"}', 2), ('{"grade": 1}', 1),
    ("M: 2, T: 3\n##final score: 1", 1), ('Sure. "score": 2', 2), ("Final score: **3**", 3),
    ('{"score": 7}', None), ("I cannot judge this", None), ('{"score": true}', None), ("", None)])
def test_the_llm_reply_is_read_as_json_else_as_umbrelas_final_score(reply, grade):
    assert umbrela.read_grade(reply) == grade


def test_repeats_keep_the_median_grade_the_lower_middle_for_an_even_count():
    assert umbrela.median_grade([3, 0, 2]) == 2
    assert umbrela.median_grade([1, 3]) == 1
    assert umbrela.median_grade([2]) == 2


def test_the_prompt_is_a_file_under_prompts_and_its_hash_names_it():
    from genevals import prompt_render
    from genevals.prompt_files import prompt_file

    text = prompt_file("relevance_grade").read_text(encoding="utf-8")
    assert "{{query}}" in text and "{{passage}}" in text and "integer scale of 0 to 3" in text
    assert umbrela.prompt_hash() == prompt_render.prompt_version("relevance_grade")
    rendered, cut = umbrela.render("what is lift", "x" * (umbrela.PASSAGE_CHARS + 10))
    assert cut and "Query: what is lift" in rendered and "{{" not in rendered
