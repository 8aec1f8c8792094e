"""[qdrant] shard_number, replication_factor and write_consistency_factor reach the server
when a collection is created. QdrantClient(":memory:") ignores them, so the call is checked."""

from __future__ import annotations

from typing import Any

import pytest

from citeloom import bootstrap
from citeloom.config import load_settings
from citeloom.domain.errors import ConfigError

pytestmark = pytest.mark.real


class RecordingClient:
    """The local client, recording how collections are created."""

    def __init__(self) -> None:
        from qdrant_client import QdrantClient

        self._client = QdrantClient(":memory:")
        self.created: list[dict[str, Any]] = []

    def create_collection(self, name: str, **kwargs: Any) -> Any:
        self.created.append({"name": name, **kwargs})
        return self._client.create_collection(name, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def test_cluster_placement_is_passed_on_collection_creation(tmp_path):
    config = tmp_path / "citeloom.toml"
    config.write_text(
        '[qdrant]\nurl = "http://qdrant-node1:6333"\nshard_number = 3\n'
        "replication_factor = 2\nwrite_consistency_factor = 1\n",
        encoding="utf-8",
    )
    settings = load_settings(config)
    index = bootstrap.index(settings)
    client = RecordingClient()
    index.engine.client = client  # type: ignore[attr-defined]  # the configured adapter, local engine
    index.ensure_collection("proj-a", "m", 4, project="a")
    index.ensure_collection("proj-a", "m", 4, project="a")  # exists: not created again
    assert len(client.created) == 1
    created = client.created[0]
    assert (created["shard_number"], created["replication_factor"]) == (3, 2)
    assert created["write_consistency_factor"] == 1
    assert index.collection_info("proj-a").embed_model == "m"  # the collection works


def test_without_placement_the_servers_defaults_apply(tmp_path):
    config = tmp_path / "citeloom.toml"
    config.write_text('[qdrant]\nurl = "http://localhost:6333"\n', encoding="utf-8")
    index = bootstrap.index(load_settings(config))
    client = RecordingClient()
    index.engine.client = client  # type: ignore[attr-defined]
    index.ensure_collection("proj-a", "m", 4, project="a")
    assert not {"shard_number", "replication_factor", "write_consistency_factor"} & set(
        client.created[0]
    )


@pytest.mark.parametrize(
    ("keys", "named"),
    [
        ("shard_number = 0", "qdrant.shard_number"),
        ("replication_factor = 1\nwrite_consistency_factor = 2", "write_consistency_factor"),
    ],
)
def test_bad_placement_values_are_named(tmp_path, keys, named):
    config = tmp_path / "citeloom.toml"
    config.write_text(f"[qdrant]\n{keys}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=named):
        load_settings(config)
