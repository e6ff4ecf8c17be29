//! The tool calls' metrics, fed by the registry's meter: calls by tool,
//! principal scope and state (a refusal with its code), their durations,
//! and what idempotency answered. A linked tool's series live in a slot
//! found by its position in the registry, so a call counts with a few
//! atomic additions and looks nothing up; a run-time tool's name is found
//! under a read lock that callers share.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use portos_core::contract::ErrorCode;
use portos_core::{CallEnd, CallMeter, CallReport, MeteredTool, Registry, Scope};

use super::exposition::{Exposition, Kind};
use super::histogram::{Histogram, OPERATION_SECONDS, SECONDS};

/// How many run-time tool names get series of their own; the rest share
/// [`OTHER`].
const MAX_DYNAMIC_NAMES: usize = 256;
/// The tool label of a call to a name nobody answers to.
pub(crate) const UNKNOWN: &str = "(unknown)";
/// The tool label of run-time tools beyond `MAX_DYNAMIC_NAMES`.
pub(crate) const OTHER: &str = "(other)";

/// Completed, failed, then one slot per refusal code.
const END_SLOTS: usize = 2 + ErrorCode::ALL.len();

fn end_slot(end: CallEnd) -> usize {
    match end {
        CallEnd::Completed => 0,
        CallEnd::Failed => 1,
        CallEnd::Refused(code) => {
            2 + ErrorCode::ALL
                .iter()
                .position(|known| *known == code)
                .unwrap_or(0)
        }
    }
}

/// The `tool_state` and `error_type` labels of an end slot.
fn end_labels(slot: usize) -> (&'static str, &'static str) {
    match slot {
        0 => ("completed", ""),
        1 => ("failed", portos_core::telemetry::TOOL_ERROR),
        refused => ("refused", ErrorCode::ALL[refused - 2].as_str()),
    }
}

/// One tool's series under one scope.
#[derive(Debug)]
struct ScopeSeries {
    ends: [AtomicU64; END_SLOTS],
    /// Calls that ran (or replayed a run): a refusal takes no time worth
    /// a bucket.
    duration: Histogram,
}

impl ScopeSeries {
    fn new() -> ScopeSeries {
        ScopeSeries {
            ends: std::array::from_fn(|_| AtomicU64::new(0)),
            duration: Histogram::new(OPERATION_SECONDS, SECONDS),
        }
    }
}

/// One tool's series, by scope (the vocabulary's order).
#[derive(Debug)]
struct ToolSeries {
    name: Box<str>,
    /// The scopes the tool is declared in: their zero series are written
    /// too, so a rate starts from the first scrape.
    declared: Vec<Scope>,
    by_scope: Box<[ScopeSeries]>,
}

impl ToolSeries {
    fn new(name: &str, declared: Vec<Scope>) -> ToolSeries {
        ToolSeries {
            name: name.into(),
            declared,
            by_scope: Scope::all().map(|_| ScopeSeries::new()).collect(),
        }
    }

    fn count(&self, report: &CallReport<'_>) {
        let Some(series) = self.by_scope.get(report.authority.scope.index()) else {
            return;
        };
        series.ends[end_slot(report.end)].fetch_add(1, Ordering::Relaxed);
        if !matches!(report.end, CallEnd::Refused(_)) {
            series.duration.observe(report.elapsed);
        }
    }
}

/// Idempotency's answers other than a fresh run.
#[derive(Debug, Default)]
struct Idempotency {
    replays: AtomicU64,
    conflicts: AtomicU64,
    mismatches: AtomicU64,
    expiries: AtomicU64,
}

/// Every tool's series.
#[derive(Debug)]
pub(crate) struct ToolMetrics {
    /// By position in the registry; set once it is built (the meter is
    /// given to the registry before).
    linked: OnceLock<Box<[ToolSeries]>>,
    dynamic: RwLock<HashMap<Box<str>, Arc<ToolSeries>>>,
    other: ToolSeries,
    unknown: ToolSeries,
    idempotency: Idempotency,
}

impl Default for ToolMetrics {
    fn default() -> ToolMetrics {
        ToolMetrics::new()
    }
}

impl ToolMetrics {
    pub(crate) fn new() -> ToolMetrics {
        ToolMetrics {
            linked: OnceLock::new(),
            dynamic: RwLock::default(),
            other: ToolSeries::new(OTHER, Vec::new()),
            unknown: ToolSeries::new(UNKNOWN, Vec::new()),
            idempotency: Idempotency::default(),
        }
    }

