//! `RemoteAuth::authenticate` against a stand-in issuer on loopback.

use axum::http::{HeaderMap, HeaderValue, Uri, header};
use serde_json::json;

use super::*;
use crate::test_words::{READ_PORTOS, WRITE_PORTOS};
use crate::testing::issuer::{TestIssuer, TestKey, claims, header as jwt_header, now, sign};

const RESOURCE: &str = "http://127.0.0.1:5555/mcp";

fn remote(issuer: &TestIssuer) -> RemoteAuth {
    let config = RemoteSettings {
        issuer: Some(issuer.issuer.clone()),
        resource: Some(RESOURCE.to_owned()),
        scopes: Some("portos:read=readPortos,portos:write=readPortos+writePortos".to_owned()),
        clock_skew_seconds: None,
    }
    .resolve()
    .expect("valid")
    .expect("on");
    RemoteAuth::new(config, &OutboundPolicy::loopback_only(), "Test").expect("remote mode")
}

fn bearer(token: &str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::AUTHORIZATION,
        HeaderValue::from_str(&format!("Bearer {token}")).expect("a header value"),
    );
    headers
}

fn mcp() -> Uri {
    Uri::from_static("/mcp")
}

#[tokio::test]
async fn a_good_token_is_a_caller_with_its_scopes_capabilities() {
    let key = TestKey::es256("k1");
    let issuer = TestIssuer::start(&[&key]).await;
    let remote = remote(&issuer);
    let token = issuer.token(&key, RESOURCE, "portos:read openid");
    let caller = remote
        .authenticate(&bearer(&token), &mcp())
        .await
        .expect("accepted");
    assert_eq!(&*caller.subject, "user-1");
    assert_eq!(caller.client_id.as_deref(), Some("client-1"));
    assert_eq!(caller.capabilities, Capabilities::NONE.with(READ_PORTOS));
    assert_eq!(remote.insufficient(&caller, &[READ_PORTOS]), None);
    assert_eq!(
        remote.insufficient(&caller, &[READ_PORTOS, WRITE_PORTOS]),
        Some(Refusal::InsufficientScope(vec!["portos:write".to_owned()]))
    );
}

#[tokio::test]
async fn every_bad_presentation_is_refused_with_its_reason() {
    let key = TestKey::es256("k1");
    let stranger = TestKey::es256("k1");
    let issuer = TestIssuer::start(&[&key]).await;
    let remote = remote(&issuer);
    let good = issuer.token(&key, RESOURCE, "portos:read");
    let t = now();
    let mut expired = claims(&issuer.issuer, RESOURCE, t - 1000, "portos:read");
    expired["exp"] = json!(t - 500);
    let cases: Vec<(HeaderMap, Uri, Refusal)> = vec![
        (HeaderMap::new(), mcp(), Refusal::NoToken),
        (
            bearer(&good),
            format!("/mcp?access_token={good}").parse().expect("a URI"),
            Refusal::TokenInQuery,
        ),
        (
            HeaderMap::new(),
            "/x?a=1&access_token=abc".parse().expect("a URI"),
            Refusal::TokenInQuery,
        ),
        (
            bearer(&issuer.token(&key, "https://other.example/mcp", "portos:read")),
            mcp(),
            Refusal::InvalidToken(jwt::TokenError::WrongAudience),
        ),
        (
            bearer(&sign(&key, &jwt_header(&key), &expired)),
            mcp(),
            Refusal::InvalidToken(jwt::TokenError::Expired),
        ),
        (
            bearer(&issuer.token(&stranger, RESOURCE, "portos:read")),
            mcp(),
            Refusal::InvalidToken(jwt::TokenError::BadSignature),
        ),
        (
            bearer(&sign(
                &key,
                &json!({"alg": "none", "typ": "at+jwt"}),
                &claims(&issuer.issuer, RESOURCE, t, ""),
            )),
            mcp(),
            Refusal::InvalidToken(jwt::TokenError::AlgorithmRefused),
        ),
        (
            bearer("not-a-jwt"),
            mcp(),
            Refusal::InvalidToken(jwt::TokenError::Malformed),
        ),
    ];
    for (headers, uri, refusal) in cases {
        assert_eq!(
            remote.authenticate(&headers, &uri).await.err(),
            Some(refusal),
            "{uri} {headers:?}"
        );
    }
    let mut basic = HeaderMap::new();
    basic.insert(
        header::AUTHORIZATION,
        HeaderValue::from_static("Basic dTpw"),
    );
    assert_eq!(
        remote.authenticate(&basic, &mcp()).await.err(),
        Some(Refusal::NoToken)
    );
    let mut two = bearer(&good);
    two.append(header::AUTHORIZATION, HeaderValue::from_static("Bearer x"));
    assert!(matches!(
        remote.authenticate(&two, &mcp()).await.err(),
        Some(Refusal::Malformed(_))
    ));
    let spaced = bearer(&format!("{good} more"));
    assert!(matches!(
        remote.authenticate(&spaced, &mcp()).await.err(),
        Some(Refusal::Malformed(_))
    ));
}

