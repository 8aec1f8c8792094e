"""No model load reaches for the network: the built-in models never even import FastEmbed, and
FastEmbed loads every other model from local files only (ADR 0019).

Each load runs in a fresh process whose sockets refuse to connect and whose proxy settings
point nowhere, with HF_HUB_OFFLINE unset (so the hub would try if FastEmbed asked it to); the
process records every connection attempt it refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_model_choice import MINILM, fastembed_cache

pytestmark = pytest.mark.real

PROBE = """
import json, socket, sys
from pathlib import Path

attempts = []

def refuse(*args, **kwargs):
    attempts.append(repr(args)[:120])
    raise OSError("network unreachable (test)")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse

from citeloom.adapters.embedding.loader import load_embedder
from citeloom.adapters.embedding.local_models import ModelSources
from citeloom.adapters.embedding.models import available_models
from citeloom.config import Environment

model_id, cache, fastembed_cache = sys.argv[1:4]
# this user's model cache, as the settings read it: the fp32 export made once a session
sources = ModelSources(
    fastembed_caches=(Path(fastembed_cache),), model_cache=Environment().model_cache
)
vector = load_embedder(model_id, Path(cache), sources).embed_query("salt marsh sediment")
imported = "fastembed" in sys.modules
listed = available_models(Path(cache), sources)
print(json.dumps({"attempts": attempts, "fastembed": imported, "dims": len(vector),
                  "listed": listed}))
"""


def load_offline(model_id: str, cache: Path, fastembed: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k.upper() not in {"HF_HUB_OFFLINE", "NO_PROXY"}}
    unreachable = "http://127.0.0.1:9"
    env |= {"HTTP_PROXY": unreachable, "HTTPS_PROXY": unreachable, "ALL_PROXY": unreachable}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, model_id, str(cache), str(fastembed)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "model_id", ["fastembed/all-MiniLM-L6-v2", "fastembed/all-MiniLM-L6-v2-fp32"]
)
def test_a_built_in_model_loads_without_fastembed_or_the_network(model_id, tmp_path):
    fastembed = tmp_path / "fastembed"
    fastembed.mkdir()
    seen = load_offline(model_id, tmp_path / "cache", fastembed)
    assert seen["attempts"] == []
    assert seen["fastembed"] is False  # neither imported nor asked for anything
    assert seen["dims"] == 384
    assert any(line.startswith(model_id + " (built in") for line in seen["listed"])


def test_a_fastembed_model_loads_from_its_cache_without_the_network(fp32_embedder, tmp_path):
    cache = fastembed_cache(tmp_path / "fastembed", fp32_embedder.onnx_path)
    seen = load_offline(MINILM, tmp_path / "cache", cache)
    assert seen["attempts"] == []
    assert seen["fastembed"] is True and seen["dims"] == 384
    assert any(line.startswith(MINILM + " (") for line in seen["listed"])
