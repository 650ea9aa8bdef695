"""The OpenAPI schema is valid and documents every endpoint."""

import pytest
from django.urls import get_resolver
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema


@pytest.mark.django_db
def test_schema_is_valid_openapi_3():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")


@pytest.mark.django_db
def test_every_api_endpoint_is_in_the_schema():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    documented = set(schema["paths"])
    resolver = get_resolver()
    api = next(p for p in resolver.url_patterns if str(p.pattern) == "api/")
    routes = {
        "/api/" + str(p.pattern).replace("<str:", "{").replace("<int:", "{").replace(">", "}").replace("{pk}", "{id}")
        for p in api.url_patterns
        if getattr(p, "name", None) and p.name not in {"schema", "docs", "redoc", "redoc_bundle", "index"}
    }
    assert routes == documented


@pytest.mark.django_db
def test_schema_and_docs_are_served_without_a_cdn(client):
    assert client.get("/api/schema/").status_code == 200
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    assert b"/static/drf_spectacular_sidecar/" in docs.content
    assert b"cdn." not in docs.content and b"unpkg" not in docs.content
    redoc = client.get("/api/redoc/")
    assert b"fonts.googleapis" not in redoc.content and b'<html lang="en">' in redoc.content
    bundle = client.get("/api/redoc/redoc.standalone.js")
    assert bundle.status_code == 200 and b"Redoc" in bundle.content and b"cdn.redoc.ly" not in bundle.content


@pytest.mark.django_db
def test_schema_speaks_to_users_and_links_back_to_the_site(settings):
    import json

    schema = SchemaGenerator().get_schema(request=None, public=True)
    text = json.dumps(schema)
    for internal in ("fast_method", "per-request work", "DRF", "CSRF", "registry.lookup", "orjson"):
        assert internal not in text, internal
    assert f"]({settings.SITE_URL}/urn/)" in schema["info"]["description"]
    lookup = schema["paths"]["/api/lookup/"]["get"]
    assert "`valid` is true only for a URN of a registered SNID" in lookup["description"]


@pytest.mark.django_db
def test_site_links_to_the_api_docs(client):
    assert 'href="/api/docs/"' in client.get("/urn/").content.decode()


@pytest.mark.django_db
def test_schema_types_the_resolvers_and_their_status():
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]
    assert components["Snid"]["properties"]["resolvers"]["items"] == {"$ref": "#/components/schemas/ResolverStatus"}
    assert components["Version"]["properties"]["resolvers"]["items"] == {
        "$ref": "#/components/schemas/DeclaredResolver"
    }
    status = components["ResolverStatus"]["properties"]
    assert {"status", "last_checked_at", "last_http_code", "last_latency_ms", "template"} <= set(status)
    assert components["ResolverStatusEnum"]["enum"] == ["unknown", "up", "failing", "down"]
    assert not [name for name in components if name.startswith("Status") and name.endswith("Enum")]
