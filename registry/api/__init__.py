"""The JSON API (Django REST framework), documented by an OpenAPI schema at /api/schema/."""
