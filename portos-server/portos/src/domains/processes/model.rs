//! What `system.processes.status` and `GET /api/system/processes` report
//! about this machine's processes, and how a process table becomes that
//! report (the table itself is read in `ops`).
//!
//! Two views: with no watch list, every process of the machine; with one
//! (`--watch-process`), one row per watched service name. The contract's
//! shape comes from a process manager (PM2): this server supervises nothing,
//! so `restarts` is always 0, and `desktopExited` lists processes that have
//! exited but were not yet reaped by their parent (zombies).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// The service names to report on; empty = every process.
#[derive(Clone, Debug, Default)]
pub struct ProcessWatch(pub Vec<String>);

impl ProcessWatch {
    pub fn new(names: Vec<String>) -> ProcessWatch {
        ProcessWatch(names)
    }
}

/// A process (or watched service) that is not running.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Unhealthy {
    pub name: String,
    /// `stopped` (suspended by a signal, or a watched service with no
    /// running process) or `tracing` (stopped by a debugger).
    pub status: String,
    /// Always 0: this server supervises no processes, so it restarts none.
    pub restarts: u32,
}

/// A process that has exited and is waiting for its parent to reap it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Exited {
    pub name: String,
    /// `exited`.
    pub status: String,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProcessesStatus {
    pub ok: bool,
    /// Processes on the machine, or watched services.
    pub total: usize,
    /// Of those, how many are running (or sleeping, waiting for work).
    pub online: usize,
    pub unhealthy: Vec<Unhealthy>,
    pub desktop_exited: Vec<Exited>,
    /// The watched service names, when a watch list is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watched: Option<Vec<String>>,
    pub summary: String,
}

/// One process as the OS reports it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// The kernel's short name (Linux cuts it at 15 bytes).
    pub name: String,
    /// The file name of the executable, when readable.
    pub exe_name: Option<String>,
    pub state: State,
}

/// What a process is doing, as far as the report cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Online,
    Stopped,
    Tracing,
    Exited,
}

/// The report on the process table `seen` for the watch list `watch`.
pub fn report(watch: &ProcessWatch, seen: &[Seen]) -> ProcessesStatus {
    if watch.0.is_empty() {
        machine_view(seen)
    } else {
        watched_view(&watch.0, seen)
    }
}

fn machine_view(seen: &[Seen]) -> ProcessesStatus {
    let mut unhealthy = Vec::new();
    let mut exited = Vec::new();
    for process in seen {
        match process.state {
            State::Online => {}
            State::Stopped | State::Tracing => unhealthy.push(Unhealthy {
                name: process.name.clone(),
                status: state_word(process.state).to_owned(),
                restarts: 0,
            }),
            State::Exited => exited.push(Exited {
                name: process.name.clone(),
                status: state_word(process.state).to_owned(),
            }),
        }
    }
    unhealthy.sort_by(|a, b| a.name.cmp(&b.name));
    exited.sort_by(|a, b| a.name.cmp(&b.name));
    let online = seen.iter().filter(|p| p.state == State::Online).count();
    let mut summary = format!("{} processes, {online} running", seen.len());
    if !unhealthy.is_empty() {
        summary.push_str(&format!("; {} stopped", unhealthy.len()));
    }
    if !exited.is_empty() {
        summary.push_str(&format!("; {} exited, not yet reaped", exited.len()));
    }
    summary.push('.');
    ProcessesStatus {
        ok: true,
        total: seen.len(),
        online,
        unhealthy,
        desktop_exited: exited,
        watched: None,
        summary,
    }
}

fn watched_view(names: &[String], seen: &[Seen]) -> ProcessesStatus {
    // The best state of each name: one running instance is enough.
    let mut best: BTreeMap<&str, State> = BTreeMap::new();
    for name in names {
        let state = seen
            .iter()
            .filter(|process| {
                process.name == *name || process.exe_name.as_deref() == Some(name.as_str())
            })
            .map(|process| process.state)
            .min_by_key(|state| match state {
                State::Online => 0,
                State::Stopped | State::Tracing => 1,
                State::Exited => 2,
            });
        best.insert(name, state.unwrap_or(State::Stopped));
    }
    let unhealthy: Vec<Unhealthy> = names
        .iter()
        .filter(|name| best.get(name.as_str()) != Some(&State::Online))
        .map(|name| Unhealthy {
            name: name.clone(),
            // An exited, unreaped instance is as good as stopped for a service.
            status: match best.get(name.as_str()) {
                Some(State::Tracing) => "tracing",
                _ => "stopped",
            }
            .to_owned(),
            restarts: 0,
        })
        .collect();
    let online = names.len() - unhealthy.len();
    let summary = if unhealthy.is_empty() {
        format!("All {} watched processes are online.", names.len())
    } else {
        let down: Vec<&str> = unhealthy.iter().map(|u| u.name.as_str()).collect();
        format!(
            "{online} of {} watched processes online; not running: {}.",
            names.len(),
            down.join(", ")
        )
    };
    ProcessesStatus {
        ok: true,
        total: names.len(),
        online,
        unhealthy,
        desktop_exited: Vec::new(),
        watched: Some(names.to_vec()),
        summary,
    }
}

fn state_word(state: State) -> &'static str {
    match state {
        State::Online => "online",
        State::Stopped => "stopped",
        State::Tracing => "tracing",
        State::Exited => "exited",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(name: &str, exe: Option<&str>, state: State) -> Seen {
        Seen {
            name: name.to_owned(),
            exe_name: exe.map(str::to_owned),
            state,
        }
    }

    #[test]
    fn watched_names_match_short_or_executable_name() {
        let table = [
            seen("postgres", None, State::Online),
            seen(
                "a-very-long-ser",
                Some("a-very-long-service"),
                State::Online,
            ),
            seen("redis-server", None, State::Stopped),
        ];
        let names = ["postgres", "a-very-long-service", "redis-server", "nginx"]
            .map(str::to_owned)
            .to_vec();
        let status = watched_view(&names, &table);
        assert_eq!((status.total, status.online), (4, 2));
        let down: Vec<(&str, &str)> = status
            .unhealthy
            .iter()
            .map(|u| (u.name.as_str(), u.status.as_str()))
            .collect();
        assert_eq!(down, [("redis-server", "stopped"), ("nginx", "stopped")]);
    }

    #[test]
    fn machine_view_sorts_states() {
        let table = [
            seen("a", None, State::Online),
            seen("b", None, State::Stopped),
            seen("c", None, State::Exited),
        ];
        let status = machine_view(&table);
        assert_eq!((status.total, status.online), (3, 1));
        assert_eq!(status.unhealthy[0].name, "b");
        assert_eq!(status.desktop_exited[0].status, "exited");
        assert_eq!(
            status.summary,
            "3 processes, 1 running; 1 stopped; 1 exited, not yet reaped."
        );
    }
}
