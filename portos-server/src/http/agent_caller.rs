//! Who may reach Agent Tools over HTTP (docs/reference.md#mcp-transport
//! steps 1-3, docs/remote.md): a local caller (a loopback peer with a
//! loopback or absent `Origin` and a loopback `Host`, in that order), or in
//! remote mode a caller with a valid access token from any peer (its
//! `Origin` and `Host` loopback ones or the resource's own).

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use portos_core::inventory::RouteIo;

use super::{ApiError, RouteInput};
use crate::app::App;
use crate::names::{RefusalCodes, refusal};
use crate::remote::RemoteCaller;

/// A request from this machine, addressed to it: a loopback peer, then a
/// loopback (or absent) `Origin`, then a loopback `Host`, checked in that
/// order before anything else.
#[derive(Clone, Copy, Debug)]
pub(super) struct LocalCaller;

impl FromRequestParts<App> for LocalCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<LocalCaller, ApiError> {
        admitted(parts, app).map(|()| LocalCaller)
    }
}

/// The transport checks of a request: a remote caller's (remote mode, a
/// valid token: any peer, the resource's own Origin and Host besides
/// loopback ones), else a local caller's.
fn admitted(parts: &Parts, app: &App) -> Result<(), ApiError> {
    let words = Words::of(app);
    match (&app.remote, parts.extensions.get::<RemoteCaller>()) {
        (Some(remote), Some(_)) => remote_origin_and_host(parts, &remote.config().resource, words),
        _ => local_only(parts, words),
    }
}

/// How the refusals name the endpoint: the application's codes and title.
#[derive(Clone, Copy, Debug)]
struct Words {
    codes: RefusalCodes,
    title: &'static str,
}

impl Words {
    fn of(app: &App) -> Words {
        Words {
            codes: app.mcp_refusals,
            title: app.mcp_names.title,
        }
    }

    #[cfg(test)]
    fn of_names(names: &crate::McpNames) -> Words {
        Words {
            codes: names.refusal_codes(),
            title: names.title,
        }
    }
}

impl RouteInput for LocalCaller {
    fn describe(io: &mut RouteIo) {
        // Under the default prefix: the documents write the application's
        // (`McpNames::renamed_codes`).
        io.error(403, refusal::LOCAL_ONLY);
        io.error(403, refusal::ORIGIN_REJECTED);
        io.error(403, refusal::HOST_REJECTED);
    }
}

/// A [`LocalCaller`] while Agent Tools is enabled (and its settings valid).
#[derive(Clone, Copy, Debug)]
pub(super) struct ActiveAgent;

impl FromRequestParts<App> for ActiveAgent {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<ActiveAgent, ApiError> {
        admitted(parts, app)?;
        if !app.agent_context.current().active() {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                app.mcp_refusals.disabled,
                format!("{} is disabled", app.mcp_names.title),
            ));
        }
        Ok(ActiveAgent)
    }
}

impl RouteInput for ActiveAgent {
    fn describe(io: &mut RouteIo) {
        LocalCaller::describe(io);
        io.error(403, refusal::DISABLED);
    }
}

/// Loopback peer, then loopback (or absent) Origin, then loopback Host.
fn local_only(parts: &Parts, words: Words) -> Result<(), ApiError> {
    // Without the peer address (a router served without connect info) the
    // request cannot be shown to be local: refused.
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(address)| address.ip());
    if !peer.is_some_and(is_loopback_ip) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            words.codes.local_only,
            format!("{} accepts loopback connections only", words.title),
        ));
    }
    origin_and_host(parts, None, words)
}

/// A remote caller's request: from any peer, but its `Origin` (when sent)
/// and `Host` must be loopback ones or the resource's own, so a page on
/// another site cannot use a browser's way in (DNS rebinding).
fn remote_origin_and_host(parts: &Parts, resource: &str, words: Words) -> Result<(), ApiError> {
    let resource = reqwest::Url::parse(resource).ok();
    origin_and_host(parts, resource.as_ref(), words)
}

/// A loopback (or absent) `Origin`, then a loopback `Host`; either may also
/// be `own`'s (remote mode's resource) when given.
fn origin_and_host(
    parts: &Parts,
    own: Option<&reqwest::Url>,
    words: Words,
) -> Result<(), ApiError> {
    let own_origin = own.map(|url| url.origin().ascii_serialization());
    let own_host = own.and_then(reqwest::Url::host_str);
    let headers = &parts.headers;
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let allowed = origin_host(origin).is_some_and(is_loopback_name)
            || own_origin.is_some_and(|own| own.eq_ignore_ascii_case(origin));
        if !allowed {
            let title = words.title;
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                words.codes.origin_rejected,
                match own {
                    None => format!("{title} accepts loopback origins only"),
                    Some(_) => {
                        format!("{title} accepts loopback origins and its resource's own only")
                    }
                },
            ));
        }
    }
    let host_ok = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(strip_port)
        .is_some_and(|host| {
            is_loopback_name(host) || own_host.is_some_and(|own| own.eq_ignore_ascii_case(host))
        });
    if !host_ok {
        let title = words.title;
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            words.codes.host_rejected,
            match own {
                None => format!(
                    "{title} answers only requests addressed to a loopback host name (localhost, 127.0.0.1, [::1])"
                ),
                Some(_) => format!(
                    "{title} answers only requests addressed to a loopback host name or its resource's host"
                ),
            },
        ));
    }
    Ok(())
}

