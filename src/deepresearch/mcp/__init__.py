"""The MCP server (Model Context Protocol, the official ``mcp`` SDK): research as tools
for MCP clients. ``server.build_server`` registers the tools over a ``Backend``: ``local``
runs research in this process with the local data folder (``deepresearch mcp``, stdio);
``service`` goes through the HTTP service's job queue, per API key (``/mcp`` in
``deepresearch serve``). The SDK is the optional extra ``deepresearch[mcp]``."""

MISSING_SDK = "the MCP server needs the mcp package"
INSTALL_HINT = "install it with: pip install 'deepresearch[mcp]'"
