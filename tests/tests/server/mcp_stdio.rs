//! `portos --mcp-stdio`: the same MCP methods, tools and grants over
//! newline-delimited JSON-RPC on stdin/stdout, with logs on stderr only.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

use portos_tests::portos_command;
use serde_json::{Value, json};

struct Stdio_ {
    child: Child,
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
}

impl Stdio_ {
    fn start(data_dir: &std::path::Path) -> Stdio_ {
        let mut child = portos_command()
            .arg("--mcp-stdio")
            .arg("--data-dir")
            .arg(data_dir)
            .args(test_postgres::database_args(data_dir))
            .env("RUST_LOG", "info")
            .env_remove("PORTOS_PASSWORD")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("portos --mcp-stdio starts");
        let input = child.stdin.take();
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Stdio_ {
            child,
            input,
            output,
        }
    }

    fn send_line(&mut self, line: &str) {
        let input = self.input.as_mut().expect("stdin is open");
        writeln!(input, "{line}").expect("write");
        input.flush().expect("flush");
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.output.read_line(&mut line).expect("read");
        serde_json::from_str(&line)
            .unwrap_or_else(|error| panic!("stdout carries only JSON-RPC, got {line:?}: {error}"))
    }

    fn ask(&mut self, message: &Value) -> Value {
        self.send_line(&message.to_string());
        self.read()
    }

    fn call(&mut self, name: &str, arguments: &Value) -> Value {
        let answer = self.ask(&json!({"jsonrpc": "2.0", "id": name, "method": "tools/call", "params": {"name": name, "arguments": arguments}}));
        answer["result"].clone()
    }
}

impl Drop for Stdio_ {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn enable(data_dir: &std::path::Path, settings: &Value) {
    let store = portos_tests::open_store(data_dir);
    store
        .run_blocking(|connection| {
            portos_server::settings::set_json(
                connection,
                portos_server::settings::AGENT_CONTEXT,
                settings,
            )
        })
        .expect("stored");
}

#[test]
fn methods_tools_and_grants_over_stdio() {
    let data_dir = tempfile::tempdir().expect("temp dir");
    let mut mcp = Stdio_::start(data_dir.path());

    let answer = mcp.ask(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "stdio-test", "version": "1"}}}));
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(answer["result"]["serverInfo"]["name"], "PortOS Agent Tools");

    // A notification gets no answer: the next line answers the ping.
    mcp.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
    assert_eq!(
        mcp.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );

    // Disabled (the default): calls are refused as results.
    let refused = mcp.call("context_profile", &json!({}));
    assert_eq!(refused["isError"], true);
    assert_eq!(
        refused["content"][0]["text"],
        "Agent context is disabled or invalid."
    );

    // Settings are read live from the store the server shares.
    enable(
        data_dir.path(),
        &json!({"enabled": true, "actions": {"readPortos": true}}),
    );
    let list = mcp.ask(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.contains(&"search_context") && names.contains(&"time_now"),
        "{names:?}"
    );
    let profile = mcp.call("context_profile", &json!({}));
    assert_eq!(profile["structuredContent"]["actions"]["readPortos"], true);
    let now = mcp.call("time_now", &json!({}));
    assert_eq!(now["structuredContent"]["state"], "completed", "{now}");
    assert!(
        now["structuredContent"]["requestId"]
            .as_str()
            .is_some_and(|id| id.starts_with("agent-mcp:"))
    );
    let ungranted = mcp.call("brain_capture", &json!({"text": "x"}));
    assert_eq!(
        ungranted["content"][0]["text"],
        "Unknown or ungranted tool: brain_capture"
    );

    // JSON-RPC errors.
    mcp.send_line("{oops");
    assert_eq!(mcp.read()["error"]["code"], -32700);
    mcp.send_line(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
    assert_eq!(mcp.read()["error"]["code"], -32600);
    assert_eq!(
        mcp.ask(&json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover"}))["error"]["code"],
        -32601
    );
    assert_eq!(
        mcp.ask(
            &json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"cursor": "1"}})
        )["error"]["code"],
        -32602
    );

    // End of input ends the process cleanly.
    drop(mcp.input.take());
    let status = mcp.child.wait().expect("exit");
    assert!(status.success(), "{status}");
}

/// MCP 2026-07-28 over stdio: no handshake, no headers; each message's own
/// `_meta` says its revision, so both eras share one process.
#[test]
fn revision_2026_07_28_over_stdio() {
    let data_dir = tempfile::tempdir().expect("temp dir");
    enable(
        data_dir.path(),
        &json!({"enabled": true, "actions": {"readPortos": true}}),
    );
    let mut stdio = Stdio_::start(data_dir.path());
    let meta = |version: &str| {
        json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    };

    // `server/discover` is answered as the very first message.
    let discovered = stdio.ask(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
        "params": {"_meta": meta("2026-07-28")}}),
    );
    assert_eq!(
        discovered["result"]["resultType"], "complete",
        "{discovered}"
    );
    assert_eq!(
        discovered["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );

    let called = stdio.ask(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "time_now", "arguments": {}, "_meta": meta("2026-07-28")}}));
    assert_eq!(called["result"]["resultType"], "complete", "{called}");
    assert_eq!(called["result"]["structuredContent"]["state"], "completed");

    let unsupported = stdio.ask(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
        "params": {"_meta": meta("v999.0.0")}}));
    assert_eq!(unsupported["error"]["code"], -32022, "{unsupported}");
    assert_eq!(
        unsupported["error"]["data"]["supported"],
        json!(["2026-07-28"])
    );
    assert_eq!(unsupported["id"], 3);

    let removed = stdio.ask(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping",
        "params": {"_meta": meta("2026-07-28")}}));
    assert_eq!(removed["error"]["code"], -32601, "{removed}");

    // A 2025 message in the same process is served the 2025 way.
    let ping = stdio.ask(&json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}));
    assert_eq!(ping["result"], json!({}), "{ping}");
}
