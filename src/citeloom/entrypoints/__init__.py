"""Entry points: the Typer CLI (``cli``) and the MCP server (``mcp_server`` serving the
tools of ``mcp_tools``)."""
