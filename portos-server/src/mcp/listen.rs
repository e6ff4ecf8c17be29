//! What a client hears of changes outside its own requests: that the
//! tools, prompts or resources it may list changed (grants, settings,
//! saved recipes: [`Announcement::Lists`]), and that a resource it
//! subscribed to changed ([`Announcement::ResourceUpdated`]).
//!
//! - 2026-07-28: `subscriptions/listen` opens a stream (the POST's event
//!   stream over HTTP) that starts with `notifications/subscriptions/
//!   acknowledged`, naming what the server agreed to send of what the client
//!   asked for, and carries only those; every notification names the
//!   subscription in `_meta["io.modelcontextprotocol/subscriptionId"]`. A
//!   resource is subscribed to only if the client may read it.
//! - 2025 revisions: a session's `GET` event stream carries the list changes
//!   and the updates of the resources it subscribed to with
//!   `resources/subscribe`.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use super::server::McpServer;
use crate::agent_tools::session::Session;
use crate::events::Announcement;

/// The `_meta` key naming the subscription a notification belongs to.
pub(crate) const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// What a client asked to hear (a `SubscriptionFilter`), or what the
/// server agreed to send of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
    /// Resources whose updates it hears.
    pub uris: Vec<String>,
}

/// The most resources one subscription names.
const MAX_SUBSCRIBED: usize = 100;

impl Filter {
    /// Reads a `subscriptions/listen` request's `notifications`: an object
    /// of the filter's fields, each of its type.
    pub(crate) fn parse(notifications: Option<&Value>) -> Result<Filter, String> {
        let Some(fields) = notifications.and_then(Value::as_object) else {
            return Err("subscriptions/listen needs a notifications object".to_owned());
        };
        let mut filter = Filter::default();
        for (key, value) in fields {
            let flag = || {
                value
                    .as_bool()
                    .ok_or_else(|| format!("notifications.{key} must be a boolean"))
            };
            match key.as_str() {
                "toolsListChanged" => filter.tools = flag()?,
                "promptsListChanged" => filter.prompts = flag()?,
                "resourcesListChanged" => filter.resources = flag()?,
                "resourceSubscriptions" => {
                    let uris = value
                        .as_array()
                        .filter(|uris| uris.len() <= MAX_SUBSCRIBED)
                        .ok_or_else(|| {
                            format!(
                                "notifications.resourceSubscriptions must be an array of at most {MAX_SUBSCRIBED} URIs"
                            )
                        })?;
                    for uri in uris {
                        let uri = uri.as_str().ok_or_else(|| {
                            "notifications.resourceSubscriptions holds URIs (strings)".to_owned()
                        })?;
                        if !filter.uris.iter().any(|seen| seen == uri) {
                            filter.uris.push(uri.to_owned());
                        }
                    }
                }
                // Notification types of later revisions: not agreed to.
                _ => {}
            }
        }
        Ok(filter)
    }

    /// The filter as the acknowledgement writes it: the agreed types only.
    fn to_json(&self) -> Value {
        let mut fields = Map::new();
        for (key, on) in [
            ("toolsListChanged", self.tools),
            ("promptsListChanged", self.prompts),
            ("resourcesListChanged", self.resources),
        ] {
            if on {
                fields.insert(key.to_owned(), Value::Bool(true));
            }
        }
        if !self.uris.is_empty() {
            fields.insert("resourceSubscriptions".to_owned(), json!(self.uris));
        }
        Value::Object(fields)
    }

    /// The notifications `announcement` makes for this filter, as
    /// `(method, params)`.
    pub(crate) fn notifications(&self, announcement: &Announcement) -> Vec<(&'static str, Value)> {
        match announcement {
            Announcement::Lists => [
                (self.tools, "notifications/tools/list_changed"),
                (self.prompts, "notifications/prompts/list_changed"),
                (self.resources, "notifications/resources/list_changed"),
            ]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, method)| (method, json!({})))
            .collect(),
            Announcement::ResourceUpdated(uri) if self.uris.iter().any(|s| **s == **uri) => {
                vec![("notifications/resources/updated", json!({ "uri": &**uri }))]
            }
            Announcement::ResourceUpdated(_) => Vec::new(),
        }
    }
}

