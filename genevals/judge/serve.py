"""``python -m genevals.judge.serve [llama_cpp.server options]``: llama.cpp's OpenAI-compatible server with the
packaged judge, started the way genevals runs it in process.

It is ``python -m llama_cpp.server`` with three defaults and one change. Unless given: ``--model`` is the packaged
Gemma 3 270M file (assembled once), ``--chat_format gemma`` for it, and ``--n_ctx 4096`` (the server's own default
is 2048, which a judge prompt with its contexts outgrows). The change: grammar-constrained decoding (greedy, or
sampled at a temperature above 0) checks the likeliest tokens against the JSON grammar first
(:func:`genevals.judge.backends.llamacpp.enable_fast_grammar`), the same token in practice (sampled: stock's
own) and about 10x faster a token for Gemma's 262k-token vocabulary on a CPU (stock: 0.3 s a token on two busy
cores). Every other option
is llama_cpp.server's own (``--host``, ``--port``, ``--model_alias``, ``--n_threads`` ...). The server lists the
model under its path, by which a run recognises the packaged model (:mod:`genevals.judge.packaged`).
"""
from __future__ import annotations

import importlib.util
import runpy
import sys

from genevals.judge import packaged


def _given(args: list[str], name: str) -> bool:
    return any(a == name or a.startswith(name + "=") for a in args)


def server_args(args: list[str], model_path: str | None) -> list[str]:
    """``args`` with the defaults added that are not given: ``--model`` (``model_path``, the packaged file),
    ``--chat_format gemma`` when the model is the packaged one, ``--n_ctx`` :data:`packaged.N_CTX`."""
    out = list(args)
    if not _given(out, "--model") and model_path:
        out = ["--model", model_path, *out]
    model = next((out[i + 1] for i, a in enumerate(out[:-1]) if a == "--model"),
                 next((a.split("=", 1)[1] for a in out if a.startswith("--model=")), ""))
    if packaged.is_packaged_name(model) and not _given(out, "--chat_format"):
        out += ["--chat_format", "gemma"]
    if not _given(out, "--n_ctx"):
        out += ["--n_ctx", str(packaged.N_CTX)]
    return out


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    missing = [m for m in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette")
               if importlib.util.find_spec(m) is None]
    if missing:
        print(f"genevals.judge.serve: llama.cpp's server is not installed ({', '.join(missing)} missing): "
              "pip install 'genevals[llama]'", file=sys.stderr)
        return 2
    from genevals.judge.backends.llamacpp import enable_fast_grammar, packaged_model_path
    from genevals.judge.protocol import PermanentError

    model_path = None
    if not _given(args, "--model") and not any(a in ("-h", "--help") for a in args):
        try:
            model_path = str(packaged_model_path())
        except PermanentError as exc:
            print(f"genevals.judge.serve: {exc}", file=sys.stderr)
            return 2
    enable_fast_grammar()
    sys.argv = ["python -m genevals.judge.serve", *server_args(args, model_path)]
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
