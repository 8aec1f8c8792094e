"""Entry points: the Typer CLI and the MCP server."""
