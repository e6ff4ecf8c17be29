"""Agent Tools MCP through the official Python SDK client (`mcp`, pinned in
requirements.txt), over Streamable HTTP and over stdio (`portos --mcp-stdio`):
initialize (the client probes `server/discover` first and falls back),
list tools, call a context tool and a granted semantic tool, see an
ungranted one refused. Started by run.sh (see client.mjs for the variables).
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters

EXPECTED = ["search_context", "get_context", "list_context", "resolve_navigation", "context_profile", "time_now"]


async def exercise(target, label):
    async with Client(target) as client:
        tools = (await client.list_tools()).tools
        names = [tool.name for tool in tools]
        for name in EXPECTED:
            assert name in names, f"{label}: {name} is listed: {names}"
        assert "brain_capture" not in names, f"{label}: writePortos is not granted"

        profile = await client.call_tool("context_profile", {})
        assert not profile.is_error, profile
        assert profile.structured_content["actions"]["readPortos"] is True

        found = await client.call_tool("search_context", {"query": "openapi"})
        assert not found.is_error, found
        assert found.structured_content["total"] >= 1, found.structured_content

        now = await client.call_tool("time_now", {})
        assert not now.is_error, now
        assert now.structured_content["state"] == "completed", now.structured_content
        assert now.structured_content["requestId"].startswith("agent-mcp:")
        assert json.loads(now.content[0].text) == now.structured_content

        refused = await client.call_tool("brain_capture", {"text": "not allowed"})
        assert refused.is_error, refused
        assert refused.content[0].text == "Unknown or ungranted tool: brain_capture"
    print(f"ok - Python SDK over {label}")


async def main():
    url = os.environ["PORTOS_URL"]
    await exercise(f"{url}/api/agent-context/mcp", "Streamable HTTP")
    stdio = StdioServerParameters(
        command=os.environ["PORTOS_BIN"],
        args=["--mcp-stdio", "--data-dir", os.environ["PORTOS_STDIO_DATA_DIR"]],
    )
    await exercise(stdio, "stdio")


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
