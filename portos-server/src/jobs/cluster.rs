//! Jobs on a database several servers share. Each unfinished job names the
//! server that runs it and a lease that server renews; a job whose lease
//! runs out (its server stopped) is taken over by another server, which
//! resumes or settles it as a restart would. A job's events are announced
//! to every server (`store::changes`), so it can be followed from any of
//! them, and a cancel or a confirmation made on one reaches the runner on
//! another. With one server (SQLite), a start settles everything the last
//! run left unfinished.

use std::time::Duration;

use super::sql::{self, Lease};
use super::{Jobs, now_ms};
use crate::store::StoreError;
use crate::store::changes::instance;

/// How long a server's hold on its jobs lasts unless renewed.
const LEASE: Duration = Duration::from_secs(10);
/// How often a server renews its leases and looks for jobs nobody holds.
const RENEW_EVERY: Duration = Duration::from_secs(3);

/// Whether a process takes over the jobs of servers that stopped: a
/// serving process does; an `--mcp-stdio` one, which lives only as long as
/// its client, does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TakeOver {
    Yes,
    No,
}

/// This server's hold, from `now_ms`.
pub(super) fn lease(now_ms: i64) -> Lease<'static> {
    Lease {
        runner: instance(),
        until_ms: now_ms.saturating_add(i64::try_from(LEASE.as_millis()).unwrap_or(i64::MAX)),
    }
}

impl Jobs {
    /// Settles what no running server holds: parked jobs wait again,
    /// running jobs of idempotent tools run again, the others fail saying
    /// why. One server (SQLite) holds everything the last run left; on a
    /// shared database, only jobs whose lease ran out. Call once, before
    /// serving, then [`Jobs::keep_leases`].
    pub(crate) async fn recover(&self) -> Result<usize, StoreError> {
        let now = now_ms();
        let expired_before = if self.0.store.is_shared() {
            now
        } else {
            i64::MAX
        };
        let rows = self
            .0
            .store
            .run(move |connection| sql::take_over(connection, lease(now), expired_before))
            .await?;
        let mut count = 0;
        for row in rows {
            // Its lease lapsed while this server could not renew it (the
            // database was away), but its runner is alive here.
            if self.lock_running().contains_key(&row.job_id) {
                continue;
            }
            self.resume(row).await?;
            count += 1;
        }
        Ok(count)
    }

    /// On a shared database: renews this server's leases and, with
    /// [`TakeOver::Yes`], takes over the jobs of servers that stopped
    /// renewing theirs, until shutdown.
    pub(crate) fn keep_leases(&self, take_over: TakeOver) {
        if !self.0.store.is_shared() {
            return;
        }
        let jobs = self.clone();
        let shutdown = self.0.registry.shutdown_token().clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(RENEW_EVERY) => {}
                    () = shutdown.cancelled() => return,
                }
                let now = now_ms();
                let renewed = jobs
                    .0
                    .store
                    .run(move |connection| sql::renew_leases(connection, lease(now)))
                    .await;
                if let Err(error) = renewed {
                    // Nor take over anything while the database is away.
                    tracing::warn!(%error, "cannot renew the leases of this server's jobs");
                    continue;
                }
                if take_over == TakeOver::No {
                    continue;
                }
                match jobs.recover().await {
                    Ok(0) => {}
                    Ok(count) => {
                        tracing::info!(jobs = count, "took over the jobs of a stopped server");
                    }
                    Err(error) => {
                        tracing::warn!(%error, "cannot take over a stopped server's jobs");
                    }
                }
            }
        });
    }

    /// Lets the jobs this server held be taken over at once (it is
    /// stopping; their runners stopped with it).
    pub(crate) async fn release_leases(&self) -> Result<(), StoreError> {
        if !self.0.store.is_shared() {
            return Ok(());
        }
        let released = Lease {
            runner: instance(),
            until_ms: 0,
        };
        self.0
            .store
            .run(move |connection| sql::renew_leases(connection, released).map(drop))
            .await
    }

    /// Another server recorded the job event numbered `seq`: followers here
    /// hear it, and if this server runs the job, a cancel stops the run and
    /// an approval releases the parked runner.
    pub(crate) async fn heard(&self, seq: i64) -> Result<(), StoreError> {
        let Some(event) = self
            .0
            .store
            .run(move |connection| sql::event(connection, seq))
            .await?
        else {
            return Ok(());
        };
        self.act_on(&event.job_id, event.kind);
        // Answers given on another server reach the runner held here.
        if matches!(event.kind, "working" | "input_required")
            && self.waits_on_answers(&event.job_id)
        {
            let id = event.job_id.clone();
            let row = self
                .0
                .store
                .run(move |connection| sql::get(connection, &id))
                .await?;
            if let Some(row) = row {
                self.deliver(&row);
            }
        }
        self.publish(event);
        Ok(())
    }

    /// After the feed of other servers' changes was cut: the jobs this
    /// server runs are read again, in case a cancel or a confirmation was
    /// made elsewhere meanwhile.
    pub(crate) async fn catch_up(&self) -> Result<(), StoreError> {
        let held: Vec<String> = self.lock_running().keys().cloned().collect();
        for job_id in held {
            let id = job_id.clone();
            let row = self
                .0
                .store
                .run(move |connection| sql::get(connection, &id))
                .await?;
            if let Some(row) = row {
                self.act_on(&job_id, row.state.as_str());
                self.deliver(&row);
            }
        }
        Ok(())
    }

    /// What a change made on another server means for a runner held here.
    fn act_on(&self, job_id: &str, kind: &str) {
        let mut running = self.lock_running();
        let Some(entry) = running.get_mut(job_id) else {
            return;
        };
        match kind {
            "cancelled" => entry.stop(),
            // A parked job goes on working only once a person approved.
            "working" => {
                if let Some(approve) = entry.confirm.take() {
                    let _ = approve.send(true);
                }
            }
            _ => {}
        }
    }
}
