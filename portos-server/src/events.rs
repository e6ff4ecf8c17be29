//! Socket.IO on the same port (socketioxide). Every event is declared with
//! `#[portos_event]` on its payload type, so the event inventory and the
//! AsyncAPI document list exactly what this module emits and handles.
//!
//! The transport is the `socketio` feature's (`sockets`). Without it the
//! events are declared and documented all the same, and what reaches
//! clients another way still does (MCP listeners: [`Events::listen`]; a
//! job's event stream reads the store); only the Socket.IO layer is gone
//! (the Socket.IO layer adds nothing, and nobody is ever in a room).
//!
//! The runtime's events live under the `tools` mount (PortOS places it at
//! `cos:tools`): clients join the tools room with `…:subscribe`; they are
//! then told when a tool call finishes and when the catalog may have
//! changed (so they refresh it, with `If-None-Match`).

#[cfg(feature = "socketio")]
mod sockets;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use portos_core::inventory::PortosEvent;
use portos_core::{Authority, ResultObserver, ToolResult, ToolState, portos_event};
use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::{Notify, broadcast, mpsc};

use crate::mounts::Mounts;
pub(crate) use sockets::SocketLayer;
use sockets::Sockets;

/// A tool call finished. The result itself is not broadcast: read it from
/// `GET {mount.path}/calls/{requestId}` with your own credentials.
#[portos_event(mount = "tools", name = "called", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCalled {
    pub request_id: String,
    /// The canonical tool name.
    pub name: String,
    pub state: ToolState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Remote mode (docs/remote.md): whom the caller's access token names
    /// (its `sub`). Never set otherwise, so it is in the documents of a
    /// server in remote mode only (`crate::remote::openapi`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub subject: Option<String>,
}

impl ToolCalled {
    /// The event of `result`, made for `subject` (see [`ToolCalled::subject`]).
    pub fn of(result: &ToolResult, subject: Option<&str>) -> ToolCalled {
        ToolCalled {
            request_id: result.request_id.clone(),
            name: result.name.clone(),
            state: result.state,
            error: result.error.clone(),
            subject: subject.map(str::to_owned),
        }
    }
}

/// A durable job changed (it started, reported progress, waits for a
/// confirmation, or ended). Read it, with your own credentials, from
/// `GET {mount.path}/jobs/{jobId}`.
#[portos_event(mount = "tools", name = "job", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobChanged {
    pub job_id: String,
    /// `working`, `progress`, `input_required`, `completed`, `failed` or
    /// `cancelled`.
    pub event: String,
    /// The event's place in the job's stream (its SSE `id`).
    pub seq: i64,
}

/// The tool catalog may have changed (grants or settings): read it again.
#[portos_event(
    mount = "tools",
    name = "catalog-changed",
    direction = "server-to-client"
)]
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CatalogChanged {
    /// What changed, e.g. `{grants.key}`.
    pub reason: String,
}

/// Ask for tool announcements (joins the `{mount.events}` room).
#[portos_event(mount = "tools", name = "subscribe", direction = "client-to-server")]
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ToolsSubscribe;

/// Stop tool announcements.
#[portos_event(mount = "tools", name = "unsubscribe", direction = "client-to-server")]
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ToolsUnsubscribe;

/// The subscription is in place.
#[portos_event(mount = "tools", name = "subscribed", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ToolsSubscribed {
    pub room: String,
}

/// The subscription has ended.
#[portos_event(mount = "tools", name = "unsubscribed", direction = "server-to-client")]
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ToolsUnsubscribed {
    pub room: String,
}

/// The Socket.IO handle the server emits through: `App::events` in a route,
/// a `Shared<Events>` parameter in a tool.
#[derive(Clone, Debug)]
pub struct Events {
    sockets: Sockets,
    /// The tools room and the runtime's tool events, under the
    /// application's place for the `tools` mount.
    names: Arc<ToolEventNames>,
    /// Where mounted application events are.
    mounts: Mounts,
    /// Joins of the tools room since it was last seen empty (0: nobody can
    /// be in it), so a finished call does not look the room up when nobody
    /// ever subscribed (the common case; the look-up cost a call about 1 %).
    tools_joins: Arc<AtomicU64>,
    /// Finished calls told to the other servers on a shared database whose
    /// tools rooms have members (`cluster::relay`).
    relay: Arc<Relay>,
    /// What MCP clients that listen for changes are told of
    /// (`subscriptions/listen`, a 2025 session's event stream).
    announcements: broadcast::Sender<Announcement>,
}

/// A change MCP clients that listen hear of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Announcement {
    /// What a principal may list (tools, resources, prompts) may have
    /// changed: grants, settings, saved recipes.
    Lists,
    /// The resource at this URI changed.
    ResourceUpdated(Arc<str>),
}

