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
use crate::mcp::listen::{Listening, SessionListening};

/// An idle stream says it is alive this often (an SSE comment), so
/// proxies and clients do not take it for a dead connection.
const KEEP_ALIVE: Duration = Duration::from_secs(25);

const KEEP_ALIVE_COMMENT: &[u8] = b": keep-alive\n\n";

/// How many messages wait for a slow client before the stream's task
/// waits too.
const BACKLOG: usize = 64;

type Chunk = Result<Bytes, std::convert::Infallible>;

/// The event stream of a 2026-07-28 subscription.
pub(super) fn subscription(server: McpServer, mut listening: Listening) -> axum::body::Body {
    let (sender, receiver) = mpsc::channel::<Chunk>(BACKLOG);
    let shutdown = server.app().registry.shutdown_token().clone();
    tokio::spawn(async move {
        if !send(&sender, &listening.acknowledgement()).await {
            return;
        }
        loop {
            tokio::select! {
                next = listening.next() => match next {
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
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    if sender.send(Ok(Bytes::from_static(KEEP_ALIVE_COMMENT))).await.is_err() {
                        return;
                    }
                }
                () = sender.closed() => return,
            }
        }
        // The server is stopping: the subscription ends gracefully.
        let _ = send(&sender, &listening.ended(&server)).await;
    });
    body(receiver)
}

/// The event stream of a 2025 session; it ends with the session.
pub(super) fn session(server: &McpServer, session: Arc<Session>) -> axum::body::Body {
    let (sender, receiver) = mpsc::channel::<Chunk>(BACKLOG);
    let mut listening = SessionListening::new(server, session);
    let shutdown = server.app().registry.shutdown_token().clone();
    tokio::spawn(async move {
        let ended = listening.session().ended().clone();
        loop {
            tokio::select! {
                next = listening.next() => match next {
                    Some(lines) => {
                        for line in lines {
                            if !send(&sender, &line).await {
                                return;
                            }
                        }
                    }
                    None => return,
                },
                () = ended.cancelled() => return,
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    if sender.send(Ok(Bytes::from_static(KEEP_ALIVE_COMMENT))).await.is_err() {
                        return;
                    }
                }
                () = sender.closed() => return,
            }
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