fn is_loopback_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => {
            v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// `localhost`, `127.x.y.z`, `::1` or `::ffff:127.x.y.z` (brackets and a
/// `%zone` removed, any case).
fn is_loopback_name(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let host = host.split('%').next().unwrap_or(host);
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(is_loopback_ip)
}

/// The host of an Origin (`scheme://host[:port]`); `None` when it is not
/// such a URL (including the opaque `null`).
fn origin_host(origin: &str) -> Option<&str> {
    let (scheme, rest) = origin.split_once("://")?;
    if scheme.is_empty()
        || !scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = strip_port(authority);
    (!host.is_empty()).then_some(host)
}

/// `host:port` → `host`; `[v6]:port` → `[v6]`.
fn strip_port(authority: &str) -> &str {
    if authority.starts_with('[') {
        return authority
            .split_once(']')
            .map_or(authority, |(host, _)| &authority[..=host.len()]);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.chars().all(|c| c.is_ascii_digit()) => {
            host
        }
        _ => authority,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names() {
        for ok in [
            "localhost",
            "LOCALHOST",
            "127.0.0.1",
            "127.255.0.9",
            "[::1]",
            "::1",
            "[::ffff:127.0.0.1]",
            "[::1%lo]",
        ] {
            assert!(is_loopback_name(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "127.0.0.256",
            "localhost.evil.example",
            "10.0.0.1",
            "",
            "[::2]",
            "0.0.0.0",
        ] {
            assert!(!is_loopback_name(bad), "{bad}");
        }
    }

    #[test]
    fn origins_and_hosts() {
        assert_eq!(origin_host("http://localhost:5555"), Some("localhost"));
        assert_eq!(origin_host("http://[::1]:80/x"), Some("[::1]"));
        assert_eq!(origin_host("https://evil.example"), Some("evil.example"));
        assert_eq!(origin_host("null"), None);
        assert_eq!(strip_port("127.0.0.1:5555"), "127.0.0.1");
        assert_eq!(strip_port("[::1]:5555"), "[::1]");
        assert_eq!(strip_port("localhost"), "localhost");
    }

    fn parts(origin: Option<&str>, host: &str) -> Parts {
        let mut request = axum::http::Request::builder()
            .uri("/agents/mcp")
            .header(header::HOST, host);
        if let Some(origin) = origin {
            request = request.header(header::ORIGIN, origin);
        }
        request.body(()).expect("a request").into_parts().0
    }

    fn refusal(result: Result<(), ApiError>) -> String {
        result.map_or_else(|error| format!("{error:?}"), |()| "admitted".to_owned())
    }

    #[test]
    fn remote_callers_may_name_the_resources_origin_and_host() {
        let resource = "https://tools.example/agents/mcp";
        let words = Words::of_names(&crate::McpNames {
            codes: "AGENTS",
            title: "Agents",
            manifest_kind: "agents",
        });
        for (origin, host) in [
            (None, "tools.example"),
            (Some("https://tools.example"), "TOOLS.example:443"),
            (Some("http://localhost:3000"), "127.0.0.1:5555"),
        ] {
            assert_eq!(
                refusal(remote_origin_and_host(
                    &parts(origin, host),
                    resource,
                    words
                )),
                "admitted",
                "{origin:?} {host}"
            );
        }
        let foreign = refusal(remote_origin_and_host(
            &parts(Some("https://evil.example"), "tools.example"),
            resource,
            words,
        ));
        assert!(foreign.contains("AGENTS_ORIGIN_REJECTED"), "{foreign}");
        assert!(
            foreign.contains("Agents accepts loopback origins"),
            "{foreign}"
        );
        let rebound = refusal(remote_origin_and_host(
            &parts(None, "evil.example"),
            resource,
            words,
        ));
        assert!(rebound.contains("AGENTS_HOST_REJECTED"), "{rebound}");
        // A local caller may not name the resource's host.
        let local = refusal(origin_and_host(&parts(None, "tools.example"), None, words));
        assert!(local.contains("AGENTS_HOST_REJECTED"), "{local}");
    }
}