    /// A slot for each of `registry`'s tools, once it is built.
    pub(crate) fn bind(&self, registry: &Registry) {
        let _ = self.linked.set(
            registry
                .tools()
                .iter()
                .map(|tool| ToolSeries::new(tool.name(), tool.policy.scopes.to_vec()))
                .collect(),
        );
    }

    /// The registry's meter, counting into `metrics`.
    pub(crate) fn meter(metrics: Arc<ToolMetrics>) -> CallMeter {
        Arc::new(move |report: &CallReport<'_>| metrics.count(report))
    }

    pub(crate) fn count(&self, report: &CallReport<'_>) {
        match report.tool {
            MeteredTool::Linked { index, .. } => match self.linked.get().and_then(|l| l.get(index))
            {
                Some(series) => series.count(report),
                None => self.unknown.count(report),
            },
            MeteredTool::Dynamic(name) => self.dynamic_series(name, report),
            MeteredTool::Unknown => self.unknown.count(report),
        }
        let idempotency = &self.idempotency;
        let counter = match report.end {
            _ if report.duplicate => &idempotency.replays,
            CallEnd::Refused(ErrorCode::ToolIdempotencyConflict) => &idempotency.conflicts,
            CallEnd::Refused(ErrorCode::ToolIdempotencyMismatch) => &idempotency.mismatches,
            CallEnd::Refused(ErrorCode::ToolIdempotencyExpired) => &idempotency.expiries,
            _ => return,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    fn dynamic_series(&self, name: &str, report: &CallReport<'_>) {
        let known = self
            .dynamic
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned();
        if let Some(series) = known {
            return series.count(report);
        }
        let mut names = self.dynamic.write().unwrap_or_else(PoisonError::into_inner);
        if names.len() >= MAX_DYNAMIC_NAMES && !names.contains_key(name) {
            drop(names);
            return self.other.count(report);
        }
        let series = names
            .entry(name.into())
            .or_insert_with(|| Arc::new(ToolSeries::new(name, Vec::new())))
            .clone();
        drop(names);
        series.count(report);
    }

    pub(crate) fn write(&self, out: &mut Exposition) {
        let dynamic: Vec<Arc<ToolSeries>> = {
            let names = self.dynamic.read().unwrap_or_else(PoisonError::into_inner);
            let mut series: Vec<_> = names.values().cloned().collect();
            series.sort_by(|a, b| a.name.cmp(&b.name));
            series
        };
        let all: Vec<&ToolSeries> = self
            .linked
            .get()
            .into_iter()
            .flat_map(|linked| linked.iter())
            .chain(dynamic.iter().map(Arc::as_ref))
            .chain([&self.other, &self.unknown])
            .collect();
        out.family(
            "tool_calls_total",
            Kind::Counter,
            "Tool calls through the registry, by tool, principal scope and state (a refusal's code in error_type).",
        );
        for tool in &all {
            for scope in Scope::all() {
                let series = &tool.by_scope[scope.index()];
                let declared = tool.declared.contains(&scope);
                for (slot, count) in series.ends.iter().enumerate() {
                    let count = count.load(Ordering::Relaxed);
                    if count == 0 && !(declared && slot < 2) {
                        continue;
                    }
                    let (state, error) = end_labels(slot);
                    out.sample(
                        "tool_calls_total",
                        &[
                            ("gen_ai_tool_name", &tool.name),
                            ("tool_scope", scope.as_str()),
                            ("tool_state", state),
                            ("error_type", error),
                        ],
                        count,
                    );
                }
            }
        }
        out.family(
            "tool_call_duration_seconds",
            Kind::Histogram,
            "How long tool calls that ran (or replayed a run) took, from arrival to answer (a series once a call was counted).",
        );
        for tool in &all {
            for scope in Scope::all() {
                let series = &tool.by_scope[scope.index()];
                if series.duration.snapshot().count > 0 {
                    out.histogram(
                        "tool_call_duration_seconds",
                        &[
                            ("gen_ai_tool_name", &tool.name),
                            ("tool_scope", scope.as_str()),
                        ],
                        &series.duration,
                    );
                }
            }
        }
        let idempotency = &self.idempotency;
        out.counters(
            "tool_idempotency_answers_total",
            "Calls idempotency answered without a fresh run: replays of a kept result, conflicts (same requestId, other call), mismatches and expiries.",
            "answer",
            [
                ("replay", &idempotency.replays),
                ("conflict", &idempotency.conflicts),
                ("mismatch", &idempotency.mismatches),
                ("expired", &idempotency.expiries),
            ],
        );
    }
}
