"""Accounts: names compared folded (names), how each account came to be (models), sign-up and its purge (services).

The pages are registry.views.accounts; sign-in with identity providers is registry.identity.
"""
