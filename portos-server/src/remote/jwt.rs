//! JWT access tokens (RFC 9068) as a resource server reads them: the
//! compact JWS is taken apart and its header judged before any key is
//! looked up ([`parse`]), the signature checked against the issuer's keys
//! ([`Unverified::verify`]), then the claims against this server
//! ([`check_claims`]). Every refusal says why in words a client may be
//! shown (RFC 6750's `error_description`): nothing of the token is echoed.

use serde::Deserialize;
use serde::de::{self, Deserializer};

use super::b64url;
use super::keys::{Algorithm, KeySet};

/// The longest token read; a longer `Authorization` value is refused
/// before it is decoded.
pub(crate) const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// Why a token was refused: each is a 401 `invalid_token`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TokenError {
    #[error("the access token is longer than {MAX_TOKEN_BYTES} bytes")]
    TooLong,
    #[error("the access token is not a signed JWT (three base64url parts)")]
    Malformed,
    #[error("the access token's header is not a JSON object with an `alg`")]
    BadHeader,
    #[error("the access token is not a JWT access token (`typ` must be `at+jwt`)")]
    NotAnAccessToken,
    #[error(
        "the access token's algorithm is not accepted (accepted: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA)"
    )]
    AlgorithmRefused,
    #[error("the access token names header extensions this server does not understand (`crit`)")]
    CriticalHeader,
    #[error("the access token was signed by a key the issuer does not publish")]
    UnknownKey,
    #[error("the access token's signature does not verify")]
    BadSignature,
    #[error("the access token's claims are not a JSON object of the registered types")]
    BadClaims,
    #[error("the access token lacks the `{0}` claim")]
    MissingClaim(&'static str),
    #[error("the access token was not issued by this server's authorization server")]
    WrongIssuer,
    #[error("the access token was not issued for this resource (`aud`)")]
    WrongAudience,
    #[error("the access token has expired")]
    Expired,
    #[error("the access token is not valid yet (`nbf`)")]
    NotYetValid,
    #[error("the access token was issued in the future (`iat`)")]
    IssuedInFuture,
}

/// A token's JOSE header, as far as this server reads it.
#[derive(Debug, Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default)]
    typ: Option<String>,
    #[serde(default)]
    crit: Option<serde::de::IgnoredAny>,
}

/// A token whose header passed, its signature not yet checked.
#[derive(Debug)]
pub(crate) struct Unverified<'t> {
    pub alg: Algorithm,
    pub kid: Option<String>,
    /// `header.payload`, the bytes signed.
    signing_input: &'t [u8],
    payload: &'t str,
    signature: Vec<u8>,
}

/// Takes a compact JWS apart and judges its header: the type, the
/// algorithm (allow list only: never `none`, never an HMAC), no `crit`.
pub(crate) fn parse(token: &str) -> Result<Unverified<'_>, TokenError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::TooLong);
    }
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError::Malformed);
    };
    let header_bytes = b64url::decode(header).ok_or(TokenError::Malformed)?;
    let header: Header =
        serde_json::from_slice(&header_bytes).map_err(|_| TokenError::BadHeader)?;
    if !header.typ.as_deref().is_some_and(is_access_token_type) {
        return Err(TokenError::NotAnAccessToken);
    }
    let alg = Algorithm::from_name(&header.alg).ok_or(TokenError::AlgorithmRefused)?;
    if header.crit.is_some() {
        return Err(TokenError::CriticalHeader);
    }
    let signature = b64url::decode(signature).ok_or(TokenError::Malformed)?;
    if signature.is_empty() {
        return Err(TokenError::Malformed);
    }
    let signed_len = token.len() - signature_text_len(token);
    Ok(Unverified {
        alg,
        kid: header.kid,
        signing_input: &token.as_bytes()[..signed_len],
        payload,
        signature,
    })
}

/// The length of `.signature` at the end of a three-part token.
fn signature_text_len(token: &str) -> usize {
    token.rfind('.').map_or(0, |dot| token.len() - dot)
}

