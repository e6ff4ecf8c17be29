//! A stand-in authorization server for testing a server in remote mode
//! (docs/remote.md): signing keys of every accepted algorithm, tokens
//! minted with any header and claims (good ones, and every kind of bad
//! one), and [`TestIssuer`], which serves its RFC 8414 metadata and JWK Set
//! on a loopback port as a real issuer does.
//!
//! The RSA key is a fixed test key (ring makes no RSA keys); the others
//! are made fresh for each [`TestKey`]. None of them protects anything.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use axum::Json;
use axum::extract::State;
use axum::routing::get;
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair, RsaKeyPair};
use serde_json::{Value, json};

use crate::remote::b64url;
pub use crate::remote::keys::Algorithm;
use crate::remote::keys::KeySet;

/// A 2048-bit RSA key (PKCS #1 DER), for tests only.
const TEST_RSA_KEY: &[u8] = include_bytes!("../remote/testdata/rsa-2048.der");

enum Signer {
    Rsa(RsaKeyPair),
    Ecdsa(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
}

/// A signing key and the JWK that publishes its public half.
pub struct TestKey {
    pub alg: Algorithm,
    pub kid: String,
    signer: Signer,
}

impl std::fmt::Debug for TestKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestKey")
            .field("alg", &self.alg)
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl TestKey {
    /// The fixed RSA test key, signing with PKCS #1 v1.5 and SHA-256.
    pub fn rs256(kid: &str) -> TestKey {
        TestKey::rsa(Algorithm::Rs256, kid)
    }

    /// The fixed RSA test key under `alg` (an RS or PS algorithm).
    ///
    /// # Panics
    /// If the embedded key does not load (a broken build).
    pub fn rsa(alg: Algorithm, kid: &str) -> TestKey {
        #[allow(clippy::expect_used)]
        let pair = RsaKeyPair::from_der(TEST_RSA_KEY).expect("the test RSA key loads");
        TestKey {
            alg,
            kid: kid.to_owned(),
            signer: Signer::Rsa(pair),
        }
    }

    /// A new P-256 key (ES256).
    pub fn es256(kid: &str) -> TestKey {
        TestKey::ecdsa(Algorithm::Es256, kid)
    }

    /// A new P-384 key (ES384).
    pub fn es384(kid: &str) -> TestKey {
        TestKey::ecdsa(Algorithm::Es384, kid)
    }

    #[allow(clippy::expect_used)]
    fn ecdsa(alg: Algorithm, kid: &str) -> TestKey {
        let signing = match alg {
            Algorithm::Es384 => &signature::ECDSA_P384_SHA384_FIXED_SIGNING,
            _ => &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        };
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(signing, &rng).expect("a new EC key");
        let pair = EcdsaKeyPair::from_pkcs8(signing, pkcs8.as_ref(), &rng).expect("it loads");
        TestKey {
            alg,
            kid: kid.to_owned(),
            signer: Signer::Ecdsa(pair),
        }
    }

    /// A new Ed25519 key (EdDSA).
    #[allow(clippy::expect_used)]
    pub fn ed25519(kid: &str) -> TestKey {
        let rng = SystemRandom::new();
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).expect("a new Ed25519 key");
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).expect("it loads");
        TestKey {
            alg: Algorithm::EdDsa,
            kid: kid.to_owned(),
            signer: Signer::Ed25519(pair),
        }
    }

    /// One key of each accepted algorithm.
    pub fn every_kind() -> Vec<TestKey> {
        Algorithm::ALL
            .into_iter()
            .map(|alg| match alg {
                Algorithm::Es256 | Algorithm::Es384 => TestKey::ecdsa(alg, alg.name()),
                Algorithm::EdDsa => TestKey::ed25519(alg.name()),
                _ => TestKey::rsa(alg, alg.name()),
            })
            .collect()
    }

    /// The public key's bytes as published (the RSA key's DER, the EC
    /// point, the Ed25519 key): what an attacker would use as an HMAC
    /// secret.
    pub fn public_bytes(&self) -> Vec<u8> {
        match &self.signer {
            Signer::Rsa(pair) => pair.public().as_ref().to_vec(),
            Signer::Ecdsa(pair) => pair.public_key().as_ref().to_vec(),
            Signer::Ed25519(pair) => pair.public_key().as_ref().to_vec(),
        }
    }

    /// The JWK of the public key, with `kid`, `use` and `alg`.
    pub fn jwk(&self) -> Value {
        let mut jwk = match &self.signer {
            Signer::Rsa(pair) => {
                let components = signature::RsaPublicKeyComponents::<Vec<u8>>::from(pair.public());
                json!({
                    "kty": "RSA",
                    "n": b64url::encode(&components.n),
                    "e": b64url::encode(&components.e),
                })
            }
            Signer::Ecdsa(pair) => {
                let point = pair.public_key().as_ref();
                let half = (point.len() - 1) / 2;
                json!({
                    "kty": "EC",
                    "crv": if half == 48 { "P-384" } else { "P-256" },
                    "x": b64url::encode(&point[1..=half]),
                    "y": b64url::encode(&point[1 + half..]),
                })
            }
            Signer::Ed25519(pair) => json!({
                "kty": "OKP",
                "crv": "Ed25519",
                "x": b64url::encode(pair.public_key().as_ref()),
            }),
        };
        jwk["kid"] = json!(self.kid);
        jwk["use"] = json!("sig");
        jwk["alg"] = json!(self.alg.name());
        jwk
    }

    /// A set of this key alone, as the server reads it.
    ///
    /// # Panics
    /// If the key's own JWK is not read back (a broken build).
    pub fn set(&self) -> KeySet {
        let document = json!({ "keys": [self.jwk()] }).to_string();
        #[allow(clippy::expect_used)]
        KeySet::from_json(document.as_bytes()).expect("a set of one")
    }

    /// The signature of `message` under this key's algorithm.
    #[allow(clippy::expect_used)]
    fn signature(&self, message: &[u8]) -> Vec<u8> {
        let rng = SystemRandom::new();
        match &self.signer {
            Signer::Rsa(pair) => {
                let padding: &'static dyn signature::RsaEncoding = match self.alg {
                    Algorithm::Rs384 => &signature::RSA_PKCS1_SHA384,
                    Algorithm::Rs512 => &signature::RSA_PKCS1_SHA512,
                    Algorithm::Ps256 => &signature::RSA_PSS_SHA256,
                    Algorithm::Ps384 => &signature::RSA_PSS_SHA384,
                    Algorithm::Ps512 => &signature::RSA_PSS_SHA512,
                    _ => &signature::RSA_PKCS1_SHA256,
                };
                let mut signature = vec![0; pair.public().modulus_len()];
                pair.sign(padding, &rng, message, &mut signature)
                    .expect("RSA signs");
                signature
            }
            Signer::Ecdsa(pair) => pair
                .sign(&rng, message)
                .expect("ECDSA signs")
                .as_ref()
                .to_vec(),
            Signer::Ed25519(pair) => pair.sign(message).as_ref().to_vec(),
        }
    }
}

