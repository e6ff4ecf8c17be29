//! The events' Socket.IO transport (feature `socketio`): socketioxide on
//! the HTTP port. Clients join the tools room with `…:subscribe` and leave
//! it with `…:unsubscribe`; everything else is the server's to send.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use socketioxide::SocketIo;
use socketioxide::extract::SocketRef;

use super::{Relay, ToolEventNames, ToolsSubscribed, ToolsUnsubscribed};

/// The Socket.IO layer the HTTP service is wrapped in, on the same port.
pub(crate) type SocketLayer = socketioxide::layer::SocketIoLayer;

/// The server's side of its Socket.IO clients.
#[derive(Clone, Debug)]
pub(super) struct Sockets {
    io: SocketIo,
}

impl Sockets {
    /// The layer to mount and the handle to send with. Joins of the tools
    /// room are counted in `joins` and told to `relay` (the other servers
    /// on a shared database hear of them).
    pub(super) fn new(
        names: &Arc<ToolEventNames>,
        joins: &Arc<AtomicU64>,
        relay: &Arc<Relay>,
    ) -> (SocketLayer, Sockets) {
        let (layer, io) = SocketIo::new_layer();
        let (joins, joined, on_names) = (joins.clone(), relay.clone(), names.clone());
        io.ns("/", move |socket: SocketRef| {
            let (joins, joined, names) = (joins.clone(), joined.clone(), on_names.clone());
            let leaving = names.clone();
            socket.on(names.subscribe, move |socket: SocketRef| {
                socket.join(names.room);
                // Counted after the join: an observer that reads 0 cannot
                // have missed a member.
                joins.fetch_add(1, Ordering::SeqCst);
                // The other servers hear of it (shared database).
                joined.joined.notify_one();
                let _ = socket.emit(
                    names.subscribed,
                    &ToolsSubscribed {
                        room: names.room.to_owned(),
                    },
                );
                std::future::ready(())
            });
            socket.on(leaving.unsubscribe, move |socket: SocketRef| {
                socket.leave(leaving.room);
                let _ = socket.emit(
                    leaving.unsubscribed,
                    &ToolsUnsubscribed {
                        room: leaving.room.to_owned(),
                    },
                );
                std::future::ready(())
            });
            std::future::ready(())
        });
        (layer, Sockets { io })
    }

    /// Whether `room` has members: free when nobody joined since it was
    /// last seen empty (`joins` is 0); otherwise a look-up, which resets
    /// the count when empty.
    pub(super) fn room_has_members(&self, room: &'static str, joins: &AtomicU64) -> bool {
        let seen = joins.load(Ordering::SeqCst);
        if seen == 0 {
            return false;
        }
        if self.io.to(room).sockets().is_empty() {
            // Empty now; unless someone joined since `seen` was read.
            let _ = joins.compare_exchange(seen, 0, Ordering::SeqCst, Ordering::SeqCst);
            return false;
        }
        true
    }

    /// Sends `payload` as `event` to the clients in `room`, or to every
    /// connected client. Nobody listening is not an error.
    pub(super) async fn send<T: Serialize + ?Sized>(
        &self,
        room: Option<Cow<'static, str>>,
        event: &'static str,
        payload: &T,
    ) {
        let _ = match room {
            Some(room) => self.io.to(room).emit(event, payload).await,
            None => self.io.emit(event, payload).await,
        };
    }
}
