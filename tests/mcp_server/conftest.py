"""The MCP tests reuse the export tests' offline web: pages in several scripts about
honey bees, and a page about wasps that is considered but not cited."""

from __future__ import annotations

from ..export.conftest import bee_web  # noqa: F401  (a fixture for every MCP test)
