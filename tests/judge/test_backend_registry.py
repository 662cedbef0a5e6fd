"""A judge backend is one file plus one registration (issue 24): a module written here registers a Backend, an
entry point in the group ``genevals.judge_backends`` names it, and it judges end to end through
``genevals.evaluate`` and a real ``genevals run`` process, its name and model in every signature and cache key."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import genevals
from genevals.judge import registry
from genevals.judge.backends.scripted import ScriptedProvider
from genevals.judge.cache import JudgeCache
from genevals.judge.config import JudgeConfig
from genevals.judge.registry import Backend, Identity, register_backend
from support.judge_scripts import label_claims, one_claim_per_answer

TESTS = Path(__file__).resolve().parents[1]
CONTEXT = "Marie Curie was born in Warsaw. Marie Curie discovered polonium."
ROWS = [{"id": "a", "answer": "Marie Curie was born in Warsaw.", "contexts": [CONTEXT]},
        {"id": "b", "answer": "Marie Curie discovered polonium.", "contexts": [CONTEXT]}]

#: the whole backend: a provider that makes each answer one claim and finds every claim supported
MINE = '''
"""The 'mine' judge backend: each answer is one claim, and every claim is supported."""
import json

from genevals.judge.protocol import Completion, Usage
from genevals.judge.registry import Backend, Identity, register_backend
from support.judge_scripts import answer_of, claims_of


class MineProvider:
    backend = "mine"
    base_url = None

    def __init__(self, model):
        self.model = model

    async def complete(self, messages, schema, params):
        content = messages[0]["content"]
        if "\\nClaims:\\n" in content:  # a verify prompt
            reply = {"verdicts": [{"id": i, "context": 1, "quote": "", "label": "supported", "reason": "mine"}
                                  for i in claims_of(messages)]}
        else:
            answer = answer_of(messages).strip()
            reply = {"claims": [{"claim": answer, "source": answer}]}
        return Completion(text=json.dumps(reply), usage=Usage(len(content) // 4, 20))


register_backend(Backend(name="mine", factory=lambda config: MineProvider(config.model or "mine-1"),
                         identity=lambda config: Identity(config.model or "mine-1"),
                         summary="a test judge that supports every claim"))
'''


@pytest.fixture
def isolated_backends():
    """Backends a test registers are forgotten after it (and their modules unloaded), so no other test sees
    them."""
    registry.backend_names()
    before, modules = dict(registry._BACKENDS), set(sys.modules)
    yield
    registry._BACKENDS.clear()
    registry._BACKENDS.update(before)
    for name in set(sys.modules) - modules:
        if name.endswith("_judge"):
            del sys.modules[name]


def plugin(site: Path, module: str, code: str, entry: str) -> Path:
    """``module``.py in ``site``, installed as a distribution whose entry point ``entry`` names it (what
    ``pip install`` of a package with ``[project.entry-points."genevals.judge_backends"]`` leaves)."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    info = site / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINTS}]\n{entry} = {module}\n", encoding="utf-8")
    return site


def run(tmp_path, site, *args):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(site), str(TESTS),
                                                                    os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, "-m", "genevals", "run", str(data), "--out", str(tmp_path / "out"),
                           "--metrics", "faithfulness", "-q", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_a_backend_in_one_file_judges_through_the_api_named_in_signatures_and_cache_keys(
        tmp_path, monkeypatch, isolated_backends):
    monkeypatch.syspath_prepend(str(plugin(tmp_path / "site", "mine_judge", MINE, "mine")))
    assert "mine" in registry.backend_names() and "mine" not in registry._BACKENDS  # listed, not yet loaded
    cache = tmp_path / "cache"
    results = genevals.evaluate(ROWS, ["faithfulness"], judge={"backend": "mine", "cache_dir": str(cache)})
    assert [s.metrics["faithfulness"].value for s in results.samples] == [1.0, 1.0]
    judge = results.samples[0].metrics["faithfulness"].details["judge"]
    assert (judge["backend"], judge["model"]) == ("mine", "mine-1")
    assert results.signatures["faithfulness"].startswith("faithfulness|backend:mine|model:mine-1|")
    assert JudgeConfig(backend="mine").context_budget == 6000  # no budget of its own: the default

    # The same replies from another backend with the same model name are other cache entries: the keys differ.
    assert len(JudgeCache(cache)) == 4  # 2 samples x (decompose, verify)
    scripted = ScriptedProvider({"decompose": one_claim_per_answer(), "verify": label_claims("supported")},
                                model="mine-1")
    again = genevals.evaluate(ROWS, ["faithfulness"], judge={"provider": scripted, "cache_dir": str(cache)})
    assert [s.metrics["faithfulness"].value for s in again.samples] == [1.0, 1.0]
    assert len(scripted.calls) == 4 and len(JudgeCache(cache)) == 8


