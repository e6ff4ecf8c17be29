//! Agent Tools' workspaces scope reads the managed-app roster: every
//! runnable app, with how many CoS tasks name it.

use portos_server::store::Store;

use super::{Workspace, WorkspaceFuture, WorkspaceList, WorkspaceSource};
use crate::domains::{apps, cos};

/// The runnable apps of the roster, with their task counts.
#[derive(Clone, Debug)]
pub struct RosterWorkspaces {
    store: Store,
}

impl RosterWorkspaces {
    pub fn new(store: Store) -> RosterWorkspaces {
        RosterWorkspaces { store }
    }
}

impl WorkspaceSource for RosterWorkspaces {
    fn list(&self) -> WorkspaceFuture<'_> {
        Box::pin(async move {
            let (apps, counts) = self
                .store
                .run(|connection| Ok((apps::all(connection)?, cos::managed_apps(connection)?)))
                .await
                .map_err(|error| error.to_string())?;
            let workspaces = apps
                .into_iter()
                .filter(apps::App::is_runnable)
                .take(apps::MAX_RUNNABLE_APPS)
                .map(|app| Workspace {
                    task_count: counts
                        .iter()
                        .find(|counted| counted.app == app.id)
                        .map_or(0, |counted| counted.total_tasks),
                    app_id: app.id,
                    name: app.name,
                })
                .collect();
            Ok(WorkspaceList {
                workspaces,
                stale: false,
            })
        })
    }
}
