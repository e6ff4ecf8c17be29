//! `<command> --mcp-stdio`: the same MCP methods, tools and grants as
//! `POST /api/agent-context/mcp`, as newline-delimited JSON-RPC on standard
//! input and output, so a desktop MCP client can launch the server as a
//! command.
//! Standard output carries only JSON-RPC messages; logs go to stderr.
//!
//! The transport checks of the HTTP endpoint (loopback, Origin, Host) have
//! no meaning here: whoever can start the process already is the local user.
//! The settings still apply: while Agent Tools is disabled every
//! `tools/call` answers `isError` ("MCP is disabled or invalid.", under
//! the application's title for the endpoint).

use std::sync::Arc;

use std::io::Write;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::builder::ServerBuilder;
use crate::jobs::TakeOver;
use crate::mcp::listen::{Listener, SessionListening};
use crate::mcp::notify::{Follow, Notifier};
use crate::mcp::server::{CallMeta, ConfigReads, McpServer};
use crate::mcp::session::Session;
use crate::mcp::telemetry::{self as mcp_telemetry, McpObservation, Transport};
use crate::mcp::{jsonrpc, modern};
use portos_core::telemetry::in_span;

/// `--mcp-stdio`: builds the server and runs [`serve`] on a runtime of its
/// own.
pub(crate) fn run(builder: ServerBuilder) -> std::process::ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "cannot start the runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let traces = match crate::serve::install_telemetry(&builder, runtime.handle()) {
        Ok(traces) => traces,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "{message}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(async move {
        let app = builder.build().map_err(|error| error.to_string())?;
        serve(app).await
    });
    traces.shutdown();
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            tracing::error!(%message, "--mcp-stdio stopped");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Serves `app` until standard input closes.
pub(crate) async fn serve(app: App) -> Result<(), String> {
    let line_limit = app.config.body_limit;
    let registry = app.registry.clone();
    tracing::info!("{} MCP on stdio", app.identity.name);
    // On a shared database this process holds the jobs it starts (it does
    // not take over others': it lives only as long as its client), and
    // hears what the servers change.
    app.jobs.keep_leases(TakeOver::No);
    crate::cluster::follow_other_servers(&app);
    let jobs = app.jobs.clone();
    let server = Arc::new(McpServer::new(app, ConfigReads::Live));
    // The process is the client's one session: what it sets (its log
    // level) holds until it hangs up.
    let session = Session::detached();

    let (sender, mut receiver) = mpsc::channel::<String>(64);
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(mut line) = receiver.recv().await {
            line.push('\n');
            if stdout.write_all(line.as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });

    let closing = CancellationToken::new();
    let mut session_stream = false;
    let mut input = BufReader::new(tokio::io::stdin());
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let mut line = Vec::new();
        let read = (&mut input)
            .take(
                u64::try_from(line_limit)
                    .unwrap_or(u64::MAX)
                    .saturating_add(1),
            )
            .read_until(b'\n', &mut line)
            .await
            .map_err(|error| format!("cannot read stdin: {error}"))?;
        if read == 0 {
            break;
        }
        if line.len() > line_limit && line.last() != Some(&b'\n') {
            // Too long: answer once, then skip the rest of the line.
            skip_line(&mut input).await?;
            let error = jsonrpc::error_response(
                &serde_json::Value::Null,
                jsonrpc::INVALID_REQUEST,
                "Message is larger than the configured limit",
            );
            let _ = sender.send(error.to_string()).await;
            continue;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        let reply = match jsonrpc::parse(text) {
            Err(rejected) => {
                let _ = sender.send(rejected.to_response().to_string()).await;
                continue;
            }
            Ok(message) => message,
        };
        // 2026-07-28 subscriptions, and a 2025 session's notifications
        // outside calls, run beside the requests until the client hangs up.
        if let Some(listener) = listener(&server, &reply, &session, &mut session_stream).await {
            match listener {
                Err(response) => {
                    let _ = sender.send(response).await;
                }
                Ok(listener) => {
                    let (server, sender, closing) =
                        (Arc::clone(&server), sender.clone(), closing.clone());
                    tasks.spawn(pump(server, listener, sender, closing));
                }
            }
            if matches!(&reply, jsonrpc::Message::Request { method, .. } if method == "subscriptions/listen")
            {
                continue;
            }
        }
        let server = server.clone();
        let sender = sender.clone();
        // Notifications go ahead of the response, as lines of their own;
        // when the writer falls behind, they are dropped, never the answer.
        let notes = sender.clone();
        let meta = CallMeta {
            follow: Follow::of(&reply),
            client_answers: session.answered_kinds(),
            session: Some(Arc::clone(&session)),
            notifier: Some(Notifier::new(move |line| {
                let _ = notes.try_send(line);
            })),
            ..CallMeta::default()
        };
        tasks.spawn(async move {
            let observation = McpObservation::start(
                &reply,
                mcp_telemetry::meta_version(&reply),
                Transport::Stdio,
            );
            let unobserved = tracing::Span::none();
            let span = observation
                .as_ref()
                .map_or(&unobserved, McpObservation::span);
            // stdio has no headers: a message's own `_meta` says its era.
            let response = if modern::message_is_modern(&reply) {
                in_span(span, server.handle_modern(reply, None, &meta))
                    .await
                    .map(|(_, response)| response)
            } else {
                in_span(span, server.handle(reply, &meta)).await
            };
            if let Some(observation) = observation {
                observation.finish(&server.app().metrics.mcp, response.as_deref());
            }
            if let Some(response) = response {
                let _ = sender.send(response).await;
            }
        });
    }
    // The client is gone: nobody listens any more.
    closing.cancel();
    while tasks.join_next().await.is_some() {}
    drop(sender);
    let _ = writer.await;
    registry.shutdown_token().cancel();
    if let Err(error) = jobs.release_leases().await {
        tracing::warn!(%error, "cannot hand this process's jobs over");
    }
    Ok(())
}

