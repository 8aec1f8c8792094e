"""docker-compose.yml is a valid Compose file (against the Compose specification's JSON schema,
as check-jsonschema ships it: no network) with one node and a three-node cluster profile."""

from __future__ import annotations

import json
from importlib import resources

import pytest
import yaml

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def compose_schema() -> dict:
    """compose-spec/compose-spec schema/compose-spec.json (Apache-2.0), vendored by
    check-jsonschema with its licence (builtin_schemas/vendor/licenses/LICENSE.compose-spec)."""
    vendor = resources.files("check_jsonschema.builtin_schemas.vendor")
    return json.loads((vendor / "compose-spec.json").read_text(encoding="utf-8"))


def validator():
    """The validator of the schema's own draft (2020-12; an older draft would ignore the
    keywords beside each $ref)."""
    from jsonschema.validators import validator_for

    schema = compose_schema()
    return validator_for(schema)(schema)


def test_the_compose_file_follows_the_compose_specification(compose):
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator().iter_errors(compose)
    ]
    assert errors == []


def test_the_schema_catches_a_broken_compose_file(compose):
    broken = json.loads(json.dumps(compose))
    broken["services"]["qdrant"]["ports"] = "6333"  # a string where a list belongs
    broken["services"]["qdrant-node1"]["profile"] = ["cluster"]  # misspelt key
    assert len(list(validator().iter_errors(broken))) >= 2


def test_one_node_by_default_and_a_three_node_cluster_profile(compose):
    services = compose["services"]
    assert "profiles" not in services["qdrant"]  # `docker compose up -d` starts it alone
    nodes = {name: s for name, s in services.items() if "cluster" in s.get("profiles", [])}
    assert sorted(nodes) == ["qdrant-node1", "qdrant-node2", "qdrant-node3"]
    for name, node in nodes.items():
        assert node["environment"]["QDRANT__CLUSTER__ENABLED"] == "true"
        assert f"http://{name}:6335" in node["command"]  # its own peer address
        if name != "qdrant-node1":
            assert node["command"][node["command"].index("--bootstrap") + 1] == (
                "http://qdrant-node1:6335"
            )
    host_ports = [p.split(":")[0] for s in services.values() for p in s.get("ports", [])]
    assert len(host_ports) == len(set(host_ports))  # both setups can run side by side
    assert {v for s in nodes.values() for v in s["volumes"]} <= {
        f"{name}:/qdrant/storage" for name in nodes
    }
