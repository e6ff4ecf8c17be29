//! The series the runtime counts as it answers (tool calls, idempotency,
//! MCP messages, catalogs) and the trait an application adds its own with.
//! Each is counted where it happens with atomic additions; the scrape
//! (`http/metrics.rs`) reads them beside the jobs, the store and the
//! outbound requests.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use portos_core::{CatalogFormat, CatalogScope, Scope};

use super::exposition::{Exposition, Kind};
use super::grid::HistogramGrid;
use super::tools::ToolMetrics;

/// Series an application adds to `/metrics` (written after the runtime's;
/// its family names must be its own).
pub trait MetricSource: Send + Sync + 'static {
    fn write(&self, out: &mut Exposition);
}

/// The runtime's series, shared by its handlers.
#[derive(Debug)]
pub(crate) struct Metrics {
    pub tools: Arc<ToolMetrics>,
    /// MCP messages, in the family the MCP transport declares.
    pub mcp: HistogramGrid,
    pub catalog: CatalogMetrics,
}

impl Metrics {
    pub(crate) fn new(tools: Arc<ToolMetrics>, mcp: HistogramGrid) -> Metrics {
        Metrics {
            tools,
            mcp,
            catalog: CatalogMetrics::default(),
        }
    }

    /// The runtime's families (those read from the store aside).
    pub(crate) fn write(&self, out: &mut Exposition) {
        self.tools.write(out);
        self.mcp.write(out);
        self.catalog.write(out);
    }
}

/// Catalog requests by scope, format and answer (200 or 304).
#[derive(Debug)]
pub(crate) struct CatalogMetrics {
    /// (`all` then each scope) × format × (200, 304).
    counts: Box<[AtomicU64]>,
}

impl Default for CatalogMetrics {
    fn default() -> CatalogMetrics {
        CatalogMetrics {
            counts: (0..(1 + Scope::all().count()) * CatalogFormat::ALL.len() * 2)
                .map(|_| AtomicU64::new(0))
                .collect(),
        }
    }
}

impl CatalogMetrics {
    fn slot(scope: CatalogScope, format: CatalogFormat, not_modified: bool) -> usize {
        let scope = match scope {
            CatalogScope::All => 0,
            CatalogScope::Only(scope) => 1 + scope.index(),
        };
        let format = CatalogFormat::ALL
            .iter()
            .position(|known| *known == format)
            .unwrap_or(0);
        (scope * CatalogFormat::ALL.len() + format) * 2 + usize::from(not_modified)
    }

    /// Counts a catalog answered in full (`false`) or as 304 (`true`).
    pub(crate) fn count(&self, scope: CatalogScope, format: CatalogFormat, not_modified: bool) {
        if let Some(count) = self.counts.get(Self::slot(scope, format, not_modified)) {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn write(&self, out: &mut Exposition) {
        const NAME: &str = "tool_catalog_requests_total";
        out.family(
            NAME,
            Kind::Counter,
            "Tool catalog requests, by scope, format and answer (304: the caller's copy was current).",
        );
        let scopes = std::iter::once(CatalogScope::All).chain(Scope::all().map(CatalogScope::Only));
        for scope in scopes {
            for format in CatalogFormat::ALL {
                for (not_modified, status) in [(false, "200"), (true, "304")] {
                    let count = self.counts[Self::slot(scope, format, not_modified)]
                        .load(Ordering::Relaxed);
                    if count > 0 {
                        out.sample(
                            NAME,
                            &[
                                ("tool_scope", scope.as_str()),
                                ("catalog_format", format.as_str()),
                                ("http_response_status_code", status),
                            ],
                            count,
                        );
                    }
                }
            }
        }
    }
}