/// How many announcements a slow listener may fall behind by before it is
/// told that everything may have changed.
const ANNOUNCEMENTS_KEPT: usize = 256;

/// The runtime's tool events as this server names them (`tools` mount).
#[derive(Debug)]
struct ToolEventNames {
    /// The room of clients that asked for tool announcements: the mount's
    /// event prefix itself (`cos:tools` for PortOS).
    room: &'static str,
    called: &'static str,
    job: &'static str,
    catalog_changed: &'static str,
    // What clients say and are answered: the transport's alone.
    #[cfg(feature = "socketio")]
    subscribe: &'static str,
    #[cfg(feature = "socketio")]
    unsubscribe: &'static str,
    #[cfg(feature = "socketio")]
    subscribed: &'static str,
    #[cfg(feature = "socketio")]
    unsubscribed: &'static str,
}

impl ToolEventNames {
    fn of(mounts: &Mounts) -> ToolEventNames {
        ToolEventNames {
            room: mounts.tools().events,
            called: mounts.event_name::<ToolCalled>(),
            job: mounts.event_name::<JobChanged>(),
            catalog_changed: mounts.event_name::<CatalogChanged>(),
            #[cfg(feature = "socketio")]
            subscribe: mounts.event_name::<ToolsSubscribe>(),
            #[cfg(feature = "socketio")]
            unsubscribe: mounts.event_name::<ToolsUnsubscribe>(),
            #[cfg(feature = "socketio")]
            subscribed: mounts.event_name::<ToolsSubscribed>(),
            #[cfg(feature = "socketio")]
            unsubscribed: mounts.event_name::<ToolsUnsubscribed>(),
        }
    }
}

/// What this server knows of the other servers' tools rooms, and where
/// its finished calls go to reach them.
#[derive(Debug, Default)]
pub(crate) struct Relay {
    /// Until when (ms since the epoch) another server last said someone
    /// is in its tools room.
    others_watch_until: AtomicI64,
    /// The requestIds of finished calls, to announce (set on a shared
    /// database only).
    outbox: OnceLock<mpsc::UnboundedSender<String>>,
    /// Someone joined this server's tools room.
    pub(crate) joined: Notify,
}

impl Relay {
    pub(crate) fn others_watch_until(&self, until_ms: i64) {
        self.others_watch_until
            .fetch_max(until_ms, Ordering::SeqCst);
    }

    /// Starts relaying: finished calls go to `outbox` while others watch.
    pub(crate) fn start(&self, outbox: mpsc::UnboundedSender<String>) {
        let _ = self.outbox.set(outbox);
    }

    fn relay(&self, request_id: &str) {
        if let Some(outbox) = self.outbox.get()
            && self.others_watch_until.load(Ordering::SeqCst)
                > jiff::Timestamp::now().as_millisecond()
        {
            let _ = outbox.send(request_id.to_owned());
        }
    }
}

impl Events {
    /// The layer to mount and the handle to emit with; events under a
    /// mount take the names `mounts` gives them.
    pub(crate) fn new(mounts: &Mounts) -> (SocketLayer, Events) {
        let tools_joins = Arc::new(AtomicU64::new(0));
        let relay = Arc::new(Relay::default());
        let names = Arc::new(ToolEventNames::of(mounts));
        let (layer, sockets) = Sockets::new(&names, &tools_joins, &relay);
        (
            layer,
            Events {
                sockets,
                names,
                mounts: mounts.clone(),
                tools_joins,
                relay,
                announcements: broadcast::channel(ANNOUNCEMENTS_KEPT).0,
            },
        )
    }

