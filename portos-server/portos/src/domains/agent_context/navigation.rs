//! The navigation scope: the server's own pages and documents, and the
//! alias-based resolution behind `resolve_navigation`.

use super::item::{Entry, Snapshot};

/// One page or document of this server.
struct Page {
    id: &'static str,
    label: &'static str,
    section: &'static str,
    path: &'static str,
    aliases: &'static [&'static str],
}

const PAGES: &[Page] = &[
    Page {
        id: "nav.explorer",
        label: "API Explorer",
        section: "Developer",
        path: "/explorer",
        aliases: &["explorer", "api explorer", "tool explorer", "api browser"],
    },
    Page {
        id: "nav.tools.catalog",
        label: "Tool catalog",
        section: "Tools",
        path: "/api/cos/tools",
        aliases: &["tools", "tool catalog", "catalog", "semantic tools"],
    },
    Page {
        id: "nav.api-docs.routes",
        label: "HTTP route inventory",
        section: "API docs",
        path: "/api/api-docs/catalog.json",
        aliases: &[
            "routes",
            "route inventory",
            "route catalog",
            "http inventory",
        ],
    },
    Page {
        id: "nav.api-docs.openapi",
        label: "Public OpenAPI document",
        section: "API docs",
        path: "/api/api-docs/openapi.json",
        aliases: &["openapi", "public openapi", "public api", "swagger"],
    },
    Page {
        id: "nav.api-docs.internal-openapi",
        label: "Internal OpenAPI document",
        section: "API docs",
        path: "/api/api-docs/internal/openapi.json",
        aliases: &["internal openapi", "internal api", "all operations"],
    },
    Page {
        id: "nav.api-docs.tools-min",
        label: "HTTP tool resource",
        section: "API docs",
        path: "/api/api-docs/tools.min.json",
        aliases: &["tools.min", "tools min", "http tools"],
    },
    Page {
        id: "nav.api-docs.events",
        label: "Socket.IO event inventory",
        section: "API docs",
        path: "/api/api-docs/events.json",
        aliases: &["events", "event inventory", "socket.io events"],
    },
    Page {
        id: "nav.api-docs.asyncapi",
        label: "AsyncAPI document",
        section: "API docs",
        path: "/api/api-docs/asyncapi.json",
        aliases: &["asyncapi", "async api", "socket.io spec"],
    },
    Page {
        id: "nav.settings.api-access",
        label: "API Access",
        section: "Settings",
        path: "/api/settings/api-access",
        aliases: &["api access", "exposed apis", "public api settings"],
    },
    Page {
        id: "nav.settings.agent-tools",
        label: "Agent Tools",
        section: "Settings",
        path: "/api/settings/agent-context",
        aliases: &["agent tools", "agent context", "mcp settings", "mcp"],
    },
    Page {
        id: "nav.agent-tools.manifest",
        label: "Agent Tools manifest",
        section: "Agent Tools",
        path: "/api/agent-context/manifest",
        aliases: &["manifest", "mcp manifest", "agent manifest"],
    },
    Page {
        id: "nav.mind.capabilities",
        label: "Persistent Mind Tools",
        section: "Settings",
        path: "/api/cos/mind/capabilities",
        aliases: &["persistent mind", "mind tools", "mind capabilities", "mind"],
    },
    Page {
        id: "nav.system.health",
        label: "Health",
        section: "System",
        path: "/api/system/health",
        aliases: &["health", "status", "system health"],
    },
];

fn entry(page: &Page) -> Entry {
    let mut search: Vec<&str> = vec![page.id, page.label, page.section, page.path];
    search.extend_from_slice(page.aliases);
    Entry::new(
        portos_words::NAVIGATION,
        &format!("navigation:{}", page.id),
        "page",
        page.label,
        &format!("{} page in PortOS.", page.section),
        Some(page.path),
        &search,
    )
}

/// Every page (fixed, so always fresh and never truncated).
pub fn snapshot() -> Snapshot {
    Snapshot::capped(PAGES.iter().map(entry).collect(), false)
}

/// The page a free-text query names: an exact label, id, path or alias
/// first, then the first page one of whose aliases appears in the query.
pub fn resolve(query: &str) -> Option<Entry> {
    let wanted = query.trim().to_lowercase();
    let exact = PAGES.iter().find(|page| {
        page.label.eq_ignore_ascii_case(&wanted)
            || page.id == wanted
            || page.path == wanted
            || page.aliases.iter().any(|alias| *alias == wanted)
    });
    let page = exact.or_else(|| {
        // The longest alias contained in the query wins ("internal openapi"
        // over "openapi").
        PAGES
            .iter()
            .flat_map(|page| page.aliases.iter().map(move |alias| (page, alias)))
            .filter(|(_, alias)| wanted.contains(**alias))
            .max_by_key(|(_, alias)| alias.len())
            .map(|(page, _)| page)
    })?;
    Some(entry(page))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_by_alias() {
        let found = resolve("open the Internal OpenAPI please").expect("a page");
        assert_eq!(
            found.item.reference,
            "navigation:nav.api-docs.internal-openapi"
        );
        assert_eq!(
            resolve("API Explorer").map(|e| e.item.path),
            Some(Some("/explorer".to_owned()))
        );
        assert!(resolve("quantum flux").is_none());
    }
}
