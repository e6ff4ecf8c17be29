//! Remote mode's configuration (docs/remote.md): the issuer whose tokens
//! are accepted, this server's resource identifier, which token scope
//! grants which of the application's capabilities, and the clock skew
//! allowed. Given as flags, `{APP}_REMOTE_*` variables or `remote-*` file
//! keys; remote mode is on when an issuer is given.

use std::time::Duration;

use portos_core::{Capabilities, Capability};

/// The clock skew allowed by default, in seconds.
pub(crate) const DEFAULT_CLOCK_SKEW_SECONDS: u64 = 60;
/// The largest clock skew accepted, in seconds.
pub(crate) const MAX_CLOCK_SKEW_SECONDS: u64 = 600;

/// Remote mode, resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteConfig {
    /// The authorization server's issuer identifier, exactly as its
    /// metadata and tokens name it.
    pub issuer: String,
    /// This server's resource identifier (RFC 8707): what a token's `aud`
    /// must name, and the `resource` of its protected resource metadata.
    pub resource: String,
    /// Which token scope grants which capabilities.
    pub scopes: ScopeMap,
    /// How far the issuer's clock and this server's may disagree.
    pub clock_skew: Duration,
}

/// The settings as given, before they are checked.
#[derive(Clone, Debug, Default)]
pub(crate) struct RemoteSettings {
    pub issuer: Option<String>,
    pub resource: Option<String>,
    pub scopes: Option<String>,
    pub clock_skew_seconds: Option<u64>,
}

impl RemoteSettings {
    /// Remote mode if an issuer is given; every problem is named with its
    /// flag.
    pub(crate) fn resolve(self) -> Result<Option<RemoteConfig>, String> {
        let given = |value: Option<String>| value.filter(|text| !text.trim().is_empty());
        let Some(issuer) = given(self.issuer) else {
            if given(self.resource).is_some() || given(self.scopes).is_some() {
                return Err(
                    "--remote-resource and --remote-scopes need --remote-issuer (remote mode is on when an issuer is given)"
                        .to_owned(),
                );
            }
            return Ok(None);
        };
        let issuer = issuer.trim().to_owned();
        check_url("--remote-issuer", &issuer, false)?;
        let resource = given(self.resource)
            .ok_or("--remote-issuer needs --remote-resource: the URL clients reach this server at (its MCP endpoint, say https://tools.example.com/mcp)")?
            .trim()
            .to_owned();
        check_url("--remote-resource", &resource, true)?;
        let scopes = match given(self.scopes) {
            Some(text) => {
                ScopeMap::parse(&text).map_err(|why| format!("--remote-scopes: {why}"))?
            }
            None => ScopeMap::one_per_capability(),
        };
        let skew = self
            .clock_skew_seconds
            .unwrap_or(DEFAULT_CLOCK_SKEW_SECONDS);
        if skew > MAX_CLOCK_SKEW_SECONDS {
            return Err(format!(
                "--remote-clock-skew: {skew} seconds is more than the {MAX_CLOCK_SKEW_SECONDS} allowed"
            ));
        }
        Ok(Some(RemoteConfig {
            issuer,
            resource,
            scopes,
            clock_skew: Duration::from_secs(skew),
        }))
    }
}

/// An absolute http(s) URL without a fragment (nor, for an issuer, a query:
/// RFC 8414 §2); https unless its host is a loopback one.
fn check_url(flag: &str, text: &str, query_allowed: bool) -> Result<(), String> {
    let url = reqwest::Url::parse(text)
        .map_err(|error| format!("{flag}: `{text}` is not a URL ({error})"))?;
    let loopback = url.host_str().is_some_and(|host| {
        host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|address| address.is_loopback())
    });
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => {
            return Err(format!(
                "{flag}: `{text}` must be an https URL (http only on loopback)"
            ));
        }
    }
    if url.fragment().is_some() || (!query_allowed && url.query().is_some()) {
        return Err(format!(
            "{flag}: `{text}` must have no {}",
            if query_allowed {
                "fragment"
            } else {
                "query or fragment"
            }
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("{flag}: `{text}` must not hold credentials"));
    }
    Ok(())
}

