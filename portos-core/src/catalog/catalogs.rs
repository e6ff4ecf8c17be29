//! [`Catalogs`]: a built registry, the application's intent groups, the
//! rendered entries and the served-catalog memo, together.

use std::fmt;
use std::sync::Arc;

use super::fragments::EntryText;
use super::intent::{IntentConfig, IntentFilter, IntentGroups};
use super::memo::Memo;
use super::{Catalog, CatalogQuery};
use crate::contract::{Capabilities, CatalogScope};
use crate::registry::{DynamicListing, Registry};

/// Every catalog of one registry. Cheap to share behind an `Arc`; all
/// methods take `&self`.
pub struct Catalogs {
    registry: Arc<Registry>,
    intents: IntentGroups,
    /// One per registered tool, in the registry's order; each format is
    /// rendered on first use.
    pub(super) entries: Vec<EntryText>,
    memo: Memo,
}

/// Every problem found while building the catalog layer, one line each.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct CatalogBuildError {
    /// One line per problem: an invalid intent configuration, or a tool naming
    /// an intent group the application does not define.
    pub problems: Vec<String>,
}

impl fmt::Display for CatalogBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the tool catalogs cannot be built:")?;
        for problem in &self.problems {
            write!(f, "\n  - {problem}")?;
        }
        Ok(())
    }
}

impl Catalogs {
    /// Checks the intent configuration and that every tool's intent group
    /// is one of it (a group nobody defined would silently hide the tool
    /// from every intent), then prepares the (empty) entry texts.
    pub fn new(
        registry: Arc<Registry>,
        intents: &IntentConfig,
    ) -> Result<Catalogs, CatalogBuildError> {
        let mut problems = Vec::new();
        let intents = IntentGroups::new(intents).unwrap_or_else(|found| {
            problems.extend(found);
            IntentGroups::default()
        });
        if problems.is_empty() {
            for tool in registry.tools() {
                let d = tool.descriptor;
                if let Some(group) = d.intent.group
                    && !intents.contains(group)
                {
                    let known: Vec<&str> = intents.names().collect();
                    problems.push(format!(
                        "tool `{}` ({}) names intent group `{group}`, which the application does not define (defined: {})",
                        d.name,
                        d.location,
                        if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                    ));
                }
            }
        }
        if !problems.is_empty() {
            return Err(CatalogBuildError { problems });
        }
        let entries = registry
            .tools()
            .iter()
            .map(|_| EntryText::default())
            .collect();
        Ok(Catalogs {
            registry,
            intents,
            entries,
            memo: Memo::default(),
        })
    }

    /// The registry the catalogs list.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The application's intent groups, checked.
    pub fn intent_groups(&self) -> &IntentGroups {
        &self.intents
    }

    /// The intent filter of one read.
    pub fn intent_filter(&self, intent: Option<&str>) -> IntentFilter {
        self.intents.filter(intent)
    }

    /// The catalog for `query`, rendered on the first read of this query
    /// and these grants and shared after that. `grants` are the
    /// capabilities of the principal the scope names (used for `granted`
    /// at mind and agent scope only).
    pub fn catalog(&self, query: &CatalogQuery, grants: Capabilities) -> Arc<Catalog> {
        let listing = self.dynamic_listing(query.scope);
        let revision = listing.as_ref().map(|listing| listing.revision);
        self.memo.get_or_render(query, grants, revision, || {
            self.render_with(query, grants, listing.as_deref())
        })
    }

    /// The run-time tools a catalog of `scope` lists after the linked ones:
    /// only a named scope's (`all` is the linked tools, the same on every
    /// read).
    pub(super) fn dynamic_listing(&self, scope: CatalogScope) -> Option<Arc<DynamicListing>> {
        let source = self.registry.dynamic_tools()?;
        match scope {
            CatalogScope::Only(scope) => Some(source.listing(&self.registry, scope)),
            CatalogScope::All => None,
        }
    }
}

impl fmt::Debug for Catalogs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Catalogs")
            .field("registry", &self.registry)
            .field("intents", &self.intents)
            .finish_non_exhaustive()
    }
}
