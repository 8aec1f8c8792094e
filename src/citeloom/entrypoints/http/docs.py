"""``/docs`` and the OpenAPI document: Swagger UI served from files installed with citeloom,
so it works offline and no page the server sends fetches anything from another machine; the
examples (``entrypoints/examples.py``) put in as written."""

from __future__ import annotations

import copy
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from citeloom.entrypoints.examples import EXAMPLES
from citeloom.entrypoints.http.errors import ERROR_STATUSES

# Swagger UI's script, style and icon, served from the swagger-ui-bundle-v2 package
DOCS_ASSETS = "/docs/assets"


def mount_docs(app: FastAPI) -> None:
    """Swagger UI at ``/docs`` from the files of the swagger-ui-bundle-v2 package rather than
    FastAPI's default CDN: offline (citeloom's promise) a CDN page stays blank, and online it
    would tell a third party who reads the docs. Swagger UI 5 is needed to render OpenAPI 3.1,
    which FastAPI writes. Its online validator badge is off: it would send the schema out."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.staticfiles import StaticFiles
    from swagger_ui_bundle import swagger_ui_path

    app.mount(DOCS_ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon-32x32.png",
            swagger_ui_parameters={"validatorUrl": None},
        )


def keep_example_nulls(app: FastAPI) -> None:
    """Each model's examples (``examples.EXAMPLES``) and each error status's
    (``ERROR_STATUSES``) put into the OpenAPI document as written: FastAPI writes its document
    without any null, so an example given to it would lack keys the response always has
    (``"suggested_page": null``)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = generate()
            for name, component in document.get("components", {}).get("schemas", {}).items():
                if name in EXAMPLES:
                    component["examples"] = copy.deepcopy(EXAMPLES[name])
            for operation in (op for item in document["paths"].values() for op in item.values()):
                for code, response in operation.get("responses", {}).items():
                    if code.isdigit() and int(code) in ERROR_STATUSES:
                        example = ERROR_STATUSES[int(code)].example()
                        response["content"]["application/json"]["example"] = example
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]