    /// Announces each finished adapter run to the tools room.
    pub fn tool_observer(&self) -> ResultObserver {
        let sockets = self.sockets.clone();
        let joins = self.tools_joins.clone();
        let relay = self.relay.clone();
        let names = self.names.clone();
        Arc::new(move |result: &ToolResult, authority: &Authority| {
            relay.relay(&result.request_id);
            // Nobody listening is the common case: no task, no payload.
            if !sockets.room_has_members(names.room, &joins) {
                return;
            }
            let payload = ToolCalled::of(result, authority.subject.as_deref());
            let sockets = sockets.clone();
            let (room, called) = (names.room, names.called);
            // The observer runs inside the call; emitting must not hold it up.
            if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                runtime.spawn(async move {
                    sockets.send(Some(room.into()), called, &payload).await;
                });
            }
        })
    }

    /// Announces a job's event to the tools room: which job, what kind of
    /// event (`progress`, `state`, …) and its `seq` to read it by.
    pub fn job_changed(&self, job_id: &str, kind: &str, seq: i64) {
        if !self.tools_room_has_members() {
            return;
        }
        let payload = JobChanged {
            job_id: job_id.to_owned(),
            event: kind.to_owned(),
            seq,
        };
        let sockets = self.sockets.clone();
        let (room, job) = (self.names.room, self.names.job);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                sockets.send(Some(room.into()), job, &payload).await;
            });
        }
    }

    /// Tells this server's tools room of a call another server ran (whose
    /// caller's subject is that server's to tell).
    pub(crate) async fn called_elsewhere(&self, result: &ToolResult) {
        self.sockets
            .send(
                Some(self.names.room.into()),
                self.names.called,
                &ToolCalled::of(result, None),
            )
            .await;
    }

    pub(crate) fn relay(&self) -> &Arc<Relay> {
        &self.relay
    }

    /// Whether anyone is in the tools room (cheap when nobody ever joined).
    pub(crate) fn tools_room_has_members(&self) -> bool {
        self.sockets
            .room_has_members(self.names.room, &self.tools_joins)
    }

    /// Sends `payload` as its `#[portos_event]` to every connected client
    /// (an application's own events; the password gate already decided who
    /// is connected). Nobody listening is not an error. Sent from a write
    /// on a shared store, it goes out once the write commits.
    pub async fn emit<E: PortosEvent>(&self, payload: &E) {
        let Ok(payload) = serde_json::to_value(payload) else {
            return;
        };
        let (sockets, name) = (self.sockets.clone(), self.mounts.event_name::<E>());
        send_after_commit(async move {
            sockets.send(None, name, &payload).await;
        })
        .await;
    }

    /// Sends `payload` as its `#[portos_event]` to the clients in `room`
    /// (after the commit, as [`Events::emit`]).
    pub async fn emit_to<E: PortosEvent>(&self, room: &str, payload: &E) {
        let Ok(payload) = serde_json::to_value(payload) else {
            return;
        };
        let (sockets, room) = (self.sockets.clone(), room.to_owned());
        let name = self.mounts.event_name::<E>();
        send_after_commit(async move {
            sockets.send(Some(room.into()), name, &payload).await;
        })
        .await;
    }

    /// Tells the tools room, and MCP clients that listen, that a catalog
    /// changed (after the commit, as [`Events::emit`]).
    pub async fn catalog_changed(&self, reason: &str) {
        let payload = CatalogChanged {
            reason: reason.to_owned(),
        };
        let sockets = self.sockets.clone();
        let (room, changed) = (self.names.room, self.names.catalog_changed);
        let announcements = self.announcements.clone();
        send_after_commit(async move {
            // Nobody listening is not an error.
            let _ = announcements.send(Announcement::Lists);
            sockets.send(Some(room.into()), changed, &payload).await;
        })
        .await;
    }

    /// Tells MCP clients subscribed to the resource at `uri` that it
    /// changed (`notifications/resources/updated`; after the commit, as
    /// [`Events::emit`]). An application calls it when what a
    /// `#[portos_resource]` reads changes.
    pub async fn resource_updated(&self, uri: &str) {
        let (announcements, uri) = (self.announcements.clone(), Arc::from(uri));
        send_after_commit(async move {
            let _ = announcements.send(Announcement::ResourceUpdated(uri));
        })
        .await;
    }

    /// The announcements from now on, for an MCP client that listens.
    pub fn listen(&self) -> broadcast::Receiver<Announcement> {
        self.announcements.subscribe()
    }
}

/// Sends now, or once the write this task runs commits (`store::after_commit`).
async fn send_after_commit(announce: impl Future<Output = ()> + Send + 'static) {
    if let Some(now) = crate::store::after_commit(Box::pin(announce)) {
        now.await;
    }
}

/// Without the `socketio` feature: no transport. The layer adds nothing,
/// nobody is ever in a room, and what is sent goes nowhere.
#[cfg(not(feature = "socketio"))]
mod sockets {
    use std::borrow::Cow;
    use std::sync::Arc;
    use std::sync::atomic::AtomicU64;

    use super::{Relay, ToolEventNames};

    /// The Socket.IO layer the HTTP service is wrapped in: here one that
    /// adds nothing (the `socketio` feature's is socketioxide's).
    pub(crate) type SocketLayer = tower::layer::util::Identity;

    #[derive(Clone, Debug)]
    pub(super) struct Sockets;

    impl Sockets {
        pub(super) fn new(
            _: &Arc<ToolEventNames>,
            _: &Arc<AtomicU64>,
            _: &Arc<Relay>,
        ) -> (SocketLayer, Sockets) {
            (SocketLayer::new(), Sockets)
        }

        pub(super) fn room_has_members(&self, _: &'static str, _: &AtomicU64) -> bool {
            false
        }

        pub(super) async fn send<T: serde::Serialize + ?Sized>(
            &self,
            _: Option<Cow<'static, str>>,
            _: &'static str,
            _: &T,
        ) {
        }
    }
}
