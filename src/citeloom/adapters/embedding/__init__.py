"""Dense embeddings: ONNX text models run with onnxruntime and ``tokenizers`` directly.

Importing this package imports nothing heavy: each module loads its libraries itself, so the
query path pays for onnxruntime and a tokenizer, never for FastEmbed, PIL or torch.
"""
