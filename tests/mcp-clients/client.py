"""Agent Tools MCP through the official Python SDK client (`mcp` 2.x, pinned
in requirements.txt), over Streamable HTTP and over stdio (`portos
--mcp-stdio`), at each protocol era the client can speak: its default
(`auto`: it probes `server/discover`, which this server answers, so it
settles on 2026-07-28), pinned to 2026-07-28 (no probe), and `legacy` (the
2025 `initialize` handshake). Each lists tools, calls a context tool and a
granted semantic tool, and sees an ungranted one refused. Started by run.sh
(see client.mjs for the variables).
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters

EXPECTED = ["search_context", "get_context", "list_context", "resolve_navigation", "context_profile", "time_now"]


MODES = [("auto", "2026-07-28"), ("2026-07-28", "2026-07-28"), ("legacy", "2025-11-25")]


async def exercise(target, label, mode, expected_version):
    async with Client(target, mode=mode) as client:
        assert client.protocol_version == expected_version, (label, mode, client.protocol_version)
        if mode != "2026-07-28":  # a pinned client does not ask who answers
            assert client.server_info.name == "PortOS Agent Tools", client.server_info
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
    print(f"ok - Python SDK over {label}, mode {mode}: {expected_version}")


async def main():
    url = os.environ["PORTOS_URL"]
    stdio = StdioServerParameters(
        command=os.environ["PORTOS_BIN"],
        args=["--mcp-stdio", "--data-dir", os.environ["PORTOS_STDIO_DATA_DIR"]],
    )
    for mode, version in MODES:
        await exercise(f"{url}/api/agent-context/mcp", "Streamable HTTP", mode, version)
        await exercise(stdio, "stdio", mode, version)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
