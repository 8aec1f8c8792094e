"""The index on Qdrant: ``core.QdrantIndex`` implements the ``Index`` port once, over an
engine that supplies the few primitives the two ways of running Qdrant differ in
(``engine.Engine``): ``edge_engine`` (a Qdrant Edge shard embedded in this process, with its
lock protocol in ``edge_locks``) and ``server_engine`` (a server through qdrant-client).
Filters are planned and rendered once (``filter_plan``); ADR 0013 explains the split."""