/// The header of a good token from `key`: its `alg` and `kid`, `typ: at+jwt`.
pub fn header(key: &TestKey) -> Value {
    json!({ "alg": key.alg.name(), "typ": "at+jwt", "kid": key.kid })
}

/// The claims of a good token: subject `user-1` of client `client-1`,
/// issued at `now`, valid five minutes, with `scope` (space-separated).
pub fn claims(issuer: &str, audience: &str, now: i64, scope: &str) -> Value {
    json!({
        "iss": issuer,
        "aud": audience,
        "sub": "user-1",
        "client_id": "client-1",
        "iat": now,
        "exp": now + 300,
        "scope": scope,
        "jti": uuid::Uuid::new_v4().to_string(),
    })
}

/// A compact JWS of `claims` under `header`, signed by `key` whatever the
/// header's `alg` says.
pub fn sign(key: &TestKey, header: &Value, claims: &Value) -> String {
    sign_raw(key, &header.to_string(), &claims.to_string())
}

/// [`sign`] of header and payload texts exactly as given.
pub fn sign_raw(key: &TestKey, header: &str, payload: &str) -> String {
    let input = format!(
        "{}.{}",
        b64url::encode(header.as_bytes()),
        b64url::encode(payload.as_bytes())
    );
    let signature = key.signature(input.as_bytes());
    format!("{input}.{}", b64url::encode(&signature))
}

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// An authorization server on a loopback port: its metadata
/// (`/.well-known/oauth-authorization-server`) names it and its JWK Set
/// (`/jwks`), which publishes the keys it was given (changeable, to test
/// key rotation). It counts the JWK Set fetches.
#[derive(Debug, Clone)]
pub struct TestIssuer {
    pub issuer: String,
    state: Arc<IssuerState>,
}

#[derive(Debug)]
struct IssuerState {
    published: Mutex<Vec<Value>>,
    fetches: Mutex<usize>,
    issuer: String,
}

impl TestIssuer {
    /// Starts serving on `127.0.0.1` with `keys` published.
    ///
    /// # Panics
    /// If no loopback port can be bound.
    #[allow(clippy::expect_used)]
    pub async fn start(keys: &[&TestKey]) -> TestIssuer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let address: SocketAddr = listener.local_addr().expect("its address");
        let issuer = format!("http://{address}");
        let state = Arc::new(IssuerState {
            published: Mutex::new(keys.iter().map(|key| key.jwk()).collect()),
            fetches: Mutex::new(0),
            issuer: issuer.clone(),
        });
        let router = axum::Router::new()
            .route("/.well-known/oauth-authorization-server", get(metadata))
            .route("/jwks", get(jwks))
            .with_state(state.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        TestIssuer { issuer, state }
    }

    /// Publishes `keys` instead of the keys published so far.
    pub fn publish(&self, keys: &[&TestKey]) {
        *self
            .state
            .published
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = keys.iter().map(|key| key.jwk()).collect();
    }

    /// How many times the JWK Set was fetched.
    pub fn key_fetches(&self) -> usize {
        *self
            .state
            .fetches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A good token from `key` for `audience` with `scope`.
    pub fn token(&self, key: &TestKey, audience: &str, scope: &str) -> String {
        sign(
            key,
            &header(key),
            &claims(&self.issuer, audience, now(), scope),
        )
    }
}

async fn metadata(State(state): State<Arc<IssuerState>>) -> Json<Value> {
    Json(json!({
        "issuer": state.issuer,
        "authorization_endpoint": format!("{}/authorize", state.issuer),
        "token_endpoint": format!("{}/token", state.issuer),
        "jwks_uri": format!("{}/jwks", state.issuer),
        "response_types_supported": ["code"],
        "code_challenge_methods_supported": ["S256"],
    }))
}

async fn jwks(State(state): State<Arc<IssuerState>>) -> Json<Value> {
    *state.fetches.lock().unwrap_or_else(PoisonError::into_inner) += 1;
    let keys = state
        .published
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    Json(json!({ "keys": keys }))
}
