//! The `api-access` mount (by default `/api/settings/api-access`): Settings → API Access, which decides the API groups
//! under `/api/public/` that answer and what the public OpenAPI lists. The
//! application's settings observer is told of each change in its
//! transaction.

use std::collections::BTreeMap;

use crate::portos_route;
use axum::Json;
use axum::extract::State;

use super::{Body, Invalid, RouteErrors};
use crate::api_access::{API_ACCESS, ApiAccess, ApiAccessView, Exposure};
use crate::app::App;
use crate::settings;
use crate::settings::SettingsChange;
use crate::store::StoreError;
use crate::store::changes::{self, Change};

/// Why the switches were not changed.
#[derive(Debug, thiserror::Error, RouteErrors)]
enum AccessError {
    #[error(transparent)]
    #[route_error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    #[route_error(transparent)]
    Store(#[from] StoreError),
}

/// The API groups other devices may reach, and whether each is exposed.
#[portos_route(
    method = "GET",
    mount = "api-access",
    path = "",
    summary = "API Access"
)]
async fn read(State(app): State<App>) -> Json<ApiAccessView> {
    Json(app.api_access.current().describe())
}

/// Changes the switches of the groups named in the body (the others keep
/// theirs). Unknown groups, unknown keys and non-boolean values are refused
/// and nothing is stored.
#[portos_route(
    method = "PUT",
    mount = "api-access",
    path = "",
    summary = "Change API Access"
)]
async fn change(
    State(app): State<App>,
    Body(changes): Body<BTreeMap<String, Exposure>>,
) -> Result<Json<ApiAccessView>, AccessError> {
    let (cache, groups) = (app.api_access.clone(), app.exposable_apis.clone());
    let observer = app.settings_observer.clone();
    let route = app.mounts.path_of(crate::mounts::API_ACCESS);
    let outcome = app
        .store
        .run(move |connection| {
            // Read-modify-write of the stored switches (not of this server's
            // copy, which another server may just have changed), under a
            // lock, so two changes made at once on any servers both land.
            let transaction = connection.transaction()?;
            settings::lock_for_change(&transaction, API_ACCESS)?;
            let next = match ApiAccess::load(&transaction, groups.clone())?.with_changes(&changes) {
                Ok(next) => next,
                Err(message) => return Ok(Err(message)),
            };
            let described = next.describe();
            // The switches and what the observer writes commit together; the cache
            // is then read from the database, which holds this change and
            // any another server committed since.
            observer.changed(&transaction, &access_changed(&changes, route))?;
            settings::set_json(&transaction, API_ACCESS, &next.to_stored())?;
            changes::announce(&transaction, &Change::ApiAccess)?;
            transaction.commit()?;
            cache.reload(connection, groups)?;
            Ok(Ok(described))
        })
        .await?;
    Ok(Json(outcome.map_err(Invalid)?))
}

/// An API Access change as the application's settings observer is told
/// of it: each group's new switches.
fn access_changed(changes: &BTreeMap<String, Exposure>, route: &'static str) -> SettingsChange {
    let described: Vec<String> = changes
        .iter()
        .map(|(id, exposure)| {
            format!(
                "{id} {}{}",
                if exposure.exposed {
                    "exposed"
                } else {
                    "not exposed"
                },
                if exposure.require_auth {
                    ", sign-in required"
                } else {
                    ""
                }
            )
        })
        .collect();
    let summary = if described.is_empty() {
        "Saved API Access (no change)".to_owned()
    } else {
        format!("API Access: {}", described.join("; "))
    };
    SettingsChange {
        key: API_ACCESS,
        name: "API Access",
        summary,
        details: serde_json::json!({ "changes": changes }),
        method: "PUT",
        route,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use serde_json::json;

    use crate::config::Config;
    use crate::settings::{SettingsChange, SettingsObserver};
    use crate::store::StoreError;
    use crate::store::sql::Connection;
    use crate::testing::TestServer;
    use crate::{ExposableApi, ServerBuilder};

    /// Keeps what it is told; refuses every change when `refuse` is set.
    #[derive(Clone, Default)]
    struct Recorder {
        seen: Arc<Mutex<Vec<SettingsChange>>>,
        refuse: bool,
    }

    impl SettingsObserver for Recorder {
        fn changed(&self, _: &Connection, change: &SettingsChange) -> Result<(), StoreError> {
            if self.refuse {
                return Err(StoreError::Unavailable(
                    "refused by the observer".to_owned(),
                ));
            }
            self.seen.lock().expect("not poisoned").push(change.clone());
            Ok(())
        }
    }

    fn started(observer: Recorder) -> TestServer {
        let builder = ServerBuilder::new("Test", "0.0.0", Config::new("test"))
            .exposable_api(ExposableApi {
                id: "clock",
                label: "Clock",
                description: "The time.",
                prefix: "/api/public/clock/",
            })
            .on_settings_change(observer);
        TestServer::start(builder).expect("started")
    }

    #[tokio::test]
    async fn the_observer_is_told_of_each_settings_change_and_can_refuse_it() {
        let recorder = Recorder::default();
        let server = started(recorder.clone());
        let agent = server.grant_mcp(&json!({ "readPortos": true })).await;
        assert_eq!(agent.status, 200, "{}", agent.body);
        let access = server
            .put(
                "/api/settings/api-access",
                &json!({ "clock": { "exposed": true, "requireAuth": false } }),
            )
            .await;
        assert_eq!(access.status, 200, "{}", access.body);
        let seen = recorder.seen.lock().expect("not poisoned").clone();
        assert_eq!(
            seen.iter()
                .map(|change| (change.key, change.method, change.route))
                .collect::<Vec<_>>(),
            [
                ("agentContext", "PUT", "/api/settings/mcp"),
                ("apiAccess", "PUT", "/api/settings/api-access"),
            ]
        );
        assert_eq!(seen[0].summary, "Saved the Agent Tools settings (enabled)");
        assert_eq!(seen[0].details, json!({ "enabled": true }));
        assert_eq!(seen[1].name, "API Access");

        // A refusal refuses the change (here as the store being
        // unavailable): nothing is stored.
        let refusing = started(Recorder {
            refuse: true,
            ..Recorder::default()
        });
        let refused = refusing.grant_mcp(&json!({ "readPortos": true })).await;
        assert_eq!(refused.status, 503, "{}", refused.body);
        let settings = refusing.get("/api/settings/mcp").await;
        assert_ne!(settings.body["enabled"], true, "{}", settings.body);
        let refused = refusing
            .put(
                "/api/settings/api-access",
                &json!({ "clock": { "exposed": true, "requireAuth": false } }),
            )
            .await;
        assert_eq!(refused.status, 503, "{}", refused.body);
        let access = refusing.get("/api/settings/api-access").await;
        assert_ne!(access.body["groups"][0]["exposed"], true, "{}", access.body);
    }
}
