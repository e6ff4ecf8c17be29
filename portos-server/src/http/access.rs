//! Which of the runtime's own paths fall in which access class
//! (docs/reference.md#route-catalog): the auth routes, the health check and the
//! Explorer page pass the gate without credentials; the MCP endpoint and its
//! manifest answer on loopback only (wherever they are mounted); the API
//! groups an owner may expose live under `/api/public/`. An application adds
//! the always-public prefixes of its own routes
//! ([`crate::ServerBuilder::always_public_prefixes`]).

use portos_core::inventory::{Access, Classifier, ErrorSpec, GateErrors, PathSet};

use crate::McpNames;
use crate::mounts::{self, Mounts};

/// The routes under the `auth` mount that pass the gate without
/// credentials.
const AUTH_ROUTES: [&str; 4] = ["/status", "/whoami", "/login", "/logout"];

/// The runtime's other paths that pass the gate without credentials: the
/// health check, and the API Explorer page, which is static (it holds no
/// data and offers the login form; every call it makes is authenticated).
const OTHER_PUBLIC_PATHS: [&str; 2] = ["/api/system/health", "/explorer"];

/// Where the API groups Settings → API Access can expose live.
pub(crate) const PUBLIC_API_PREFIX: &str = "/api/public/";

/// What the gate (`crate::http::gate`) answers before an exposable group's
/// operation runs: 403 `FORBIDDEN` while the group is not exposed, 401
/// `AUTH_REQUIRED` when it is exposed with sign-in required and the request
/// carries none. Documented on each such operation.
const GATE_ERRORS: &[GateErrors] = &[GateErrors {
    access: Access::ExternallyExposable,
    errors: &[
        ErrorSpec {
            status: 401,
            code: "AUTH_REQUIRED",
        },
        ErrorSpec {
            status: 403,
            code: "FORBIDDEN",
        },
    ],
}];

/// The runtime's classes where `mounts` places its routes, with the
/// application's always-public prefixes and its names for the MCP
/// endpoint's refusals. Made once per server (its path lists are kept like
/// the declarations).
pub(crate) fn classifier(
    mounts: &Mounts,
    names: &McpNames,
    always_public_prefixes: &'static [&'static str],
) -> Classifier {
    let auth = mounts.path_of(mounts::AUTH);
    let always_public: Vec<&'static str> = AUTH_ROUTES
        .iter()
        .map(|route| &*format!("{auth}{route}").leak())
        .chain(OTHER_PUBLIC_PATHS)
        .collect();
    let loopback_roots = [mounts::MCP, mounts::MCP_MANIFEST].map(|name| mounts.path_of(name));
    let loopback_prefixes: Vec<&'static str> = loopback_roots
        .iter()
        .map(|root| &*format!("{root}/").leak())
        .collect();
    Classifier {
        always_public: PathSet {
            exact: always_public.leak(),
            prefixes: always_public_prefixes,
        },
        loopback: PathSet {
            exact: Vec::from(loopback_roots).leak(),
            prefixes: loopback_prefixes.leak(),
        },
        externally_exposable: PathSet {
            exact: &[],
            prefixes: &[PUBLIC_API_PREFIX],
        },
        gate_errors: GATE_ERRORS,
        renamed_codes: names.renamed_codes(),
    }
}
