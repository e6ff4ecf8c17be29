//! Assembling one catalog: the filtered entries' text concatenated as
//! served, and their canonical text streamed through SHA-256 for the ETag.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use super::fragments::StrictText;
use super::{Catalog, CatalogFormat, CatalogQuery, Catalogs, dynamic, etag};
use crate::contract::{Capabilities, CatalogScope, SCHEMA_VERSION};
use crate::registry::{DynamicListing, DynamicTool};

impl Catalogs {
    /// The catalog for `query`, rendered now and not memoized (see
    /// [`Catalogs::catalog`] for the shared one).
    ///
    /// The ETag is the base64url SHA-256 of the body's canonical JSON; both
    /// are assembled from text rendered once per tool and format.
    pub fn render(&self, query: &CatalogQuery, grants: Capabilities) -> Catalog {
        let listing = self.dynamic_listing(query.scope);
        self.render_with(query, grants, listing.as_deref())
    }

    /// Renders with the run-time tools of `listing` after the linked ones.
    /// They are listed with any intent: they belong to no intent group, and
    /// only the mind and agent scopes, which read without one, have them.
    pub(super) fn render_with(
        &self,
        query: &CatalogQuery,
        grants: Capabilities,
        listing: Option<&DynamicListing>,
    ) -> Catalog {
        let intent = self.intent_filter(query.intent.as_deref());
        let scope = query.scope;
        let granted_applies = matches!(scope, CatalogScope::Only(s) if s.holds_grants());
        let source = self
            .registry()
            .dynamic_tools()
            .map(|source| source.as_ref());
        let dynamic: Vec<(&DynamicTool, Option<bool>)> = match (source, listing) {
            (Some(_), Some(listing)) => listing
                .tools
                .iter()
                .map(|tool| (tool.as_ref(), granted_applies.then(|| tool.granted(grants))))
                .collect(),
            _ => Vec::new(),
        };
        let listed = self
            .registry()
            .tools()
            .iter()
            .zip(&self.entries)
            .filter(|(tool, _)| scope.includes(&tool.policy.scopes))
            .filter(|(tool, _)| intent.allows(&tool.descriptor.intent))
            .map(|(tool, text)| {
                let granted =
                    granted_applies.then(|| grants.has_all(&tool.policy.required_capabilities));
                (tool, text, granted)
            });

        let mut served = String::with_capacity(self.catalog_capacity());
        let mut canonical = Sha256::new();
        let scope_name = scope.as_str();
        match query.format {
            CatalogFormat::Portos => {
                let (mut read, mut write, mut granted_count) = (0_usize, 0_usize, 0_usize);
                let mut canonical_tools = String::with_capacity(self.catalog_capacity());
                let _ = write!(
                    served,
                    "{{\"type\":\"portos_tool_catalog\",\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
                );
                for (index, (tool, text, granted)) in listed.enumerate() {
                    if tool.policy.side_effect.is_read() {
                        read += 1;
                    } else {
                        write += 1;
                    }
                    if granted == Some(true) {
                        granted_count += 1;
                    }
                    let granted = match granted {
                        Some(true) => "true",
                        Some(false) => "false",
                        None => "null",
                    };
                    if index > 0 {
                        served.push(',');
                        canonical_tools.push(',');
                    }
                    let text = text.native_text(tool);
                    served.push_str(&text.served);
                    served.push_str(granted);
                    served.push('}');
                    canonical_tools.push_str(&text.canonical.0);
                    canonical_tools.push_str(granted);
                    canonical_tools.push_str(&text.canonical.1);
                }
                for (tool, granted) in &dynamic {
                    if read + write > 0 {
                        served.push(',');
                        canonical_tools.push(',');
                    }
                    if tool.spec.policy.side_effect.is_read() {
                        read += 1;
                    } else {
                        write += 1;
                    }
                    if *granted == Some(true) {
                        granted_count += 1;
                    }
                    if let Some(source) = source {
                        let text = dynamic::native_entry(source, tool, grants, *granted);
                        served.push_str(&text.served);
                        canonical_tools.push_str(&text.canonical);
                    }
                }
                let total = read + write;
                let _ = write!(
                    served,
                    "],\"stats\":{{\"total\":{total},\"read\":{read},\"write\":{write},\"granted\":{granted_count}}}}}"
                );
                canonical.update(format!(
                    "{{\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"stats\":{{\"granted\":{granted_count},\"read\":{read},\"total\":{total},\"write\":{write}}},\"tools\":["
                ));
                canonical.update(canonical_tools.as_bytes());
                canonical.update(b"],\"type\":\"portos_tool_catalog\"}");
            }
            strict if strict.dialect().is_some() => {
                let kept = listed.filter(|(_, _, granted)| *granted != Some(false));
                let mut texts: Vec<StrictParts<'_>> = kept
                    .map(|(tool, text, _)| StrictParts::Linked(text.strict_text(tool, strict)))
                    .collect();
                texts.extend(
                    dynamic
                        .iter()
                        .filter(|(_, granted)| *granted != Some(false))
                        .map(|(tool, _)| StrictParts::Owned(dynamic::strict_text(tool, strict))),
                );
                write_strict(&mut served, &mut canonical, strict, scope_name, &texts);
            }
            provider => {
                let kind = provider.as_str();
                let _ = write!(
                    served,
                    "{{\"type\":\"{kind}_tool_catalog\",\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
                );
                canonical.update(format!(
                    "{{\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
                ));
                // Provider formats drop only what is known to be ungranted.
                let kept = listed.filter(|(_, _, granted)| *granted != Some(false));
                let mut count = 0_usize;
                for (tool, text, _) in kept {
                    if count > 0 {
                        served.push(',');
                        canonical.update(b",");
                    }
                    count += 1;
                    let text = text.provider_text(tool, provider);
                    served.push_str(&text.served);
                    canonical.update(text.canonical.as_bytes());
                }
                for (tool, _) in dynamic
                    .iter()
                    .filter(|(_, granted)| *granted != Some(false))
                {
                    if count > 0 {
                        served.push(',');
                        canonical.update(b",");
                    }
                    count += 1;
                    let text = dynamic::provider_entry(tool, provider);
                    served.push_str(&text.served);
                    canonical.update(text.canonical.as_bytes());
                }
                served.push_str("]}");
                canonical.update(format!("],\"type\":\"{kind}_tool_catalog\"}}"));
            }
        }
        Catalog {
            json: served,
            etag: etag::quote(&canonical.finalize()),
        }
    }

