"""The resolver engine, with no Django: resolver URL templates (templates), filling them for a URN
(expand), what resolving one URN costs (cost), the bounded review of a resolver set (review), resolvers
as lines of text (lines) and where the registry's own requests may go (addresses).

The resolution room (registry.resolution) stores resolvers and checks their health with it; the
interchange format, documents and the checklist read resolvers with it.
"""