async fn skip_line<R: tokio::io::AsyncBufRead + Unpin>(input: &mut R) -> Result<(), String> {
    loop {
        let buffer = input
            .fill_buf()
            .await
            .map_err(|error| format!("cannot read stdin: {error}"))?;
        if buffer.is_empty() {
            return Ok(());
        }
        if let Some(position) = buffer.iter().position(|b| *b == b'\n') {
            input.consume(position + 1);
            return Ok(());
        }
        let length = buffer.len();
        input.consume(length);
    }
}

/// The stream `message` opens beside the requests, if any: a 2026-07-28
/// `subscriptions/listen` (`Err` carries its refusal to answer), or a 2025
/// session's list changes and resource updates (begun once, at its
/// `initialize`).
async fn listener(
    server: &Arc<McpServer>,
    message: &jsonrpc::Message,
    session: &Arc<Session>,
    session_stream: &mut bool,
) -> Option<Result<Listener, String>> {
    let jsonrpc::Message::Request { id, method, params } = message else {
        return None;
    };
    match method.as_str() {
        "subscriptions/listen" if modern::message_is_modern(message) => Some(
            server
                .listen_request(id.clone(), params.as_ref(), None)
                .await
                .map(Listener::Subscription)
                .map_err(|(_, response)| response),
        ),
        "initialize" if !*session_stream => {
            *session_stream = true;
            Some(Ok(Listener::Session(SessionListening::new(
                server,
                Arc::clone(session),
            ))))
        }
        _ => None,
    }
}

/// Writes a listener's messages as lines until the client hangs up or the
/// server stops (a subscription then gets its final response).
async fn pump(
    server: Arc<McpServer>,
    mut listener: Listener,
    sender: mpsc::Sender<String>,
    closing: CancellationToken,
) {
    let shutdown = server.app().registry.shutdown_token().clone();
    if let Some(opening) = listener.opening()
        && sender.send(opening).await.is_err()
    {
        return;
    }
    loop {
        tokio::select! {
            next = listener.next() => match next {
                Some(lines) => for line in lines {
                    if sender.send(line).await.is_err() {
                        return;
                    }
                },
                None => break,
            },
            () = shutdown.cancelled() => break,
            () = closing.cancelled() => return,
        }
    }
    if let Some(last) = listener.closing(&server) {
        let _ = sender.send(last).await;
    }
}