    /// A first guess of the catalog's size, to allocate once.
    fn catalog_capacity(&self) -> usize {
        self.registry().tools().len() * 1024 + 256
    }
}

/// A strict entry rendered once per linked tool, or now for a run-time one.
enum StrictParts<'a> {
    Linked(&'a StrictText),
    Owned(StrictText),
}

impl StrictParts<'_> {
    fn text(&self) -> &StrictText {
        match self {
            StrictParts::Linked(text) => text,
            StrictParts::Owned(text) => text,
        }
    }
}

/// A strict-format catalog: the provider wrapper plus `projection`, the
/// report of what each listed tool's projection changed. Canonically
/// `projection` sorts first, so the canonical tools are buffered.
fn write_strict(
    served: &mut String,
    canonical: &mut Sha256,
    format: CatalogFormat,
    scope_name: &str,
    texts: &[StrictParts<'_>],
) {
    let kind = format.as_str();
    let _ = write!(
        served,
        "{{\"type\":\"{kind}_tool_catalog\",\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
    );
    let mut canonical_tools = String::with_capacity(texts.len() * 1024);
    for (index, parts) in texts.iter().enumerate() {
        if index > 0 {
            served.push(',');
            canonical_tools.push(',');
        }
        served.push_str(&parts.text().entry.served);
        canonical_tools.push_str(&parts.text().entry.canonical);
    }
    served.push_str("],\"projection\":[");
    canonical.update(b"{\"projection\":[");
    let reports = texts
        .iter()
        .filter_map(|parts| parts.text().report.as_ref());
    for (index, report) in reports.enumerate() {
        if index > 0 {
            served.push(',');
            canonical.update(b",");
        }
        served.push_str(&report.served);
        canonical.update(report.canonical.as_bytes());
    }
    served.push_str("]}");
    canonical.update(format!(
        "],\"schemaVersion\":{SCHEMA_VERSION},\"scope\":\"{scope_name}\",\"tools\":["
    ));
    canonical.update(canonical_tools.as_bytes());
    canonical.update(format!("],\"type\":\"{kind}_tool_catalog\"}}"));
}
