"""The page's files as served: from the package, with a strict Content-Security-Policy,
nothing from the internet, no markup built from strings, and the Ask form's choices the
same as the API's. No browser needed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import get_args

import pytest
from fastapi.testclient import TestClient

from deepresearch.search.registry import PROVIDER_NAMES
from deepresearch.service.app import create_app
from deepresearch.service.web import WEB_DIR
from deepresearch.settings import load_settings
from deepresearch.settings_values import Depth

ASSETS = sorted(p for p in WEB_DIR.iterdir() if p.suffix in {".html", ".js", ".css", ".svg"})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = load_settings(
        data_dir=tmp_path / "data", database_url=f"sqlite:///{tmp_path / 's.db'}"
    )
    with TestClient(create_app(settings, start_workers=False)) as test_client:
        yield test_client


def test_the_page_and_its_assets_are_served_with_a_strict_policy(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "connect-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["referrer-policy"] == "no-referrer"
    for name in ("app.js", "api.js", "sse.js", "watch.js", "report.js", "dom.js"):
        response = client.get(f"/web/{name}")
        assert response.status_code == 200, name
        assert "javascript" in response.headers["content-type"], name
    assert client.get("/web/app.css").headers["content-type"].startswith("text/css")
    # the package's Python files are not assets
    assert client.get("/web/__init__.py").status_code == 404
    assert client.get("/web/../app.py").status_code == 404
    assert "/" not in client.get("/openapi.json").json()["paths"]


def test_nothing_is_fetched_from_elsewhere_and_no_markup_is_built_from_strings() -> None:
    assert {p.name for p in ASSETS} >= {"index.html", "app.js", "app.css", "sse.js"}
    html = (WEB_DIR / "index.html").read_text()
    for ref in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert ref.startswith(("web/", "#")), ref  # relative to the service: works under a prefix
    for path in ASSETS:
        source = path.read_text()
        # no URL to anywhere (the SVG's XML namespace is a name, not a fetch)
        urls = [u for u in re.findall(r"https?://[^\s\"')]+", source) if "w3.org/2000/svg" not in u]
        assert not urls, (path.name, urls)
        assert "@import" not in source and "url(" not in source, path.name
        if path.suffix == ".js":
            for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
                assert sink not in source, (path.name, sink)
            assert "new Function" not in source and "localStorage" not in source, path.name


def test_the_ask_form_offers_what_the_api_accepts() -> None:
    html = (WEB_DIR / "index.html").read_text()

    def options(select_id: str) -> list[str]:
        block = re.search(rf'<select id="{select_id}".*?</select>', html, re.S)
        assert block, select_id
        return [v for v in re.findall(r'<option value="([^"]*)"', block.group(0)) if v]

    assert options("depth") == list(get_args(Depth))
    assert options("search") == list(PROVIDER_NAMES)
    assert options("recipe") == []  # filled from GET /v1/recipes; "" lets the service choose
    # the page's model check is the API's
    model_pattern = re.search(r"const MODEL_PATTERN = /(.*)/;", (WEB_DIR / "app.js").read_text())
    assert model_pattern
    from deepresearch.service.schemas import ResearchOptions

    field = ResearchOptions.model_fields["model"]
    assert any(getattr(item, "pattern", None) == model_pattern.group(1) for item in field.metadata)
