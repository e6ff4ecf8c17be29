//! Reading this machine's process table from the OS (`sysinfo`) and
//! reporting on it, for `system.processes.status` and
//! `GET /api/system/processes`.

use std::ffi::OsStr;

use sysinfo::{ProcessRefreshKind, ProcessStatus, ProcessesToUpdate, System, UpdateKind};

use super::model::{ProcessWatch, ProcessesStatus, Seen, State, report};

/// Reads the process table (on the blocking pool: it walks `/proc`).
pub async fn status(watch: &ProcessWatch) -> Result<ProcessesStatus, String> {
    let seen = tokio::task::spawn_blocking(snapshot)
        .await
        .map_err(|error| format!("reading the process table failed: {error}"))??;
    Ok(report(watch, &seen))
}

fn snapshot() -> Result<Vec<Seen>, String> {
    let mut system = System::new()
        .map_err(|error| format!("cannot read this machine's process table: {error}"))?;
    system.refresh_processes_specifics(
        ProcessesToUpdate::All,
        true,
        // Threads are not processes here; the executable path gives the
        // full name the kernel's short name may cut.
        ProcessRefreshKind::nothing()
            .without_tasks()
            .with_exe(UpdateKind::Always),
    );
    Ok(system
        .processes()
        .values()
        .filter(|process| process.thread_kind().is_none())
        .map(|process| Seen {
            name: lossy(process.name()),
            exe_name: process.exe().and_then(|path| path.file_name()).map(lossy),
            state: match process.status() {
                ProcessStatus::Stop => State::Stopped,
                ProcessStatus::Tracing => State::Tracing,
                ProcessStatus::Zombie | ProcessStatus::Dead => State::Exited,
                _ => State::Online,
            },
        })
        .collect())
}

fn lossy(text: &OsStr) -> String {
    text.to_string_lossy().into_owned()
}
