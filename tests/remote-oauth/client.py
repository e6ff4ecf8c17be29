"""The homelab in remote mode through the official Python MCP SDK's OAuth
client (`mcp`, pinned in tests/mcp-clients/requirements.txt, with the
`httpx2` it is built on) and a real
authorization server (issuer.mjs: oidc-provider). The SDK finds the issuer
from the server's 401 challenge and protected resource metadata, registers
itself (dynamic client registration), runs the authorization code flow with
PKCE and the resource indicator (the person's browser steps are played by
`BrowserStandIn`), and lists and calls the homelab's tools with the JWT
access token it gets. Then the same real tokens, bent: each refused with its
challenge, and nothing runs. Started by run.sh with HOMELAB_URL and ISSUER.
"""

import asyncio
import base64
import json
import os
import sys
from urllib.parse import parse_qs, urlsplit

import httpx2 as httpx
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

REDIRECT_URI = "http://127.0.0.1:1/callback"
READS = {"lab_hosts_audit", "lab_hosts_list", "lab_hosts_probe", "lab_uptime"}
WRITES = {"lab_hosts_add", "lab_hosts_remove", "lab_hosts_retire"}


class MemoryStorage:
    """The SDK's token storage, in memory; the test reads the token back."""

    def __init__(self):
        self.tokens = None
        self.client_info = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


class BrowserStandIn:
    """What a person's browser does with the authorization URL: follows
    the authorization server's redirects (its login and consent are
    automated) until it is sent to the client's redirect URI, whose query
    the callback hands to the SDK."""

    def __init__(self):
        self.result = None
        self.visits = 0

    async def redirect(self, url: str) -> None:
        self.visits += 1
        async with httpx.AsyncClient() as browser:
            for _ in range(10):
                response = await browser.get(url)
                location = response.headers.get("location")
                assert response.is_redirect and location, (response.status_code, response.text)
                location = str(response.url.join(location))
                if location.startswith(REDIRECT_URI):
                    query = parse_qs(urlsplit(location).query)
                    assert "code" in query, location
                    self.result = AuthorizationCodeResult(
                        code=query["code"][0],
                        state=query.get("state", [None])[0],
                        iss=query.get("iss", [None])[0],
                    )
                    return
                url = location
        raise AssertionError("the authorization server never redirected back")

    async def callback(self) -> AuthorizationCodeResult:
        assert self.result is not None
        result, self.result = self.result, None
        return result


def claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


async def main():
    url = os.environ["HOMELAB_URL"]
    issuer = os.environ["ISSUER"]
    endpoint = f"{url}/mcp"

    storage = MemoryStorage()
    browser = BrowserStandIn()
    oauth = OAuthClientProvider(
        server_url=endpoint,
        client_metadata=OAuthClientMetadata(
            client_name="portos remote-mode test",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )
    async with httpx.AsyncClient(auth=oauth, timeout=30) as http:
        async with Client(streamable_http_client(endpoint, http_client=http)) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed == READS | WRITES, sorted(listed)
            added = await client.call_tool(
                "lab_hosts_add", {"name": "nas-remote", "address": "10.0.0.7", "role": "nas"}
            )
            assert not added.is_error, added
            assert added.structured_content["state"] == "completed", added
            hosts = await client.call_tool("lab_hosts_list", {})
            names = [h["name"] for h in hosts.structured_content["result"]["hosts"]]
            assert names == ["nas-remote"], names
    assert browser.visits == 1, browser.visits

    token = storage.tokens.access_token
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header["typ"] == "at+jwt", header
    got = claims(token)
    assert got["iss"] == issuer, got
    assert got["aud"] == endpoint, got
    assert got["sub"] == "user-1", got
    assert set(got["scope"].split()) == {"lab:read", "lab:write"}, got
    print("ok - the Python SDK's OAuth client completed the flow and called the homelab's tools")

    await refusals(endpoint, token)


async def refusals(endpoint: str, token: str):
    """The real token, bent: each refused with its challenge; nothing runs."""
    add = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "lab_hosts_add",
            "arguments": {"name": "intruder", "address": "10.0.0.9", "role": "nas"},
        },
    }
    head = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
    }
    header, payload, signature = token.split(".")
    tampered_claims = claims(token) | {"scope": "lab:read lab:write admin"}
    tampered = ".".join(
        [
            header,
            base64.urlsafe_b64encode(json.dumps(tampered_claims).encode()).rstrip(b"=").decode(),
            signature,
        ]
    )
    none_header = base64.urlsafe_b64encode(b'{"alg":"none","typ":"at+jwt"}').rstrip(b"=").decode()
    cases = [
        ("no token", {}, endpoint, 401, None),
        ("claims changed after signing", {"authorization": f"Bearer {tampered}"}, endpoint, 401, "invalid_token"),
        ("alg none", {"authorization": f"Bearer {none_header}.{payload}."}, endpoint, 401, "invalid_token"),
        ("in the query string", {}, f"{endpoint}?access_token={token}", 400, "invalid_request"),
    ]
    async with httpx.AsyncClient(timeout=30) as http:
        for label, extra, target, status, error in cases:
            response = await http.post(target, json=add, headers=head | extra)
            assert response.status_code == status, (label, response.status_code, response.text)
            challenge = response.headers["www-authenticate"]
            assert challenge.startswith("Bearer ") and "resource_metadata=" in challenge, (label, challenge)
            if error:
                assert f'error="{error}"' in challenge, (label, challenge)
        listed = await http.post(
            endpoint,
            json=add | {"params": {"name": "lab_hosts_list", "arguments": {}}},
            headers=head | {"authorization": f"Bearer {token}"},
        )
        names = [h["name"] for h in listed.json()["result"]["structuredContent"]["result"]["hosts"]]
        assert names == ["nas-remote"], names
    print("ok - bent tokens are refused with their challenges and run nothing")


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