def test_the_cli_loads_a_backend_through_its_entry_point(tmp_path):
    site = plugin(tmp_path / "site", "mine_judge", MINE, "mine")
    done = run(tmp_path, site, "--judge-backend", "mine", "--judge-model", "mine-2", "--no-judge-cache")
    assert done.returncode == 0, done.stderr
    first = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])["metrics"]["faithfulness"]
    assert first["value"] == 1.0
    assert (first["details"]["judge"]["backend"], first["details"]["judge"]["model"]) == ("mine", "mine-2")
    signature = json.loads((tmp_path / "out" / "summary.json").read_text())["signatures"]["faithfulness"]
    assert signature.startswith("faithfulness|backend:mine|model:mine-2|")


def test_a_plugin_that_does_not_load_or_register_is_exit_2_naming_it(tmp_path):
    site = plugin(tmp_path / "site", "broken_judge", "raise ImportError('needs the acme SDK')\n", "broken")
    plugin(site, "silent_judge", "x = 1\n", "silent")
    broken = run(tmp_path, site, "--judge-backend", "broken")
    silent = run(tmp_path, site, "--judge-backend", "silent")
    assert broken.returncode == 2 and silent.returncode == 2, broken.stderr + silent.stderr
    assert ("judge backend 'broken' (entry point broken_judge) did not load: ImportError: needs the acme SDK"
            in broken.stderr)
    assert "judge backend 'silent': its entry point silent_judge registered no backend of that name" in silent.stderr
    assert "Traceback" not in broken.stderr + silent.stderr


def test_the_scripted_backend_by_name_is_named_after_its_script(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"decompose": {"claims": [{"claim": "Marie Curie was born in Warsaw.",
                                                              "source": "Marie Curie was born in Warsaw."}]},
                                  "verify": {"verdicts": [{"id": 1, "context": 1, "quote": "", "label":
                                                           "supported", "reason": "scripted"}]}}))
    results = genevals.evaluate(ROWS[:1], ["faithfulness"],
                                judge={"backend": "scripted", "model": str(script), "cache": False})
    assert results.samples[0].metrics["faithfulness"].value == 1.0
    model = results.samples[0].metrics["faithfulness"].details["judge"]["model"]
    assert model.startswith("script.json@") and len(model) == len("script.json@") + 12  # another script: another judge
    done = run(tmp_path, None, "--judge-backend", "scripted", "--judge-model", str(tmp_path / "none.json"))
    assert done.returncode == 2 and f"--judge-model {tmp_path / 'none.json'}: file not found" in done.stderr, done.stderr


def test_registration_refuses_auto_a_taken_name_and_a_provider_of_another_name(isolated_backends):
    def provider(config):
        return ScriptedProvider({})  # its backend is "scripted"

    with pytest.raises(ValueError, match="other than 'auto'"):
        register_backend(Backend(name="auto", factory=provider, identity=lambda config: Identity("m")))
    with pytest.raises(ValueError, match="'openai' is registered twice"):
        register_backend(Backend(name="openai", factory=provider, identity=lambda config: Identity("m")))
    odd = register_backend(Backend(name="odd", factory=provider, identity=lambda config: Identity("m")))
    with pytest.raises(TypeError, match="judge backend 'odd' built a provider whose backend is 'scripted'"):
        odd.build(JudgeConfig(backend="odd"))


def test_auto_is_decided_by_the_backends_records_not_by_names_in_the_configuration(isolated_backends, monkeypatch):
    """``auto`` asks each record whether the environment names it (OpenAI-compatible: a URL or OPENAI_*), else
    takes the fallback (llama.cpp); a backend with its own environment rule needs no edit of judge/config.py."""
    from genevals.judge.config import resolve_backend

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("MINE_JUDGE_URL", raising=False)
    assert (resolve_backend("auto", None), resolve_backend("auto", "http://127.0.0.1:1/v1")) == ("llamacpp", "openai")
    register_backend(Backend(name="mine", factory=lambda config: None, identity=lambda config: Identity("m"),
                             auto="when", picked=lambda url: bool(os.environ.get("MINE_JUDGE_URL"))))
    assert resolve_backend("auto", None) == "llamacpp" and JudgeConfig().configured is False
    monkeypatch.setenv("MINE_JUDGE_URL", "http://127.0.0.1:2")
    assert resolve_backend("auto", None) == "mine" and JudgeConfig().configured is True


def test_the_entry_points_are_read_once_per_sys_path(monkeypatch, tmp_path):
    """Reading them scans every installed distribution, and one `genevals run` asked six times; a new sys.path
    entry (a plugin's folder) is read again."""
    calls = []
    real = registry.entry_points
    monkeypatch.setattr(registry, "entry_points", lambda **kw: calls.append(kw) or real(**kw))
    monkeypatch.setattr(registry, "_PLUGINS", {})
    for _ in range(3):
        registry.backend_names()
        registry.is_backend("nothing-registered")
    assert len(calls) == 1
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.backend_names()
    assert len(calls) == 2
