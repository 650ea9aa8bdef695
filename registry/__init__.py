"""The urn:ogf subnamespace registry: project settings and the Django app in one package."""
