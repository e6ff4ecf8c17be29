"""The homelab's MCP offers beyond tools, through the official Python SDK
client (`mcp` 2.x, pinned in requirements.txt) at both protocol eras
(`mode="legacy"`: the 2025 handshake; `mode="auto"`: 2026-07-28 through
`server/discover`), over Streamable HTTP and stdio: the inventory resource
and a host through the template (its name completed), the triage prompt
with the host embedded, the audit's progress, a removal the client
confirms (or refuses) through an elicitation, and the inventory's updates
heard by a subscriber (2025: `resources/subscribe` and the session's
stream; 2026-07-28: `subscriptions/listen`). Started by run.sh with
HOMELAB_URL, HOMELAB_BIN and HOMELAB_STDIO_DATA_DIR (readLab and writeLab
granted).
"""

import asyncio
import json
import os
import sys
import warnings

from mcp import Client, StdioServerParameters, types


async def add(client, name, address):
    added = await client.call_tool("lab_hosts_add", {"name": name, "address": address, "role": "nas"})
    assert not added.is_error, added


async def exercise(client, label):
    suffix = "".join(ch for ch in label if ch.isalnum()).lower()
    keep, drop = f"keep-{suffix}", f"drop-{suffix}"
    await add(client, keep, "10.0.1.1")
    await add(client, drop, "10.0.1.2")

    caps = client.server_capabilities
    assert caps.resources is not None and caps.prompts is not None, caps
    resources = (await client.list_resources()).resources
    assert [r.uri for r in resources] == ["lab://hosts"], resources
    assert resources[0].mime_type == "text/markdown"
    inventory = (await client.read_resource("lab://hosts")).contents[0]
    assert f"| {keep} | 10.0.1.1 | nas |" in inventory.text, inventory

    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["lab://hosts/{name}"], templates
    one = (await client.read_resource(f"lab://hosts/{keep}")).contents[0]
    assert json.loads(one.text)["address"] == "10.0.1.1", one
    completed = await client.complete(
        types.ResourceTemplateReference(type="ref/resource", uri="lab://hosts/{name}"),
        {"name": "name", "value": "keep-"},
    )
    assert keep in completed.completion.values, completed

    prompts = (await client.list_prompts()).prompts
    assert [p.name for p in prompts] == ["lab.triage"], prompts
    assert [(a.name, a.required) for a in prompts[0].arguments] == [("host", True), ("symptom", False)]
    triage = await client.get_prompt("lab.triage", {"host": keep, "symptom": "slow"})
    embedded = triage.messages[0].content
    assert embedded.type == "resource" and embedded.resource.uri == f"lab://hosts/{keep}", triage
    assert "slow" in triage.messages[1].content.text

    heard = []

    async def progress(done, total, message):
        heard.append((done, total))

    audited = await client.call_tool("lab_hosts_audit", {}, progress_callback=progress)
    assert not audited.is_error, audited
    assert audited.content[0].text.startswith("All "), audited
    assert heard and heard[-1][0] == heard[-1][1], heard
    assert [done for done, _ in heard] == sorted(done for done, _ in heard), heard

    print(f"ok - Python SDK reads, prompts, completes and follows progress over {label}")


async def removal(client_for, label):
    """A removal asks the person first: refused keeps the host, confirmed removes it."""
    answers = []

    async def refuse(context, params):
        answers.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": False})

    async def confirm(context, params):
        answers.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    name = "drop-" + "".join(ch for ch in label if ch.isalnum()).lower()
    async with client_for(refuse) as client:
        # Not removed: the call reports it (`ok: false` is a failed call).
        kept = await client.call_tool("lab_hosts_remove", {"name": name})
        assert kept.is_error, kept
        assert kept.structured_content["result"]["summary"].startswith("Kept"), kept
    async with client_for(confirm) as client:
        removed = await client.call_tool("lab_hosts_remove", {"name": name})
        assert removed.structured_content["result"]["host"]["name"] == name, removed
    assert len(answers) == 2 and all(name in message for message in answers), answers
    print(f"ok - Python SDK answers the removal's elicitation over {label}")


def updated_uri(message):
    """The URI of a `notifications/resources/updated`, else None."""
    notification = getattr(message, "root", message)
    if getattr(notification, "method", None) != "notifications/resources/updated":
        return None
    return str(notification.params.uri)


async def updates(target, mode, label):
    """Adding a host updates the inventory: a subscriber hears of it."""
    name = "sub-" + "".join(ch for ch in label if ch.isalnum()).lower()
    if mode == "legacy":
        heard = asyncio.Queue()

        async def on_message(message):
            uri = updated_uri(message)
            if uri is not None:
                heard.put_nowait(uri)

        async with Client(target, mode=mode, message_handler=on_message) as client:
            # The 2025 way, which the SDK marks deprecated for 2026 servers.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                await client.subscribe_resource("lab://hosts")
                await add(client, name, "10.0.2.1")
                uri = await asyncio.wait_for(heard.get(), 10)
                assert uri == "lab://hosts", uri
                await client.unsubscribe_resource("lab://hosts")
    else:
        async with Client(target, mode=mode) as client:
            async with client.listen(
                tools_list_changed=True, resource_subscriptions=["lab://hosts", "lab://nowhere"]
            ) as subscription:
                honored = subscription.honored
                assert honored.tools_list_changed and list(honored.resource_subscriptions) == [
                    "lab://hosts"
                ], honored
                await add(client, name, "10.0.2.1")
                event = await asyncio.wait_for(subscription.__anext__(), 10)
                assert getattr(event, "uri", None) == "lab://hosts", event
    print(f"ok - Python SDK hears the inventory's update as a subscriber over {label}")


async def main():
    endpoint = f"{os.environ['HOMELAB_URL']}/mcp"
    stdio = StdioServerParameters(
        command=os.environ["HOMELAB_BIN"],
        args=["--mcp-stdio", "--data-dir", os.environ["HOMELAB_STDIO_DATA_DIR"]],
    )
    for target, where in [(endpoint, "Streamable HTTP"), (stdio, "stdio")]:
        for mode, era in [("legacy", "2025-11-25"), ("auto", "2026-07-28")]:
            label = f"{where} at {era}"
            async with Client(target, mode=mode) as client:
                await exercise(client, label)
            await removal(
                lambda callback, target=target, mode=mode: Client(
                    target, mode=mode, elicitation_callback=callback
                ),
                label,
            )
            await updates(target, mode, label)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
