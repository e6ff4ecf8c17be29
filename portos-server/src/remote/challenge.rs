//! Why a request in remote mode is refused, and the challenge that says so
//! (RFC 6750 §3, RFC 9728 §5.1): every `WWW-Authenticate` names the
//! protected resource metadata, so a client that knows nothing yet can find
//! the issuer. (The HTTP layer writes the response: `http::remote_gate`.)

use axum::http::StatusCode;

use super::jwt::TokenError;

/// Why a request was refused before anything ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// No access token (nor credentials of another scheme): 401 without an
    /// error code, naming the scopes the server knows.
    NoToken,
    /// The Authorization header is there but is not one Bearer token: 400
    /// `invalid_request`.
    Malformed(&'static str),
    /// An `access_token` query parameter: 400 `invalid_request` (tokens are
    /// accepted in the header only, MCP 2026-07-28 and OAuth 2.1 §5.2).
    TokenInQuery,
    /// The token was refused: 401 `invalid_token`.
    InvalidToken(TokenError),
    /// The token lacks scopes the call needs: 403 `insufficient_scope`,
    /// naming them.
    InsufficientScope(Vec<String>),
    /// The issuer's keys could not be fetched (and none are kept): 503.
    KeysUnavailable(String),
}

impl Refusal {
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            Refusal::NoToken | Refusal::InvalidToken(_) => StatusCode::UNAUTHORIZED,
            Refusal::Malformed(_) | Refusal::TokenInQuery => StatusCode::BAD_REQUEST,
            Refusal::InsufficientScope(_) => StatusCode::FORBIDDEN,
            Refusal::KeysUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// RFC 6750 §3.1's error code, when one applies.
    pub(crate) fn error_code(&self) -> Option<&'static str> {
        match self {
            Refusal::NoToken | Refusal::KeysUnavailable(_) => None,
            Refusal::Malformed(_) | Refusal::TokenInQuery => Some("invalid_request"),
            Refusal::InvalidToken(_) => Some("invalid_token"),
            Refusal::InsufficientScope(_) => Some("insufficient_scope"),
        }
    }

    /// What a person reading the refusal is told.
    pub(crate) fn description(&self) -> String {
        match self {
            Refusal::NoToken => "An access token is required (Authorization: Bearer)".to_owned(),
            Refusal::Malformed(why) => format!("The Authorization header is malformed: {why}"),
            Refusal::TokenInQuery => {
                "Access tokens are accepted in the Authorization header only, never in the query"
                    .to_owned()
            }
            Refusal::InvalidToken(why) => capitalized(&why.to_string()),
            Refusal::InsufficientScope(scopes) => format!(
                "The access token lacks the scopes this call needs: {}",
                scopes.join(" ")
            ),
            Refusal::KeysUnavailable(why) => {
                format!("Access tokens cannot be checked now: {why}")
            }
        }
    }

    /// The contract's error code of the body.
    pub(crate) fn body_code(&self) -> &'static str {
        match self {
            Refusal::NoToken | Refusal::InvalidToken(_) => "AUTH_REQUIRED",
            Refusal::Malformed(_) | Refusal::TokenInQuery => "INVALID_AUTHORIZATION",
            Refusal::InsufficientScope(_) => "INSUFFICIENT_SCOPE",
            Refusal::KeysUnavailable(_) => "AUTHORIZATION_UNAVAILABLE",
        }
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The `WWW-Authenticate: Bearer …` of `refusal`: `resource_metadata`
/// always; `scope` with the scopes needed (or, without a token, those the
/// server knows); `error` and `error_description` when one applies.
pub(crate) fn www_authenticate(
    refusal: &Refusal,
    metadata_url: &str,
    supported: &[&str],
) -> String {
    let mut parameters = vec![format!("resource_metadata={}", quoted(metadata_url))];
    match refusal {
        Refusal::NoToken if !supported.is_empty() => {
            parameters.push(format!("scope={}", quoted(&supported.join(" "))));
        }
        Refusal::InsufficientScope(scopes) => {
            parameters.push(format!("scope={}", quoted(&scopes.join(" "))));
        }
        _ => {}
    }
    if let Some(code) = refusal.error_code() {
        parameters.push(format!("error={}", quoted(code)));
        parameters.push(format!(
            "error_description={}",
            quoted(&refusal.description())
        ));
    }
    format!("Bearer {}", parameters.join(", "))
}

/// An RFC 9110 quoted-string: `"` and `\` escaped, characters a header
/// cannot hold dropped (RFC 6750 limits these values to printable ASCII).
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars().filter(|c| matches!(c, ' '..='~')) {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const METADATA: &str = "https://tools.example/.well-known/oauth-protected-resource/mcp";

    #[test]
    fn challenges_name_the_metadata_and_what_is_needed() {
        assert_eq!(
            www_authenticate(&Refusal::NoToken, METADATA, &["lab:read", "lab:write"]),
            format!(r#"Bearer resource_metadata="{METADATA}", scope="lab:read lab:write""#)
        );
        assert_eq!(
            www_authenticate(
                &Refusal::InsufficientScope(vec!["lab:write".to_owned()]),
                METADATA,
                &["lab:read"]
            ),
            format!(
                r#"Bearer resource_metadata="{METADATA}", scope="lab:write", error="insufficient_scope", error_description="The access token lacks the scopes this call needs: lab:write""#
            )
        );
        let expired = www_authenticate(&Refusal::InvalidToken(TokenError::Expired), METADATA, &[]);
        assert!(
            expired.contains(
                r#"error="invalid_token", error_description="The access token has expired""#
            ),
            "{expired}"
        );
        assert!(!expired.contains("scope="), "{expired}");
        let query = www_authenticate(&Refusal::TokenInQuery, METADATA, &[]);
        assert!(query.contains(r#"error="invalid_request""#), "{query}");
    }

    #[test]
    fn values_are_quoted_strings() {
        assert_eq!(quoted(r#"a "b" \c"#), r#""a \"b\" \\c""#);
        assert_eq!(quoted("tab\there\u{e9}"), r#""tabhere""#);
    }

    #[test]
    fn statuses() {
        assert_eq!(Refusal::NoToken.status(), 401);
        assert_eq!(
            Refusal::InvalidToken(TokenError::BadSignature).status(),
            401
        );
        assert_eq!(Refusal::TokenInQuery.status(), 400);
        assert_eq!(Refusal::InsufficientScope(vec![]).status(), 403);
        assert_eq!(Refusal::KeysUnavailable(String::new()).status(), 503);
    }
}
