import pytest

from registry import demo


@pytest.fixture
def demo_registry(db):
    """The demo registry: example and fdc registered, img/urn-5 submitted, newsml sent back."""
    accounts = demo.demo_accounts()
    demo.demo_load(accounts["applicant"][0], accounts["editor"][0])
    return {role: user for role, (user, _, _) in accounts.items()}
