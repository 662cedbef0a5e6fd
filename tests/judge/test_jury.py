"""A jury's configuration: judge=[...] in the API (JudgeConfig objects or mappings), each entry checked by the
declared settings, names and weights, keys from the environment only, the command line's options as defaults."""
import pytest

from genevals.engine.arguments import judge_config
from genevals.input.readers import InputError
from genevals.judge.config import JudgeConfig
from genevals.judge.jury import Jury, JuryError, as_jury, jury_of, load_jury


def test_entries_as_configs_or_mappings_with_names_and_weights():
    jury = as_jury([JudgeConfig(model="a", base_url="http://h/v1"), {"model": "b", "name": "big", "weight": 2}])
    assert isinstance(jury, Jury) and jury.names == ["a", "big"] and jury.weights == {"a": 1.0, "big": 2.0}
    assert jury.jurors[1].config.model == "b"
    assert jury_of([{"backend": "openai"}, {"base_url": "http://h/v1"}]).names == ["judge1", "judge2"]  # numbered


def test_an_entry_that_names_no_judge_is_refused(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(JuryError, match=r"judge: judge 2: names no judge"):
        jury_of([{"model": "a"}, {"temperature": 0.5}])


def test_the_api_takes_a_list_and_names_a_bad_entry():
    assert isinstance(judge_config([{"model": "a"}, {"model": "b"}]), Jury)
    with pytest.raises(InputError, match=r"judge: judge 2: key 'concurrency'"):
        judge_config([{"model": "a"}, {"model": "b", "concurrency": 0}])
    with pytest.raises(InputError, match=r"unknown key 'temprature' \(did you mean 'temperature'\?\)"):
        judge_config([{"model": "a"}, {"model": "b", "temprature": 0.5}])


def test_the_command_line_options_are_defaults_and_an_entry_wins(tmp_path):
    path = tmp_path / "jury.json"
    path.write_text('{"judges": [{"model": "a"}, {"model": "b", "repeats": 2, "temperature": 0.7}]}')
    base = JudgeConfig(base_url="http://h/v1", repeats=3, dry_run=True, api_key="sk-base")
    jury = load_jury(path, base=base)
    a, b = (j.config for j in jury.jurors)
    assert (a.base_url, a.repeats, a.dry_run, a.api_key) == ("http://h/v1", 3, True, "sk-base")
    assert (b.repeats, b.temperature, b.model) == (2, 0.7, "b")


def test_keys_come_from_the_environment(tmp_path):
    path = tmp_path / "jury.toml"
    path.write_text('[[judge]]\nmodel = "a"\napi_key_env = "MY_KEY"\n[[judge]]\nmodel = "b"\n')
    jury = load_jury(path, environ={"MY_KEY": "sk-secret"})
    assert jury.jurors[0].config.api_key == "sk-secret" and "sk-secret" not in repr(jury)
    with pytest.raises(JuryError, match=r"jury.toml: line 1: judge 1: key 'api_key_env': the environment variable "
                                        r"MY_KEY is not set"):
        load_jury(path, environ={})


@pytest.mark.parametrize("weight", [0, -1, "2", float("nan"), True])
def test_a_weight_must_be_a_number_above_zero(weight):
    with pytest.raises(JuryError, match=r"judge 1: key 'weight': expected a number above 0"):
        jury_of([{"model": "a", "weight": weight}, {"model": "b"}])


def test_a_top_level_key_that_is_no_judge_list(tmp_path):
    path = tmp_path / "jury.yaml"
    path.write_text("judgse:\n  - {model: a}\n")
    with pytest.raises(JuryError, match=r"unknown top-level key 'judgse' \(did you mean 'judge'\?\)"):
        load_jury(path)


def test_the_how_to_pages_jury_file_loads(tmp_path):
    from support.docs_blocks import DOCS, section_blocks

    toml = section_blocks(DOCS / "how-to" / "juries.md", "Judge with a jury", "toml")[0]  # the first: two judges
    path = tmp_path / "jury.toml"
    path.write_text(toml)
    jury = load_jury(path, environ={"OPENAI_API_KEY": "sk-x"})
    assert jury.names == ["qwen", "gpt"] and jury.weights["gpt"] == 2.0
    assert jury.jurors[1].config.prices["gpt-4o-mini"]["input_per_1k"] == 0.00015