/// One notification's text; `subscription` tags it (2026-07-28).
pub(crate) fn notification(
    method: &str,
    mut params: Value,
    subscription: Option<&Value>,
) -> String {
    if let (Some(id), Some(params)) = (subscription, params.as_object_mut()) {
        params.insert("_meta".to_owned(), json!({ SUBSCRIPTION_ID_KEY: id }));
    }
    json!({ "jsonrpc": "2.0", "method": method, "params": params }).to_string()
}

/// An open 2026-07-28 subscription.
#[derive(Debug)]
pub(crate) struct Listening {
    /// The `subscriptions/listen` request's id (its final response's).
    id: Value,
    /// The id every notification of it carries: the request's own.
    subscription: Value,
    agreed: Filter,
    changes: broadcast::Receiver<Announcement>,
}

impl Listening {
    /// The first message: what the server agreed to send.
    pub(crate) fn acknowledgement(&self) -> String {
        notification(
            "notifications/subscriptions/acknowledged",
            json!({ "notifications": self.agreed.to_json() }),
            Some(&self.subscription),
        )
    }

    /// The next notifications (none for a change it did not ask about);
    /// `None` once announcements end (the server is stopping).
    pub(crate) async fn next(&mut self) -> Option<Vec<String>> {
        let announcement = match self.changes.recv().await {
            Ok(announcement) => announcement,
            // Fell behind: whatever it missed, its lists may have changed.
            Err(broadcast::error::RecvError::Lagged(_)) => Announcement::Lists,
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        Some(
            self.agreed
                .notifications(&announcement)
                .into_iter()
                .map(|(method, params)| notification(method, params, Some(&self.subscription)))
                .collect(),
        )
    }

    /// The response that ends the subscription gracefully.
    pub(crate) fn ended(&self, server: &McpServer) -> String {
        let mut meta = server.result_meta();
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(SUBSCRIPTION_ID_KEY.to_owned(), self.subscription.clone());
        }
        super::jsonrpc::result_response(
            &self.id,
            json!({ "resultType": "complete", "_meta": meta }),
        )
        .to_string()
    }
}

/// A 2025 session's notifications outside calls: the list changes of what
/// the server offers, and the updates of the resources it subscribed to.
#[derive(Debug)]
pub(crate) struct SessionListening {
    session: Arc<Session>,
    offers: Filter,
    changes: broadcast::Receiver<Announcement>,
}

impl SessionListening {
    pub(crate) fn new(server: &McpServer, session: Arc<Session>) -> SessionListening {
        SessionListening {
            session,
            offers: server.offered_lists(),
            changes: server.app().events.listen(),
        }
    }

    /// The next notifications; `None` once announcements end.
    pub(crate) async fn next(&mut self) -> Option<Vec<String>> {
        let announcement = match self.changes.recv().await {
            Ok(announcement) => announcement,
            Err(broadcast::error::RecvError::Lagged(_)) => Announcement::Lists,
            Err(broadcast::error::RecvError::Closed) => return None,
        };
        let filter = Filter {
            uris: self.session.subscriptions(),
            ..self.offers.clone()
        };
        Some(
            filter
                .notifications(&announcement)
                .into_iter()
                .map(|(method, params)| notification(method, params, None))
                .collect(),
        )
    }
}

/// A listener of either kind, as the transports pump it: its first message,
/// its notifications as they come, and how it ends.
#[derive(Debug)]
pub(crate) enum Listener {
    Subscription(Listening),
    Session(SessionListening),
}

impl Listener {
    /// What it sends first (a subscription's acknowledgement).
    pub(crate) fn opening(&self) -> Option<String> {
        match self {
            Listener::Subscription(listening) => Some(listening.acknowledgement()),
            Listener::Session(_) => None,
        }
    }

    /// The next notifications; `None` once announcements end.
    pub(crate) async fn next(&mut self) -> Option<Vec<String>> {
        match self {
            Listener::Subscription(listening) => listening.next().await,
            Listener::Session(listening) => listening.next().await,
        }
    }