#[tokio::test]
async fn a_rotated_key_is_fetched_when_a_token_names_it() {
    let old = TestKey::es256("old");
    let new = TestKey::ed25519("new");
    let issuer = TestIssuer::start(&[&old]).await;
    let remote = remote(&issuer);
    let token = issuer.token(&old, RESOURCE, "");
    assert!(remote.authenticate(&bearer(&token), &mcp()).await.is_ok());
    issuer.publish(&[&old, &new]);
    // Within the refetch interval the kept keys answer: an unknown key.
    let rotated = issuer.token(&new, RESOURCE, "");
    assert_eq!(
        remote.authenticate(&bearer(&rotated), &mcp()).await.err(),
        Some(Refusal::InvalidToken(jwt::TokenError::UnknownKey))
    );
    assert_eq!(issuer.key_fetches(), 1);
}

#[tokio::test]
async fn an_unreachable_issuer_is_a_503_not_a_pass() {
    let key = TestKey::es256("k1");
    let issuer = TestIssuer::start(&[&key]).await;
    let config = RemoteSettings {
        issuer: Some("http://127.0.0.1:9".to_owned()),
        resource: Some(RESOURCE.to_owned()),
        scopes: None,
        clock_skew_seconds: None,
    }
    .resolve()
    .expect("valid")
    .expect("on");
    let remote =
        RemoteAuth::new(config, &OutboundPolicy::loopback_only(), "Test").expect("remote mode");
    let token = issuer.token(&key, RESOURCE, "");
    let refused = remote
        .authenticate(&bearer(&token), &mcp())
        .await
        .expect_err("no keys");
    assert_eq!(refused.status(), 503);
}

#[test]
fn the_metadata_names_the_issuer_and_scopes() {
    let config = RemoteSettings {
        issuer: Some("https://as.example".to_owned()),
        resource: Some("https://tools.example/mcp".to_owned()),
        scopes: Some("portos:read=readPortos".to_owned()),
        clock_skew_seconds: None,
    }
    .resolve()
    .expect("valid")
    .expect("on");
    let remote =
        RemoteAuth::new(config, &OutboundPolicy::public_only(), "Test").expect("remote mode");
    let metadata: serde_json::Value = serde_json::from_str(remote.metadata()).expect("JSON");
    assert_eq!(
        metadata,
        json!({
            "resource": "https://tools.example/mcp",
            "authorization_servers": ["https://as.example"],
            "scopes_supported": ["portos:read"],
            "bearer_methods_supported": ["header"],
            "resource_name": "Test",
        })
    );
    assert_eq!(
        remote.metadata_paths(),
        [
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-protected-resource"
        ]
    );
    assert_eq!(
        remote.challenge(&Refusal::NoToken),
        r#"Bearer resource_metadata="https://tools.example/.well-known/oauth-protected-resource/mcp", scope="portos:read""#
    );
}
