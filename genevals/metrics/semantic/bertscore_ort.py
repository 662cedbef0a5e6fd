"""The BERTScore model's forward pass on ONNX Runtime: the same fp32 weights, fewer and fused CPU kernels.

bert-score runs the model in torch, where one BERT layer is ~20 operators (each a parallel region whose
threads must all be scheduled) and attention is built from separate matmuls, a mask add and a softmax. On a
CPU genevals can run the very same weights through ONNX Runtime's fused BERT operators instead:

    EmbedLayerNormalization(ids, segments, mask) -> x0, key lengths        (word + position + segment, LayerNorm)
    for each layer:
        a  = Attention(x, [Wq Wk Wv], [bq bk bv], key lengths)            (softmax(QK^T / sqrt(d)) V, per head)
        x' = SkipLayerNormalization(a Wo, x, bias bo)                       LayerNorm(a Wo + bo + x)
        x  = SkipLayerNormalization(BiasGelu(x' W1, b1) W2, x', bias b2)   LayerNorm(gelu(x' W1 + b1) W2 + b2 + x')

which is exactly what ``onnxruntime.transformers.optimizer`` makes of an exported BERT, built here directly from
the loaded model's weights (no export, no tracing, nothing written to disk; ~0.5 s per process). The hidden
states differ from torch's by float rounding only (<= 3e-5 on MiniLM); BERTScores stay within 1e-6 of
``bert_score.score`` (tested). Only BERT-architecture models with absolute positions and erf GELU are built;
any other model, or a GPU, runs in torch.
"""
from __future__ import annotations

import importlib.util
from typing import Any

#: what a user may ask for; "auto" = onnxruntime where it is installed and the model is supported, else torch
RUNTIMES = ("auto", "onnxruntime", "torch")


def check_runtime(runtime: str) -> str:
    """``runtime`` if it is one of :data:`RUNTIMES`, else a ValueError naming them."""
    if runtime not in RUNTIMES:
        raise ValueError(f"unknown BERTScore runtime '{runtime}'; expected one of {RUNTIMES}")
    return runtime


def installed() -> bool:
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "onnx"))


def unsupported(config: Any) -> str | None:
    """Why this model cannot run through the fused graph, or None if it can."""
    if getattr(config, "model_type", None) != "bert":
        return f"model type '{getattr(config, 'model_type', None)}' is not bert"
    if getattr(config, "position_embedding_type", "absolute") != "absolute":
        return "relative position embeddings"
    if getattr(config, "hidden_act", None) != "gelu":
        return f"activation '{getattr(config, 'hidden_act', None)}' is not erf GELU"
    if getattr(config, "is_decoder", False):
        return "a decoder"
    return None