    /// Fires when it ends on its own (a 2025 session that ended).
    pub(crate) fn ended(&self) -> CancellationToken {
        match self {
            Listener::Subscription(_) => CancellationToken::new(),
            Listener::Session(listening) => listening.session.ended().clone(),
        }
    }

    /// What it sends last when the server stops (a subscription's final
    /// response).
    pub(crate) fn closing(&self, server: &McpServer) -> Option<String> {
        match self {
            Listener::Subscription(listening) => Some(listening.ended(server)),
            Listener::Session(_) => None,
        }
    }
}

impl McpServer {
    /// The lists this server offers a listener (tools always; resources
    /// and prompts when it has any).
    pub(crate) fn offered_lists(&self) -> Filter {
        let offers = self.primitive_capabilities();
        Filter {
            tools: true,
            prompts: offers.contains_key("prompts"),
            resources: offers.contains_key("resources"),
            uris: Vec::new(),
        }
    }

    /// Opens the subscription a checked `subscriptions/listen` asks for:
    /// list changes of what this server offers, and updates of the
    /// resources the client may read.
    pub(super) async fn open_listen(&self, id: Value, requested: Filter) -> Listening {
        // Subscribed first: nothing announced from here on is missed.
        let changes = self.app().events.listen();
        let offers = self.offered_lists();
        let mut agreed = Filter {
            tools: requested.tools,
            prompts: requested.prompts && offers.prompts,
            resources: requested.resources && offers.resources,
            uris: Vec::new(),
        };
        for uri in requested.uris {
            if self.may_read(&uri).await {
                agreed.uris.push(uri);
            }
        }
        Listening {
            subscription: id.clone(),
            id,
            agreed,
            changes,
        }
    }

    /// Whether the client may read the resource at `uri` (it reads it: a
    /// subscription is governed as a read).
    pub(super) async fn may_read(&self, uri: &str) -> bool {
        let mut params = Map::new();
        params.insert("uri".to_owned(), Value::from(uri));
        self.resources_read(Some(&params), &Value::Null, super::primitives::Era::Modern)
            .await
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_is_read_strictly() {
        let filter = Filter::parse(Some(&json!({
            "toolsListChanged": true,
            "promptsListChanged": false,
            "resourceSubscriptions": ["a://x", "a://x", "a://y"],
            "laterThings": true
        })))
        .expect("valid");
        assert_eq!(
            filter,
            Filter {
                tools: true,
                prompts: false,
                resources: false,
                uris: vec!["a://x".to_owned(), "a://y".to_owned()],
            }
        );
        assert!(Filter::parse(None).is_err());
        assert!(Filter::parse(Some(&json!({"toolsListChanged": "yes"}))).is_err());
        assert!(Filter::parse(Some(&json!({"resourceSubscriptions": [1]}))).is_err());
        let many: Vec<String> = (0..=MAX_SUBSCRIBED).map(|n| format!("a://{n}")).collect();
        assert!(Filter::parse(Some(&json!({ "resourceSubscriptions": many }))).is_err());
    }

    #[test]
    fn only_what_was_agreed_is_sent_and_each_is_tagged() {
        let filter = Filter {
            prompts: true,
            uris: vec!["a://x".to_owned()],
            ..Filter::default()
        };
        let lists = filter.notifications(&Announcement::Lists);
        assert_eq!(
            lists.iter().map(|(method, _)| *method).collect::<Vec<_>>(),
            ["notifications/prompts/list_changed"]
        );
        assert!(
            filter
                .notifications(&Announcement::ResourceUpdated(Arc::from("a://y")))
                .is_empty()
        );
        let updated = filter.notifications(&Announcement::ResourceUpdated(Arc::from("a://x")));
        let (method, params) = updated[0].clone();
        let line: Value =
            serde_json::from_str(&notification(method, params, Some(&json!(7)))).expect("JSON");
        assert_eq!(line["params"]["uri"], "a://x");
        assert_eq!(line["params"]["_meta"][SUBSCRIPTION_ID_KEY], 7);
        assert_eq!(
            filter.to_json(),
            json!({"promptsListChanged": true, "resourceSubscriptions": ["a://x"]})
        );
    }
}
