"""``/docs`` of a real ``citeloom serve`` rendered by a real headless browser with no way off
the machine: the page must list every route from what the server itself sends."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import write_config
from tests.integration.test_serve import REFERENCES, start, stop

pytestmark = pytest.mark.real
ROUTES = ("/query", "/answer", "/check", "/passage", "/file", "/projects", "/health")
# CI sets CITELOOM_REQUIRE_BROWSER=1 so that a missing Chromium fails instead of skipping.
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = bool(os.environ.get("CITELOOM_REQUIRE_BROWSER"))


def browser() -> str:
    if BROWSER is None:
        if REQUIRED:
            pytest.fail("CITELOOM_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return BROWSER


def render(url: str, folder: Path) -> tuple[str, list[str]]:
    """The page's DOM once its scripts have run, and every URL the browser asked for.

    Every host name but 127.0.0.1 resolves to nothing, so a page that needs a CDN renders
    blank here as it would offline, whatever network the machine has. The background
    networking flags keep Chromium itself from calling its vendor's hosts. Virtual time
    stands still while a request is pending, so a loaded machine only makes this slower."""
    net_log = folder / "net-log.json"
    done = subprocess.run(
        [
            browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={folder / 'profile'}",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            f"--log-net-log={net_log}",
            "--virtual-time-budget=10000",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, fetched_by_page(net_log, url)


def fetched_by_page(net_log: Path, page: str) -> list[str]:
    """The URLs the page asked for, from a Chromium net log: the page itself and every request
    it initiated. Chromium's own calls home (initiator "not an origin") are left out: they are
    the browser's, not the page's, and the host rules stop them anyway."""
    log = json.loads(net_log.read_text(encoding="utf-8"))
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    origin = re.match(r"\w+://[^/]+", page)
    urls = set()
    for event in log["events"]:
        params = event.get("params") or {}
        if event["type"] != start_job or "url" not in params:
            continue
        if params.get("request_type") == "main frame" or params.get("initiator") == (
            origin and origin.group()
        ):
            urls.add(params["url"])
    return sorted(urls)


def test_docs_render_every_route_offline_in_a_real_browser(tmp_path):
    browser()
    config = write_config(tmp_path, REFERENCES)
    server, url = start(config)
    try:
        dom, urls = render(f"{url}/docs", tmp_path)
    finally:
        err = stop(server)
    assert "Traceback" not in err
    shown = set(re.findall(r'class="opblock-summary-path"[^>]*data-path="([^"]+)"', dom))
    assert set(ROUTES) <= shown, f"routes rendered: {sorted(shown)}; DOM: {dom[:2000]}"
    assert urls and all(u.startswith(f"{url}/") for u in urls), urls  # nothing off the machine