def build_graph(model) -> tuple[bytes, dict]:
    """The serialized ONNX model of ``model`` (a transformers BertModel, possibly cut to fewer layers), and its
    weights by name. Inputs input_ids, segment_ids, attention_mask (int32, [batch, seq], right-padded), output
    hidden (last layer's hidden states, float32 [batch, seq, hidden]). The graph only names its weights
    (external placeholders): the session takes the arrays themselves, so the weights are not copied into the
    graph, serialized and parsed back (that peaked ~300 MB above torch alone)."""
    import numpy as np
    from onnx import TensorProto, helper

    config = model.config
    state = {k: v.detach().cpu().float().numpy() for k, v in model.state_dict().items()}
    eps = float(config.layer_norm_eps)
    inits: list = []
    weights: dict = {}

    def weight(name: str, array) -> str:
        weights[name] = np.ascontiguousarray(array, dtype=np.float32)
        tensor = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=weights[name].shape,
                             data_location=TensorProto.EXTERNAL)
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", "weights-given-to-the-session"
        inits.append(tensor)
        return name

    ms = "com.microsoft"
    emb = "embeddings."
    nodes = [helper.make_node(
        "EmbedLayerNormalization",
        ["input_ids", "segment_ids", weight("word", state[emb + "word_embeddings.weight"]),
         weight("position", state[emb + "position_embeddings.weight"]),
         weight("segment", state[emb + "token_type_embeddings.weight"]),
         weight("emb_gamma", state[emb + "LayerNorm.weight"]), weight("emb_beta", state[emb + "LayerNorm.bias"]),
         "attention_mask"],
        ["x0", "key_lengths"], domain=ms, epsilon=eps)]
    x = "x0"
    for i in range(len(model.encoder.layer)):
        p = f"encoder.layer.{i}."
        att = p + "attention."
        qkv_w = np.concatenate([state[att + f"self.{n}.weight"].T for n in ("query", "key", "value")], axis=1)
        qkv_b = np.concatenate([state[att + f"self.{n}.bias"] for n in ("query", "key", "value")])
        nodes += [
            helper.make_node("Attention", [x, weight(f"qkv_w{i}", qkv_w), weight(f"qkv_b{i}", qkv_b), "key_lengths"],
                             [f"ctx{i}"], domain=ms, num_heads=int(config.num_attention_heads)),
            helper.make_node("MatMul", [f"ctx{i}", weight(f"o_w{i}", state[att + "output.dense.weight"].T)],
                             [f"o{i}"]),
            helper.make_node("SkipLayerNormalization",
                             [f"o{i}", x, weight(f"ln1_g{i}", state[att + "output.LayerNorm.weight"]),
                              weight(f"ln1_b{i}", state[att + "output.LayerNorm.bias"]),
                              weight(f"o_b{i}", state[att + "output.dense.bias"])],
                             [f"a{i}"], domain=ms, epsilon=eps),
            helper.make_node("MatMul", [f"a{i}", weight(f"up_w{i}", state[p + "intermediate.dense.weight"].T)],
                             [f"up{i}"]),
            helper.make_node("BiasGelu", [f"up{i}", weight(f"up_b{i}", state[p + "intermediate.dense.bias"])],
                             [f"gelu{i}"], domain=ms),
            helper.make_node("MatMul", [f"gelu{i}", weight(f"down_w{i}", state[p + "output.dense.weight"].T)],
                             [f"down{i}"]),
            helper.make_node("SkipLayerNormalization",
                             [f"down{i}", f"a{i}", weight(f"ln2_g{i}", state[p + "output.LayerNorm.weight"]),
                              weight(f"ln2_b{i}", state[p + "output.LayerNorm.bias"]),
                              weight(f"down_b{i}", state[p + "output.dense.bias"])],
                             [f"x{i + 1}"], domain=ms, epsilon=eps),
        ]
        x = f"x{i + 1}"
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    dims = ["batch", "seq"]
    graph = helper.make_graph(
        nodes, "bertscore_encoder",
        [helper.make_tensor_value_info(n, TensorProto.INT32, dims)
         for n in ("input_ids", "segment_ids", "attention_mask")],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, [*dims, int(config.hidden_size)])],
        initializer=inits)
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ms, 1)],
                              producer_name="genevals")
    return proto.SerializeToString(), weights


class OrtEncoder:
    """Runs the fused graph: ``encoder(ids, mask)`` takes int tensors [batch, seq] and gives torch float32
    hidden states [batch, seq, hidden], like ``model(ids, attention_mask=mask)[0]``."""

    def __init__(self, model, threads: int) -> None:
        self.model, self.threads = model, threads
        self._start()

    def __getstate__(self) -> dict:
        # A session cannot be pickled (Ray sends the metric, loaded model and all, to its actors): rebuilt there.
        return {"model": self.model, "threads": self.threads}

    def __setstate__(self, state: dict) -> None:
        self.model, self.threads = state["model"], state["threads"]
        self._start()

    def _start(self) -> None:
        import onnxruntime as ort

        threads = self.threads
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Spinning worker threads burn the cores that other processes (and torch's greedy matching) need; on
        # 2 shared cores at load 4-5 a pass ran 3-9% faster without (benchmarks/RESULTS.md, BERTScore).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        graph, weights = build_graph(self.model)
        # the session uses these buffers in place: they live as long as it does
        self._weights = [ort.OrtValue.ortvalue_from_numpy(a) for a in weights.values()]
        options.add_external_initializers(list(weights), self._weights)
        self.session = ort.InferenceSession(graph, options, providers=["CPUExecutionProvider"])
        self.version = ort.__version__

    def __call__(self, ids, mask):
        import numpy as np
        import torch

        ids32 = ids.numpy().astype(np.int32)
        out = self.session.run(["hidden"], {"input_ids": ids32, "segment_ids": np.zeros_like(ids32),
                                            "attention_mask": mask.numpy().astype(np.int32)})[0]
        return torch.from_numpy(out)