/// `at+jwt`, compared as RFC 7515 §4.1.9 says: without case, the
/// `application/` prefix optional.
fn is_access_token_type(typ: &str) -> bool {
    let lower = typ.to_ascii_lowercase();
    lower == "at+jwt" || lower == "application/at+jwt"
}

impl Unverified<'_> {
    /// The payload, once one of the issuer's keys verifies the signature.
    pub(crate) fn verify(&self, keys: &KeySet) -> Result<Vec<u8>, TokenError> {
        let mut candidates = keys.candidates(self.kid.as_deref(), self.alg).peekable();
        if candidates.peek().is_none() {
            return Err(TokenError::UnknownKey);
        }
        if !candidates.any(|key| key.verifies(self.alg, self.signing_input, &self.signature)) {
            return Err(TokenError::BadSignature);
        }
        b64url::decode(self.payload).ok_or(TokenError::Malformed)
    }
}

/// What a token must say to be accepted here.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expectations<'a> {
    /// The issuer, exactly as its metadata names it.
    pub issuer: &'a str,
    /// This resource's identifier (RFC 8707), which `aud` must hold.
    pub audience: &'a str,
    /// Seconds since the Unix epoch.
    pub now: i64,
    /// How far clocks may disagree, in seconds.
    pub leeway: i64,
}

/// The claims of an accepted token that decide and record the call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Claims {
    pub subject: String,
    pub client_id: Option<String>,
    /// The granted scopes, in the token's order.
    pub scopes: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct Payload {
    #[serde(default)]
    iss: Option<String>,
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    aud: Option<Audience>,
    #[serde(default, deserialize_with = "numeric_date")]
    exp: Option<i64>,
    #[serde(default, deserialize_with = "numeric_date")]
    nbf: Option<i64>,
    #[serde(default, deserialize_with = "numeric_date")]
    iat: Option<i64>,
    #[serde(default)]
    client_id: Option<String>,
    /// RFC 9068 §2.2.3: space-separated.
    #[serde(default)]
    scope: Option<String>,
    /// The list form some issuers use instead (`scp`).
    #[serde(default)]
    scp: Option<Audience>,
}

/// A string or an array of strings (`aud`, `scp`).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Audience {
    fn values(&self) -> &[String] {
        match self {
            Audience::One(one) => std::slice::from_ref(one),
            Audience::Many(many) => many,
        }
    }
}

/// A NumericDate (RFC 7519 §2): seconds, possibly fractional; whole
/// seconds are kept (rounded down), anything not a finite number refused.
fn numeric_date<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    let seconds = f64::deserialize(deserializer)?;
    if !seconds.is_finite() || seconds.abs() > 1e15 {
        return Err(de::Error::custom("not a NumericDate"));
    }
    #[allow(clippy::cast_possible_truncation)]
    Ok(Some(seconds.floor() as i64))
}

/// Judges a verified payload's claims (RFC 9068 §4): the issuer, this
/// resource among the audiences, the time window with its leeway, a
/// subject.
pub(crate) fn check_claims(
    payload: &[u8],
    expect: &Expectations<'_>,
) -> Result<Claims, TokenError> {
    let claims: Payload = serde_json::from_slice(payload).map_err(|_| TokenError::BadClaims)?;
    let issuer = claims.iss.ok_or(TokenError::MissingClaim("iss"))?;
    if issuer != expect.issuer {
        return Err(TokenError::WrongIssuer);
    }
    let audience = claims.aud.ok_or(TokenError::MissingClaim("aud"))?;
    if !audience
        .values()
        .iter()
        .any(|aud| same_resource(aud, expect.audience))
    {
        return Err(TokenError::WrongAudience);
    }
    let expires_at = claims.exp.ok_or(TokenError::MissingClaim("exp"))?;
    if expect.now >= expires_at.saturating_add(expect.leeway) {
        return Err(TokenError::Expired);
    }
    if let Some(not_before) = claims.nbf
        && expect.now < not_before.saturating_sub(expect.leeway)
    {
        return Err(TokenError::NotYetValid);
    }
    let issued_at = claims.iat.ok_or(TokenError::MissingClaim("iat"))?;
    if issued_at > expect.now.saturating_add(expect.leeway) {
        return Err(TokenError::IssuedInFuture);
    }
    let subject = claims
        .sub
        .filter(|sub| !sub.is_empty())
        .ok_or(TokenError::MissingClaim("sub"))?;
    let scopes = match (claims.scope, claims.scp) {
        (Some(scope), _) => scope
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        (None, Some(scp)) => scp.values().to_vec(),
        (None, None) => Vec::new(),
    };
    Ok(Claims {
        subject,
        client_id: claims.client_id,
        scopes,
    })
}

