//! A finished call announced across servers (`…:called` of the tools mount): a subscriber hears of every call the
//! cluster finishes, whichever server ran it. Announcing each call to every
//! server would cost each call a notification (and PostgreSQL serialises
//! notifying commits), so a server announces its finished calls only while
//! another says its tools room has members: such a server says so every
//! [`HEARTBEAT`] and at once when someone joins; the others believe it for
//! [`BELIEVED`].

use std::time::Duration;

use crate::app::App;
use crate::store::StoreError;
use crate::store::changes::{self, Change};

/// How often a server with tools-room members says so.
const HEARTBEAT: Duration = Duration::from_secs(3);
/// How long the others take it to hold.
const BELIEVED: Duration = Duration::from_secs(10);

/// Starts announcing (finished calls, while others watch; watching, while
/// this server's room has members).
pub(super) fn start(app: &App) {
    let (outbox, mut finished) = tokio::sync::mpsc::unbounded_channel::<String>();
    app.events.relay().start(outbox);
    let store = app.store.clone();
    tokio::spawn(async move {
        while let Some(request_id) = finished.recv().await {
            let announced = store
                .run(move |c| changes::announce(c, &Change::Called(request_id)))
                .await;
            if let Err(error) = announced {
                tracing::debug!(%error, "cannot announce a finished call");
            }
        }
    });
    let (events, store) = (app.events.clone(), app.store.clone());
    tokio::spawn(async move {
        loop {
            tokio::select! {
                () = tokio::time::sleep(HEARTBEAT) => {}
                () = events.relay().joined.notified() => {}
            }
            if events.tools_room_has_members() {
                let said = store.run(|c| changes::announce(c, &Change::Watching)).await;
                if let Err(error) = said {
                    tracing::debug!(%error, "cannot say this server's tools room has members");
                }
            }
        }
    });
}

/// Another server's tools room has members.
pub(super) fn others_watch(app: &App) {
    let until = jiff::Timestamp::now()
        .as_millisecond()
        .saturating_add(i64::try_from(BELIEVED.as_millis()).unwrap_or(i64::MAX));
    app.events.relay().others_watch_until(until);
}

/// Another server finished the call `request_id`: this server's tools room
/// hears of it as of its own calls.
pub(super) async fn called_elsewhere(app: &App, request_id: String) -> Result<(), StoreError> {
    if !app.events.tools_room_has_members() {
        return Ok(());
    }
    // Kept before it was announced: read at once.
    if let Ok(result) = app.registry.retained(&request_id).await {
        app.events.called_elsewhere(&result).await;
    }
    Ok(())
}
