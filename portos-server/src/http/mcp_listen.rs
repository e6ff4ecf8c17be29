//! The long-lived event streams of MCP clients that listen for changes
//! (`crate::mcp::listen`): a 2026-07-28 `subscriptions/listen` POST's
//! stream, and a 2025 session's `GET` stream. Each is fed by its own task,
//! which ends when the client goes away (the body is dropped), when the
//! server stops (a 2026 subscription then gets its final response), or
//! when the 2025 session ends.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use crate::agent_tools::session::Session;
use crate::mcp::McpServer;
use crate::mcp::listen::{Listener, Listening, SessionListening};

/// An idle stream says it is alive this often (an SSE comment), so
/// proxies and clients do not take it for a dead connection.
const KEEP_ALIVE: Duration = Duration::from_secs(25);

const KEEP_ALIVE_COMMENT: &[u8] = b": keep-alive\n\n";

/// How many messages wait for a slow client before the stream's task
/// waits too.
const BACKLOG: usize = 64;

type Chunk = Result<Bytes, std::convert::Infallible>;

/// The event stream of a 2026-07-28 subscription.
pub(super) fn subscription(server: McpServer, listening: Listening) -> axum::body::Body {
    stream(server, Listener::Subscription(listening))
}

/// The event stream of a 2025 session; it ends with the session.
pub(super) fn session(server: McpServer, session: Arc<Session>) -> axum::body::Body {
    let listening = SessionListening::new(&server, session);
    stream(server, Listener::Session(listening))
}

/// The listener's messages as an event stream, fed by a task of its own.
fn stream(server: McpServer, mut listener: Listener) -> axum::body::Body {
    let (sender, receiver) = mpsc::channel::<Chunk>(BACKLOG);
    let shutdown = server.app().registry.shutdown_token().clone();
    let ended = listener.ended();
    tokio::spawn(async move {
        if let Some(opening) = listener.opening()
            && !send(&sender, &opening).await
        {
            return;
        }
        loop {
            tokio::select! {
                next = listener.next() => match next {
                    Some(lines) => {
                        for line in lines {
                            if !send(&sender, &line).await {
                                return;
                            }
                        }
                    }
                    None => break,
                },
                () = shutdown.cancelled() => break,
                () = ended.cancelled() => return,
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    if sender.send(Ok(Bytes::from_static(KEEP_ALIVE_COMMENT))).await.is_err() {
                        return;
                    }
                }
                () = sender.closed() => return,
            }
        }
        // The server is stopping: a subscription ends gracefully.
        if let Some(closing) = listener.closing(&server) {
            let _ = send(&sender, &closing).await;
        }
    });
    body(receiver)
}

/// Sends one JSON-RPC message as an event; `false` once the client is gone.
async fn send(sender: &mpsc::Sender<Chunk>, line: &str) -> bool {
    sender
        .send(Ok(Bytes::from(format!("data: {line}\n\n"))))
        .await
        .is_ok()
}

fn body(receiver: mpsc::Receiver<Chunk>) -> axum::body::Body {
    axum::body::Body::from_stream(futures::stream::unfold(
        receiver,
        |mut receiver| async move { receiver.recv().await.map(|chunk| (chunk, receiver)) },
    ))
}
