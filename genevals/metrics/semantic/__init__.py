"""BERTScore: the metric (semantic), its model and layer (bertscore_model, bertscore_ort for the ONNX forward
pass), the embedding of texts in batches with a cache (bertscore_embed), greedy matching with idf
(bertscore_match) and its settings (bertscore_settings)."""