/// Whether an audience names this resource: exactly, or but for one
/// trailing slash (RFC 8707 identifiers are URIs, and clients differ on
/// that slash; the MCP revision asks for the form without it).
fn same_resource(aud: &str, resource: &str) -> bool {
    aud == resource
        || aud.strip_suffix('/') == Some(resource)
        || resource.strip_suffix('/') == Some(aud)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::issuer::{TestKey, claims, header, sign};
    use serde_json::json;

    const ISSUER: &str = "https://as.example";
    const RESOURCE: &str = "https://lab.example/mcp";
    const NOW: i64 = 1_800_000_000;

    fn expect() -> Expectations<'static> {
        Expectations {
            issuer: ISSUER,
            audience: RESOURCE,
            now: NOW,
            leeway: 60,
        }
    }

    fn good_claims() -> serde_json::Value {
        claims(ISSUER, RESOURCE, NOW, "lab.read lab.write")
    }

    fn accept(key: &TestKey, token: &str) -> Result<Claims, TokenError> {
        let unverified = parse(token)?;
        let payload = unverified.verify(&key.set())?;
        check_claims(&payload, &expect())
    }

    #[test]
    fn every_allowed_algorithm_is_accepted() {
        for key in TestKey::every_kind() {
            let token = sign(&key, &header(&key), &good_claims());
            let accepted = accept(&key, &token).unwrap_or_else(|e| panic!("{:?}: {e}", key.alg));
            assert_eq!(accepted.subject, "user-1");
            assert_eq!(accepted.scopes, ["lab.read", "lab.write"]);
        }
    }

    #[test]
    fn header_refusals() {
        let key = TestKey::es256("k1");
        let claims = good_claims();
        let cases = [
            (
                json!({ "alg": "none", "typ": "at+jwt" }),
                TokenError::AlgorithmRefused,
            ),
            (
                json!({ "alg": "HS256", "typ": "at+jwt", "kid": "k1" }),
                TokenError::AlgorithmRefused,
            ),
            (
                json!({ "alg": "ES256", "typ": "JWT", "kid": "k1" }),
                TokenError::NotAnAccessToken,
            ),
            (
                json!({ "alg": "ES256", "kid": "k1" }),
                TokenError::NotAnAccessToken,
            ),
            (
                json!({ "alg": "ES256", "typ": "at+jwt", "kid": "k1", "crit": ["exp"] }),
                TokenError::CriticalHeader,
            ),
            (
                json!({ "alg": "ES256", "typ": "at+jwt", "kid": "other" }),
                TokenError::UnknownKey,
            ),
            (
                json!({ "alg": "ES384", "typ": "at+jwt", "kid": "k1" }),
                TokenError::UnknownKey,
            ),
            (json!({ "typ": "at+jwt" }), TokenError::BadHeader),
            (json!({ "alg": 1, "typ": "at+jwt" }), TokenError::BadHeader),
        ];
        for (header, refusal) in cases {
            let token = sign(&key, &header, &claims);
            assert_eq!(accept(&key, &token).err(), Some(refusal), "{header}");
        }
        let typed = json!({ "alg": "ES256", "typ": "application/AT+JWT", "kid": "k1" });
        assert!(accept(&key, &sign(&key, &typed, &claims)).is_ok());
    }

    #[test]
    fn an_hmac_made_with_the_public_key_is_refused() {
        let key = TestKey::rs256("rsa");
        let public = key.public_bytes();
        let header = json!({ "alg": "HS256", "typ": "at+jwt", "kid": "rsa" });
        let input = format!(
            "{}.{}",
            b64url::encode(header.to_string().as_bytes()),
            b64url::encode(good_claims().to_string().as_bytes())
        );
        let tag = ring::hmac::sign(
            &ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &public),
            input.as_bytes(),
        );
        let token = format!("{input}.{}", b64url::encode(tag.as_ref()));
        assert_eq!(
            accept(&key, &token).err(),
            Some(TokenError::AlgorithmRefused)
        );
    }

    #[test]
    fn signature_refusals() {
        let key = TestKey::ed25519("ed");
        let stranger = TestKey::ed25519("ed");
        let token = sign(&stranger, &header(&stranger), &good_claims());
        assert_eq!(accept(&key, &token).err(), Some(TokenError::BadSignature));
        let token = sign(&key, &header(&key), &good_claims());
        let (signed, _) = token.rsplit_once('.').expect("three parts");
        let tampered = format!("{signed}.{}", b64url::encode(&[0u8; 64]));
        assert_eq!(
            accept(&key, &tampered).err(),
            Some(TokenError::BadSignature)
        );
        for malformed in [
            "",
            "a.b",
            "a.b.c.d",
            &format!("{signed}."),
            &format!("{signed}.!!"),
        ] {
            assert_eq!(
                accept(&key, malformed)
                    .err()
                    .map(|e| e != TokenError::BadSignature),
                Some(true),
                "{malformed}"
            );
        }
        assert_eq!(
            accept(&key, &"a".repeat(MAX_TOKEN_BYTES + 1)).err(),
            Some(TokenError::TooLong)
        );
    }

    #[test]
    fn claim_refusals() {
        let key = TestKey::es256("k1");
        let with = |change: &dyn Fn(&mut serde_json::Value)| {
            let mut claims = good_claims();
            change(&mut claims);
            accept(&key, &sign(&key, &header(&key), &claims)).err()
        };
        assert_eq!(
            with(&|c| c["iss"] = json!("https://evil.example")),
            Some(TokenError::WrongIssuer)
        );
        assert_eq!(
            with(&|c| c["iss"] = json!("https://as.example/")),
            Some(TokenError::WrongIssuer)
        );
        assert_eq!(
            with(&|c| c["aud"] = json!("https://other.example/mcp")),
            Some(TokenError::WrongAudience)
        );
        assert_eq!(
            with(&|c| c["aud"] = json!(["a", "b"])),
            Some(TokenError::WrongAudience)
        );
        assert_eq!(
            with(&|c| c["exp"] = json!(NOW - 61)),
            Some(TokenError::Expired)
        );
        assert_eq!(
            with(&|c| c["exp"] = json!(NOW - 60)),
            Some(TokenError::Expired)
        );
        assert_eq!(
            with(&|c| c["nbf"] = json!(NOW + 61)),
            Some(TokenError::NotYetValid)
        );
        assert_eq!(
            with(&|c| c["iat"] = json!(NOW + 61)),
            Some(TokenError::IssuedInFuture)
        );
        assert_eq!(
            with(&|c| c["exp"] = json!("tomorrow")),
            Some(TokenError::BadClaims)
        );
        assert_eq!(
            with(&|c| c["exp"] = json!(1e300)),
            Some(TokenError::BadClaims)
        );
        for claim in ["iss", "aud", "exp", "iat", "sub"] {
            let refusal = with(&|c| {
                c.as_object_mut().map(|map| map.remove(claim));
            });
            assert_eq!(refusal, Some(TokenError::MissingClaim(claim)), "{claim}");
        }
        assert_eq!(
            with(&|c| c["sub"] = json!("")),
            Some(TokenError::MissingClaim("sub"))
        );
        // Within the leeway, and the other audience spellings.
        assert_eq!(with(&|c| c["exp"] = json!(NOW - 59)), None);
        assert_eq!(with(&|c| c["nbf"] = json!(NOW + 59)), None);
        assert_eq!(
            with(&|c| c["aud"] = json!(["x", "https://lab.example/mcp/"])),
            None
        );
        assert_eq!(with(&|c| c["exp"] = json!(1_800_000_100.5)), None);
    }

    #[test]
    fn duplicate_claims_are_refused() {
        let key = TestKey::es256("k1");
        let payload = format!(
            r#"{{"iss":"{ISSUER}","aud":"{RESOURCE}","sub":"a","sub":"b","exp":{},"iat":{NOW}}}"#,
            NOW + 300
        );
        let token = crate::testing::issuer::sign_raw(&key, &header(&key).to_string(), &payload);
        assert_eq!(accept(&key, &token).err(), Some(TokenError::BadClaims));
    }

    #[test]
    fn scopes_from_either_claim() {
        let key = TestKey::es256("k1");
        let mut listed = good_claims();
        listed.as_object_mut().map(|map| map.remove("scope"));
        listed["scp"] = json!(["a", "b"]);
        let accepted = accept(&key, &sign(&key, &header(&key), &listed)).expect("accepted");
        assert_eq!(accepted.scopes, ["a", "b"]);
        listed.as_object_mut().map(|map| map.remove("scp"));
        let accepted = accept(&key, &sign(&key, &header(&key), &listed)).expect("accepted");
        assert!(accepted.scopes.is_empty());
    }

    /// One edit of a token's text.
    #[derive(Clone, Debug)]
    enum Edit {
        Flip(usize, u8),
        Insert(usize, char),
        Delete(usize),
        SwapParts(usize, usize),
    }

    fn edit(token: &str, edit: &Edit) -> String {
        let mut bytes = token.as_bytes().to_vec();
        match *edit {
            Edit::Flip(at, mask) => {
                let at = at % bytes.len();
                bytes[at] ^= mask.max(1);
            }
            Edit::Insert(at, c) => {
                let mut buffer = [0; 4];
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, c.encode_utf8(&mut buffer).bytes());
            }
            Edit::Delete(at) => {
                bytes.remove(at % bytes.len());
            }
            Edit::SwapParts(a, b) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let mut parts: Vec<&str> = text.split('.').collect();
                let (a, b) = (a % parts.len(), b % parts.len());
                parts.swap(a, b);
                return parts.join(".");
            }
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn edits() -> impl proptest::strategy::Strategy<Value = Vec<Edit>> {
        use proptest::prelude::*;
        let one = prop_oneof![
            (any::<usize>(), any::<u8>()).prop_map(|(at, mask)| Edit::Flip(at, mask)),
            (
                any::<usize>(),
                prop_oneof![Just('.'), Just('='), Just('A'), Just('_'), any::<char>()]
            )
                .prop_map(|(at, c)| Edit::Insert(at, c)),
            any::<usize>().prop_map(Edit::Delete),
            (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapParts(a, b)),
        ];
        proptest::collection::vec(one, 1..4)
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config { cases: 4096, ..proptest::test_runner::Config::default() })]

        /// A token changed in any way is refused: only the bytes the
        /// issuer signed are accepted.
        #[test]
        fn no_mutated_token_is_accepted(edits in edits()) {
            thread_local! {
                static SIGNED: (TestKey, String) = {
                    let key = TestKey::es256("k1");
                    let token = sign(&key, &header(&key), &good_claims());
                    (key, token)
                };
            }
            SIGNED.with(|(key, token)| {
                let mutated = edits.iter().fold(token.clone(), |text, change| edit(&text, change));
                if mutated != *token {
                    proptest::prop_assert!(accept(key, &mutated).is_err(), "accepted {}", mutated);
                }
                Ok(())
            })?;
        }
    }
}