/// Which token scope grants which capabilities, in the order given (the
/// order `scopes_supported` lists them, and the order challenges pick them
/// in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeMap {
    entries: Vec<(String, Capabilities)>,
}

impl ScopeMap {
    /// Each capability of the application's vocabulary is a scope of its
    /// own name: the map when none is given.
    pub fn one_per_capability() -> ScopeMap {
        ScopeMap {
            entries: Capability::all()
                .map(|capability| {
                    (
                        capability.as_str().to_owned(),
                        Capabilities::NONE.with(capability),
                    )
                })
                .collect(),
        }
    }

    /// `scope=capability+capability,scope=capability`: each scope (an OAuth
    /// scope token, RFC 6749 §3.3) once, each capability one of the
    /// application's; a scope may grant none (`scope=`), which lets a token
    /// in without granting anything.
    pub fn parse(text: &str) -> Result<ScopeMap, String> {
        let mut entries: Vec<(String, Capabilities)> = Vec::new();
        let mut problems = Vec::new();
        for entry in text
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
        {
            let Some((scope, granted)) = entry.split_once('=') else {
                problems.push(format!("`{entry}` is not `scope=capability+capability`"));
                continue;
            };
            let scope = scope.trim();
            if !is_scope_token(scope) {
                problems.push(format!(
                    "`{scope}` is not an OAuth scope (printable ASCII without spaces, quotes or backslashes)"
                ));
                continue;
            }
            if entries.iter().any(|(known, _)| known == scope) {
                problems.push(format!("`{scope}` is given twice"));
                continue;
            }
            let mut capabilities = Capabilities::NONE;
            for name in granted
                .split('+')
                .map(str::trim)
                .filter(|name| !name.is_empty())
            {
                match Capability::from_key(name) {
                    Some(capability) => capabilities = capabilities.with(capability),
                    None => problems.push(format!(
                        "`{name}` is not a capability of this application (known: {})",
                        Capability::all()
                            .map(Capability::as_str)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                }
            }
            entries.push((scope.to_owned(), capabilities));
        }
        if !problems.is_empty() {
            return Err(problems.join("; "));
        }
        if entries.is_empty() {
            return Err("no scope is given".to_owned());
        }
        Ok(ScopeMap { entries })
    }

    /// The scopes, in order (`scopes_supported`).
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(scope, _)| scope.as_str())
    }

    /// What a token holding `scopes` may do: the union of what each scope
    /// it holds grants (scopes this map does not name grant nothing).
    pub fn capabilities<'s>(&self, scopes: impl IntoIterator<Item = &'s str>) -> Capabilities {
        let mut granted = Capabilities::NONE;
        for scope in scopes {
            if let Some((_, capabilities)) = self.entries.iter().find(|(known, _)| known == scope) {
                granted = granted.union(*capabilities);
            }
        }
        granted
    }

    /// The scopes that grant `needed`: the first scope that grants all of
    /// it, else for each capability the first scope that grants it (`None`
    /// if one is granted by no scope).
    pub fn scopes_granting(&self, needed: &[Capability]) -> Option<Vec<&str>> {
        if needed.is_empty() {
            return Some(Vec::new());
        }
        if let Some((scope, _)) = self
            .entries
            .iter()
            .find(|(_, capabilities)| capabilities.has_all(needed))
        {
            return Some(vec![scope.as_str()]);
        }
        let mut scopes: Vec<&str> = Vec::new();
        for capability in needed {
            let (scope, _) = self
                .entries
                .iter()
                .find(|(_, capabilities)| capabilities.has(*capability))?;
            if !scopes.contains(&scope.as_str()) {
                scopes.push(scope);
            }
        }
        Some(scopes)
    }
}

