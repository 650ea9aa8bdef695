import pytest

from registry.transparency.note import Signer


@pytest.fixture(scope="session")
def log_signer_key():
    return Signer.generate("registry.test/log")


@pytest.fixture(autouse=True)
def log_key(settings, log_signer_key):
    """Every test here signs with one test key, never the checkout's development key."""
    settings.REGISTRY_LOG_KEY = str(log_signer_key)
    return log_signer_key
