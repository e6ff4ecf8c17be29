//! What the server tells a client while it answers one of its requests:
//! `notifications/progress` for a request that named a `progressToken`,
//! `notifications/message` for the log levels the client asked for (a 2025
//! session's `logging/setLevel`, a 2026-07-28 request's own
//! `io.modelcontextprotocol/logLevel`). They travel ahead of the response:
//! on the POST's event stream over HTTP, as lines before it over stdio.

use std::sync::Arc;

use portos_core::{CallChannel, LogLevel, LogSink, Progress, ProgressSink};
use serde_json::{Map, Value, json};

use super::jsonrpc::Message;
use super::request_meta::RequestMeta;

/// The `_meta` key of a 2026-07-28 request naming the least severe level
/// of log messages it wants.
pub(crate) const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";

/// Sends one JSON-RPC message (its text) to the client, ahead of the
/// response; best effort (a client that went away hears nothing).
#[derive(Clone)]
pub(crate) struct Notifier(Arc<dyn Fn(String) + Send + Sync>);

impl Notifier {
    pub(crate) fn new(send: impl Fn(String) + Send + Sync + 'static) -> Notifier {
        Notifier(Arc::new(send))
    }

    pub(crate) fn send(&self, message: &Value) {
        (self.0)(message.to_string());
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notifier")
    }
}

/// What a request asks to hear while it runs: its progress token, and the
/// log level it names itself (2026-07-28).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Follow {
    pub progress_token: Option<Value>,
    pub log_level: Option<LogLevel>,
}

impl Follow {
    /// Read from a `tools/call` or `prompts/get` request's `_meta` (other
    /// methods report nothing while they run).
    pub(crate) fn of(message: &Message) -> Follow {
        let meta = match message {
            Message::ToolCall { call, .. } => match &call.meta {
                Some(RequestMeta::Other(meta)) => Some(meta),
                _ => None,
            },
            Message::Request { method, params, .. }
                if method == "tools/call" || method == "prompts/get" =>
            {
                params
                    .as_ref()
                    .and_then(|params| params.get("_meta"))
                    .and_then(Value::as_object)
            }
            _ => None,
        };
        meta.map_or_else(Follow::default, Follow::from_meta)
    }

    fn from_meta(meta: &Map<String, Value>) -> Follow {
        Follow {
            // A token is a string or a number (anything else is ignored).
            progress_token: meta
                .get("progressToken")
                .filter(|token| token.is_string() || token.is_i64() || token.is_u64())
                .cloned(),
            log_level: meta
                .get(LOG_LEVEL_KEY)
                .and_then(Value::as_str)
                .and_then(LogLevel::from_name),
        }
    }
}

/// The channel a call's adapter reports on, for a client that follows it
/// through `notifier`: progress when it gave a token, log messages of
/// `log_level` and above when it asked for them.
pub(crate) fn channel(
    notifier: &Notifier,
    progress_token: Option<&Value>,
    log_level: Option<LogLevel>,
) -> CallChannel {
    CallChannel {
        progress: progress_token.map(|token| {
            Arc::new(ProgressToClient {
                notifier: notifier.clone(),
                token: token.clone(),
            }) as Arc<dyn ProgressSink>
        }),
        log: log_level.map(|least| {
            Arc::new(LogToClient {
                notifier: notifier.clone(),
                least,
            }) as Arc<dyn LogSink>
        }),
        input: None,
    }
}

struct ProgressToClient {
    notifier: Notifier,
    token: Value,
}

impl ProgressSink for ProgressToClient {
    fn report(&self, progress: Progress) {
        let mut params = Map::new();
        params.insert("progressToken".to_owned(), self.token.clone());
        params.insert("progress".to_owned(), json!(progress.done));
        if let Some(total) = progress.total {
            params.insert("total".to_owned(), json!(total));
        }
        if let Some(message) = progress.message {
            params.insert("message".to_owned(), Value::String(message));
        }
        self.notifier.send(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": params,
        }));
    }
}

struct LogToClient {
    notifier: Notifier,
    least: LogLevel,
}

impl LogSink for LogToClient {
    fn log(&self, level: LogLevel, message: &str) {
        if level < self.least {
            return;
        }
        self.notifier.send(&json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": { "level": level.as_str(), "data": message },
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn a_channel_sends_progress_and_the_levels_asked_for() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let notifier = {
            let sent = Arc::clone(&sent);
            Notifier::new(move |line| sent.lock().expect("not poisoned").push(line))
        };
        let token = json!("t-1");
        let channel = channel(&notifier, Some(&token), Some(LogLevel::Info));
        if let Some(progress) = &channel.progress {
            progress.report(Progress {
                done: 50.0,
                total: Some(100.0),
                message: None,
            });
        }
        if let Some(log) = &channel.log {
            log.log(LogLevel::Debug, "too quiet");
            log.log(LogLevel::Warning, "heard");
        }
        let sent: Vec<Value> = sent
            .lock()
            .expect("not poisoned")
            .iter()
            .map(|line| serde_json::from_str(line).expect("JSON"))
            .collect();
        assert_eq!(
            sent,
            [
                json!({"jsonrpc": "2.0", "method": "notifications/progress",
                       "params": {"progressToken": "t-1", "progress": 50.0, "total": 100.0}}),
                json!({"jsonrpc": "2.0", "method": "notifications/message",
                       "params": {"level": "warning", "data": "heard"}}),
            ]
        );
    }

    #[test]
    fn a_request_names_what_it_follows_in_its_meta() {
        let message = super::super::jsonrpc::parse(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7,"io.modelcontextprotocol/logLevel":"debug"}}}"#,
        )
        .expect("a message");
        assert_eq!(
            Follow::of(&message),
            Follow {
                progress_token: Some(json!(7)),
                log_level: Some(LogLevel::Debug)
            }
        );
        let plain = super::super::jsonrpc::parse(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        )
        .expect("a message");
        assert_eq!(Follow::of(&plain), Follow::default());
    }
}
