//! One cluster, one view: what another server on the same database changed
//! (`store::changes`) is read again here, and this server's Socket.IO
//! subscribers are told about catalog changes as the other server's are
//! (and, while they are subscribed, of the calls the others finish:
//! `relay`).

mod relay;

use crate::app::App;
use crate::settings::AGENT_CONTEXT;
use crate::store::StoreError;
use crate::store::changes::{Change, Heard};

/// Starts following the other servers' changes, if the store is shared.
pub(crate) fn follow_other_servers(app: &App) {
    let (heard, mut hearing) = tokio::sync::mpsc::unbounded_channel();
    if !app
        .store
        .follow_changes(move |change| heard.send(change).is_ok())
    {
        return;
    }
    relay::start(app);
    let app = app.clone();
    tokio::spawn(async move {
        while let Some(heard) = hearing.recv().await {
            let reloaded = match heard {
                Heard::Changed(change) => reload(&app, change).await,
                Heard::Resumed => catch_up(&app).await,
            };
            if let Err(error) = reloaded {
                // The feed resumes (and reloads everything) once the
                // database is back.
                tracing::warn!(%error, "cannot read another server's change");
            }
        }
    });
}

/// After (re)connecting: whatever was missed while the feed was down is
/// read again; subscribers are told only of what did change (at start-up,
/// usually nothing).
async fn catch_up(app: &App) -> Result<(), StoreError> {
    let (grants, agent_context) = (app.grants.clone(), app.agent_context.clone());
    let before = (grants.current(), agent_context.current());
    let after = app
        .store
        .run(move |c| Ok((grants.refresh(c)?, agent_context.refresh(c)?)))
        .await?;
    if after.1 != before.1 {
        app.events.catalog_changed(AGENT_CONTEXT).await;
    } else {
        for key in app.grants.sources().changed(&before.0, &after.0) {
            app.events.catalog_changed(key).await;
        }
    }
    let (cache, groups) = (app.api_access.clone(), app.exposable_apis.clone());
    app.store.run(move |c| cache.reload(c, groups)).await?;
    app.auth.forget_remembered_sessions();
    app.jobs.catch_up().await
}

async fn reload(app: &App, change: Change) -> Result<(), StoreError> {
    match change {
        Change::Grants => {
            let grants = app.grants.clone();
            app.store.run(move |c| grants.refresh(c).map(drop)).await?;
            // Another server changed a principal's stored grants (which one
            // is not said): tell subscribers of each source.
            for (_, key) in &app.grants.sources().stored {
                app.events.catalog_changed(key).await;
            }
        }
        Change::AgentContext => {
            let (grants, agent_context) = (app.grants.clone(), app.agent_context.clone());
            app.store
                .run(move |c| {
                    grants.refresh(c)?;
                    agent_context.refresh(c).map(drop)
                })
                .await?;
            app.events.catalog_changed(AGENT_CONTEXT).await;
        }
        Change::ApiAccess => {
            let (cache, groups) = (app.api_access.clone(), app.exposable_apis.clone());
            app.store.run(move |c| cache.reload(c, groups)).await?;
        }
        Change::Sessions => app.auth.forget_remembered_sessions(),
        Change::Job(seq) => app.jobs.heard(seq).await?,
        Change::Called(request_id) => relay::called_elsewhere(app, request_id).await?,
        Change::Watching => relay::others_watch(app),
        Change::Catalog(reason) => app.events.catalog_changed(&reason).await,
        Change::Resource(uri) => app.events.resource_updated(&uri).await,
    }
    Ok(())
}
