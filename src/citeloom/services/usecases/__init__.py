"""The use cases, one module each: its request model, its response model and its handler,
named together by a ``UseCase`` (``base``). Each handler is given the process's
``Dependencies`` (``dependencies``, built once by ``bootstrap.application``) and returns the
response every entry point prints: ``citeloom X --json``, HTTP and MCP alike.

Nothing is imported here: a command imports only the use case it runs.
"""
