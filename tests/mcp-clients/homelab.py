"""The homelab (tests/homelab, a second server on the portos runtime) through
the official Python MCP SDK client (`mcp`, pinned in requirements.txt), over
Streamable HTTP and over stdio (`homelab --mcp-stdio`): the semantic tools
listed are exactly the homelab's granted tools (it installs no context
tools), a granted write is called, an ungranted or foreign one refused.
Started by run.sh, which provides HOMELAB_URL (a running homelab server),
HOMELAB_BIN and HOMELAB_STDIO_DATA_DIR (a data directory whose Agent Tools
settings are enabled with readLab and writeLab granted: the homelab's
own capabilities).
"""

import asyncio
import json
import os
import sys
import urllib.request

from mcp import Client, StdioServerParameters

READS = {"lab_hosts_list", "lab_hosts_probe", "lab_uptime", "lab_hosts_audit"}
WRITES = {"lab_hosts_add", "lab_hosts_remove", "lab_hosts_retire"}


def put_settings(url, actions):
    """PUT /api/settings/mcp; the next MCP request sees it."""
    body = json.dumps({"enabled": True, "actions": actions}).encode()
    request = urllib.request.Request(
        f"{url}/api/settings/mcp",
        data=body,
        method="PUT",
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 200, response.status


async def names(client):
    return {tool.name for tool in (await client.list_tools()).tools}


async def exercise(client, label, host):
    assert client.server_info.name == "Homelab Agent Tools", client.server_info
    listed = await names(client)
    assert listed == READS | WRITES, f"{label}: {sorted(listed)}"

    added = await client.call_tool(
        "lab_hosts_add", {"name": host, "address": "10.0.0.7", "role": "nas"}
    )
    assert not added.is_error, added
    result = added.structured_content
    assert result["state"] == "completed", result
    assert result["requestId"].startswith("agent-mcp:"), result
    assert result["result"]["host"]["name"] == host, result
    assert json.loads(added.content[0].text) == result

    hosts = await client.call_tool("lab_hosts_list", {"role": "nas"})
    assert not hosts.is_error, hosts
    assert [h["name"] for h in hosts.structured_content["result"]["hosts"]] == [host]

    # The schema is enforced for agents too: nothing is added.
    bad = await client.call_tool("lab_hosts_add", {"name": "not a name", "address": "10.0.0.8"})
    assert bad.is_error, bad

    uptime = await client.call_tool("lab_uptime", {})
    assert not uptime.is_error, uptime
    assert uptime.structured_content["result"]["seconds"] >= 0

    removed = await client.call_tool("lab_hosts_remove", {"name": host})
    assert not removed.is_error, removed
    assert removed.structured_content["result"]["host"]["name"] == host

    # PortOS's tools are not part of this server.
    foreign = await client.call_tool("brain_capture", {"text": "not here"})
    assert foreign.is_error, foreign
    assert foreign.content[0].text == "Unknown or ungranted tool: brain_capture"
    print(f"ok - Python SDK against the homelab over {label}")


async def main():
    url = os.environ["HOMELAB_URL"]
    endpoint = f"{url}/mcp"

    # Reads only: exactly the read tools; a write is refused by name.
    put_settings(url, {"readLab": True})
    async with Client(endpoint) as client:
        listed = await names(client)
        assert listed == READS, f"readLab only: {sorted(listed)}"
        refused = await client.call_tool("lab_hosts_add", {"name": "x", "address": "10.0.0.9"})
        assert refused.is_error, refused
        assert refused.content[0].text == "Unknown or ungranted tool: lab_hosts_add"

    put_settings(url, {"readLab": True, "writeLab": True})
    async with Client(endpoint) as client:
        await exercise(client, "Streamable HTTP", "nas-http")

    stdio = StdioServerParameters(
        command=os.environ["HOMELAB_BIN"],
        args=["--mcp-stdio", "--data-dir", os.environ["HOMELAB_STDIO_DATA_DIR"]],
    )
    async with Client(stdio) as client:
        await exercise(client, "stdio", "nas-stdio")


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
