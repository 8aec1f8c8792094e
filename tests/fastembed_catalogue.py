"""FastEmbed's catalogue of text models, as citeloom keeps a copy of it (not collected by pytest).

citeloom never imports FastEmbed at run time (a second of imports, and it would download), yet
it must know where FastEmbed keeps each model's files and how it pools them. So the part of the
catalogue citeloom can run (models pooled by their first token or by the mean) is kept in
``src/citeloom/resources/fastembed_text_models.json``; ``tests/unit/test_model_catalogue.py``
holds that copy to the installed FastEmbed. After upgrading FastEmbed, regenerate it with::

    .venv/bin/python -m tests.fastembed_catalogue \\
        > src/citeloom/resources/fastembed_text_models.json
"""

from __future__ import annotations

import json
from typing import Any


def catalogue_from_fastembed() -> dict[str, Any]:
    import fastembed
    from fastembed.text.onnx_embedding import OnnxTextEmbedding
    from fastembed.text.pooled_embedding import PooledEmbedding
    from fastembed.text.pooled_normalized_embedding import PooledNormalizedEmbedding

    # each class lists only its own models; the class says how they are pooled
    classes = (
        (OnnxTextEmbedding, "cls"),
        (PooledEmbedding, "mean"),
        (PooledNormalizedEmbedding, "mean"),
    )
    models = []
    for cls, pooling in classes:
        for description in cls._list_supported_models():
            models.append(
                {
                    "model": description.model,
                    "hf": description.sources.hf,
                    "model_file": description.model_file,
                    "additional_files": list(description.additional_files or []),
                    "dim": description.dim,
                    "pooling": pooling,
                    "license": description.license,
                }
            )
    return {
        "source": f"fastembed {fastembed.__version__} (Apache-2.0), TextEmbedding catalogue",
        "models": sorted(models, key=lambda m: m["model"].lower()),
    }


if __name__ == "__main__":
    print(json.dumps(catalogue_from_fastembed(), indent=1))
