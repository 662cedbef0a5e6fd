"""The scripted judge answers every prompt of ``prompts/`` (issue 48): it reads which prompts there are from the
folder, so a prompt file added there is answered, by its first line, with no list of kinds to keep in step."""
from __future__ import annotations

import asyncio
import json

import pytest
from conftest import REPO

from genevals.judge.backends.scripted import ScriptedProvider
from genevals.prompt_files import FRAGMENTS, first_line, prompt_file, prompt_names

FILES = sorted(p.stem for p in (REPO / "prompts").glob("*.md") if p.name != "README.md")
PROMPTS = [name for name in FILES if name not in FRAGMENTS]


def test_every_prompt_file_is_a_prompt_or_a_fragment():
    assert prompt_names() == tuple(PROMPTS)
    assert FRAGMENTS <= set(FILES), "a fragment no longer in prompts/"


@pytest.mark.parametrize("name", PROMPTS)
def test_the_scripted_judge_answers_each_prompt_by_its_first_line(name):
    # the first line holds no placeholder, so every rendering of the prompt starts with it
    assert "{{" not in first_line(name)
    others = [other for other in PROMPTS if other != name]
    assert not any(first_line(other).startswith(first_line(name)) for other in others), "a first line is shared"
    provider = ScriptedProvider({name: {"prompt": name}, **{other: {"prompt": other} for other in others}})
    messages = [{"role": "user", "content": prompt_file(name).read_text(encoding="utf-8")}]
    assert provider.kind(messages) == name
    reply = asyncio.run(provider.complete(messages, None, {}))
    assert json.loads(reply.text) == {"prompt": name}
