//! Which of the runtime's own paths fall in which access class
//! (docs/reference.md#route-catalog): the auth routes, the health check and the
//! Explorer page pass the gate without credentials; Agent Tools answers on
//! loopback only; the API groups an owner may expose live under `/api/public/`.
//! An application adds the always-public prefixes of its own routes
//! ([`crate::ServerBuilder::always_public_prefixes`]).

use portos_core::inventory::{Access, Classifier, ErrorSpec, GateErrors, PathSet};

/// The paths that pass the gate without credentials: the contract's five,
/// plus the API Explorer page, which is static (it holds no data and offers
/// the login form; every call it makes is authenticated).
pub const ALWAYS_PUBLIC_PATHS: &[&str] = &[
    "/api/auth/status",
    "/api/auth/whoami",
    "/api/auth/login",
    "/api/auth/logout",
    "/api/system/health",
    "/explorer",
];

/// Where the API groups Settings → API Access can expose live.
pub const PUBLIC_API_PREFIX: &str = "/api/public/";

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

/// The runtime's classes, with the application's always-public prefixes.
pub fn classifier(always_public_prefixes: &'static [&'static str]) -> Classifier {
    Classifier {
        always_public: PathSet {
            exact: ALWAYS_PUBLIC_PATHS,
            prefixes: always_public_prefixes,
        },
        loopback: PathSet {
            exact: &["/api/agent-context"],
            prefixes: &["/api/agent-context/"],
        },
        externally_exposable: PathSet {
            exact: &[],
            prefixes: &[PUBLIC_API_PREFIX],
        },
        gate_errors: GATE_ERRORS,
    }
}
