"""HTML views, one module per area of the site."""