/// RFC 6749 §3.3's `scope-token`: `%x21 / %x23-5B / %x5D-7E`, at least one.
fn is_scope_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|byte| matches!(byte, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_words::{READ_PORTOS, WRITE_PORTOS};

    fn settings(issuer: &str, resource: &str) -> RemoteSettings {
        RemoteSettings {
            issuer: Some(issuer.to_owned()),
            resource: Some(resource.to_owned()),
            scopes: None,
            clock_skew_seconds: None,
        }
    }

    #[test]
    fn off_unless_an_issuer_is_given() {
        assert_eq!(RemoteSettings::default().resolve(), Ok(None));
        let orphan = RemoteSettings {
            resource: Some("https://tools.example".to_owned()),
            ..RemoteSettings::default()
        };
        assert!(orphan.resolve().is_err());
    }

    #[test]
    fn urls_are_checked() {
        let good = settings("https://as.example/realms/lab", "https://tools.example/mcp");
        let config = good.resolve().expect("valid").expect("on");
        assert_eq!(config.clock_skew, Duration::from_secs(60));
        assert!(
            settings("http://127.0.0.1:8080", "http://localhost:5555/mcp")
                .resolve()
                .is_ok()
        );
        for (issuer, resource) in [
            ("http://as.example", "https://tools.example"),
            ("https://as.example", "http://tools.example"),
            ("https://as.example?tenant=1", "https://tools.example"),
            ("https://as.example", "https://tools.example/#mcp"),
            ("https://user:pw@as.example", "https://tools.example"),
            ("as.example", "https://tools.example"),
            ("ftp://as.example", "https://tools.example"),
        ] {
            assert!(
                settings(issuer, resource).resolve().is_err(),
                "{issuer} {resource}"
            );
        }
        let mut missing = settings("https://as.example", "");
        missing.resource = None;
        assert!(missing.resolve().is_err());
        let mut skewed = settings("https://as.example", "https://tools.example");
        skewed.clock_skew_seconds = Some(601);
        assert!(skewed.resolve().is_err());
    }

    #[test]
    fn scope_maps_name_every_problem() {
        let map =
            ScopeMap::parse("things:read=readPortos, things:all = readPortos+writePortos, login=")
                .expect("valid");
        assert_eq!(
            map.scopes().collect::<Vec<_>>(),
            ["things:read", "things:all", "login"]
        );
        assert_eq!(
            map.capabilities(["things:read"]),
            Capabilities::NONE.with(READ_PORTOS)
        );
        assert_eq!(
            map.capabilities(["login", "things:all", "unknown"]),
            Capabilities::NONE.with(READ_PORTOS).with(WRITE_PORTOS)
        );
        assert_eq!(map.capabilities(["login"]), Capabilities::NONE);
        assert_eq!(
            map.scopes_granting(&[READ_PORTOS, WRITE_PORTOS]),
            Some(vec!["things:all"])
        );
        assert_eq!(
            map.scopes_granting(&[READ_PORTOS]),
            Some(vec!["things:read"])
        );
        let split = ScopeMap::parse("r=readPortos,w=writePortos").expect("valid");
        assert_eq!(
            split.scopes_granting(&[READ_PORTOS, WRITE_PORTOS]),
            Some(vec!["r", "w"])
        );
        assert_eq!(split.scopes_granting(&[]), Some(vec![]));
        let error =
            ScopeMap::parse("a=readPortos,a=writePortos,b c=readPortos,d=fly,e").expect_err("bad");
        for named in ["`a` is given twice", "`b c`", "`fly`", "`e`"] {
            assert!(error.contains(named), "{named}: {error}");
        }
        assert!(ScopeMap::parse(" , ").is_err());
    }

    #[test]
    fn by_default_each_capability_is_a_scope() {
        let map = ScopeMap::one_per_capability();
        assert_eq!(
            map.capabilities(["writePortos"]),
            Capabilities::NONE.with(WRITE_PORTOS)
        );
        assert_eq!(
            map.scopes_granting(&[WRITE_PORTOS]),
            Some(vec!["writePortos"])
        );
    }
}
