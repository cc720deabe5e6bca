"""The source tree's version: its one owner, read by the package root, the CLI's
``--version`` (when the package is not installed), the HTTP API and the MCP server
without importing the package root."""

from __future__ import annotations

__version__ = "0.1.0"
