//! How the runtime's MCP endpoint names itself where a client reads a
//! name: the codes and messages of its refusals and its manifest's kind.
//! The defaults name no application; an application with its own words
//! for the endpoint (PortOS: "Agent context", `AGENT_CONTEXT_DISABLED`)
//! declares them with [`crate::ServerBuilder::mcp_names`].

/// The words a client reads for the MCP endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McpNames {
    /// What the refusals' codes begin with: `MCP` gives `MCP_DISABLED`,
    /// `MCP_LOCAL_ONLY`, `MCP_ORIGIN_REJECTED` and `MCP_HOST_REJECTED`.
    /// Upper-case letters, digits and `_`, starting with a letter.
    pub codes: &'static str,
    /// What the refusals' messages call the endpoint ("MCP accepts
    /// loopback connections only").
    pub title: &'static str,
    /// The manifest's `kind`.
    pub manifest_kind: &'static str,
}

impl Default for McpNames {
    fn default() -> McpNames {
        DEFAULT_MCP_NAMES
    }
}

/// The names unless the application declares its own.
pub(crate) const DEFAULT_MCP_NAMES: McpNames = McpNames {
    codes: "MCP",
    title: "MCP",
    manifest_kind: "mcp-endpoint",
};

/// The refusals the endpoint's routes describe, under the default prefix;
/// the documents write them under the application's
/// ([`McpNames::renamed_codes`]).
pub(crate) mod refusal {
    pub(crate) const DISABLED: &str = "MCP_DISABLED";
    pub(crate) const LOCAL_ONLY: &str = "MCP_LOCAL_ONLY";
    pub(crate) const ORIGIN_REJECTED: &str = "MCP_ORIGIN_REJECTED";
    pub(crate) const HOST_REJECTED: &str = "MCP_HOST_REJECTED";

    pub(crate) const ALL: [&str; 4] = [DISABLED, LOCAL_ONLY, ORIGIN_REJECTED, HOST_REJECTED];
}

/// The refusal codes under the application's prefix, made once per server.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RefusalCodes {
    pub(crate) disabled: &'static str,
    pub(crate) local_only: &'static str,
    pub(crate) origin_rejected: &'static str,
    pub(crate) host_rejected: &'static str,
}

impl McpNames {
    /// What is wrong with the names, one line each.
    pub(crate) fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let mut chars = self.codes.chars();
        let fits = chars.next().is_some_and(|first| first.is_ascii_uppercase())
            && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && !self.codes.ends_with('_');
        if !fits {
            problems.push(format!(
                "MCP names: the code prefix `{}` must be upper-case letters, digits and `_`, start with a letter and not end with `_`",
                self.codes
            ));
        }
        if self.title.trim().is_empty() {
            problems.push("MCP names: the title must not be empty".to_owned());
        }
        if self.manifest_kind.trim().is_empty() {
            problems.push("MCP names: the manifest kind must not be empty".to_owned());
        }
        problems
    }

    /// The refusal codes under this prefix.
    pub(crate) fn refusal_codes(&self) -> RefusalCodes {
        let [disabled, local_only, origin_rejected, host_rejected] =
            refusal::ALL.map(|code| self.code(code));
        RefusalCodes {
            disabled,
            local_only,
            origin_rejected,
            host_rejected,
        }
    }

    /// Each default refusal code beside the application's, where they
    /// differ (for the documents, which read the routes' descriptions).
    pub(crate) fn renamed_codes(&self) -> &'static [(&'static str, &'static str)] {
        if self.codes == DEFAULT_MCP_NAMES.codes {
            return &[];
        }
        let renamed: Vec<_> = refusal::ALL
            .into_iter()
            .map(|code| (code, self.code(code)))
            .collect();
        renamed.leak()
    }

    /// `code` (under the default prefix) under this one: made once per
    /// server, kept like the declarations.
    fn code(&self, code: &'static str) -> &'static str {
        if self.codes == DEFAULT_MCP_NAMES.codes {
            return code;
        }
        let rest = code.strip_prefix(DEFAULT_MCP_NAMES.codes).unwrap_or(code);
        format!("{}{rest}", self.codes).leak()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_application_prefix_renames_every_refusal() {
        let portos = McpNames {
            codes: "AGENT_CONTEXT",
            title: "Agent context",
            manifest_kind: "portos-agent-context",
        };
        assert!(portos.problems().is_empty());
        let codes = portos.refusal_codes();
        assert_eq!(codes.disabled, "AGENT_CONTEXT_DISABLED");
        assert_eq!(codes.host_rejected, "AGENT_CONTEXT_HOST_REJECTED");
        assert_eq!(
            portos.renamed_codes()[1],
            ("MCP_LOCAL_ONLY", "AGENT_CONTEXT_LOCAL_ONLY")
        );
        assert!(McpNames::default().renamed_codes().is_empty());
        assert_eq!(McpNames::default().refusal_codes().disabled, "MCP_DISABLED");
    }

    #[test]
    fn malformed_names_are_refused() {
        let bad = McpNames {
            codes: "agent-context_",
            title: " ",
            manifest_kind: "",
        };
        assert_eq!(bad.problems().len(), 3);
    }
}
