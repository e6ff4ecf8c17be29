//! The issuer's public keys (a JWK Set, RFC 7517) as keys ring verifies
//! with. Only signing keys of the allowed algorithms are kept: RSA (PKCS #1
//! v1.5 and PSS, 2048 bits or more), ECDSA on P-256 and P-384, Ed25519. A
//! symmetric key (`kty: oct`) is never a verification key here, so a token
//! MACed with a public key as its secret has nothing to match.

// Public through `testing::issuer`, whose keys and key sets are these:
// without that feature nothing outside the crate reaches them.
#![cfg_attr(not(feature = "testing"), allow(unreachable_pub))]

use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde::Deserialize;

use super::b64url;

/// A signature algorithm a token may name in its `alg` (RFC 7518 §3.1,
/// RFC 8037 §3.1): the asymmetric ones only. `none` and the HMAC family
/// have no value here, so they can never be verified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Rs256,
    Rs384,
    Rs512,
    Ps256,
    Ps384,
    Ps512,
    Es256,
    Es384,
    EdDsa,
}

impl Algorithm {
    pub const ALL: [Algorithm; 9] = [
        Algorithm::Rs256,
        Algorithm::Rs384,
        Algorithm::Rs512,
        Algorithm::Ps256,
        Algorithm::Ps384,
        Algorithm::Ps512,
        Algorithm::Es256,
        Algorithm::Es384,
        Algorithm::EdDsa,
    ];

    /// The algorithm an `alg` names exactly (names are case-sensitive).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Algorithm::ALL
            .into_iter()
            .find(|algorithm| algorithm.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Rs256 => "RS256",
            Algorithm::Rs384 => "RS384",
            Algorithm::Rs512 => "RS512",
            Algorithm::Ps256 => "PS256",
            Algorithm::Ps384 => "PS384",
            Algorithm::Ps512 => "PS512",
            Algorithm::Es256 => "ES256",
            Algorithm::Es384 => "ES384",
            Algorithm::EdDsa => "EdDSA",
        }
    }
}

/// What a key is, as ring reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Material {
    /// Modulus and exponent, big-endian.
    Rsa { n: Vec<u8>, e: Vec<u8> },
    /// An uncompressed point (`0x04 ‖ x ‖ y`) on the named curve.
    Ec { curve: Curve, point: Vec<u8> },
    /// The 32-byte public key.
    Ed25519(Vec<u8>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Curve {
    P256,
    P384,
}

impl Curve {
    fn coordinate_len(self) -> usize {
        match self {
            Curve::P256 => 32,
            Curve::P384 => 48,
        }
    }
}

/// One verification key of the issuer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyingKey {
    /// The key's `kid`, which a token's header names.
    pub kid: Option<String>,
    /// The one algorithm the key is for, when the JWK says (`alg`).
    alg: Option<Algorithm>,
    material: Material,
}

/// A JWK as published; unknown members are ignored (RFC 7517 §4).
#[derive(Debug, Deserialize)]
struct Jwk {
    kty: String,
    #[serde(default, rename = "use")]
    usage: Option<String>,
    #[serde(default)]
    key_ops: Option<Vec<String>>,
    #[serde(default)]
    alg: Option<String>,
    #[serde(default)]
    kid: Option<String>,
    #[serde(default)]
    n: Option<String>,
    #[serde(default)]
    e: Option<String>,
    #[serde(default)]
    crv: Option<String>,
    #[serde(default)]
    x: Option<String>,
    #[serde(default)]
    y: Option<String>,
}

impl VerifyingKey {
    /// The key a JWK describes, or `None` for one this server does not
    /// verify with: an encryption key, a symmetric key, an algorithm or
    /// curve outside the allow list, an RSA modulus under 2048 bits, or
    /// malformed members.
    fn from_jwk(jwk: Jwk) -> Option<VerifyingKey> {
        if jwk.usage.as_deref().is_some_and(|usage| usage != "sig") {
            return None;
        }
        if let Some(ops) = &jwk.key_ops
            && !ops.iter().any(|op| op == "verify")
        {
            return None;
        }
        // A JWK naming an algorithm outside the allow list (HS256 on an RSA
        // key, say) is not used at all.
        let alg = match jwk.alg.as_deref() {
            Some(name) => Some(Algorithm::from_name(name)?),
            None => None,
        };
        let material = match jwk.kty.as_str() {
            "RSA" => {
                let n = b64url::decode(jwk.n.as_deref()?)?;
                let e = b64url::decode(jwk.e.as_deref()?)?;
                let modulus_bits = n.iter().skip_while(|byte| **byte == 0).count() * 8;
                if modulus_bits < 2048 || e.is_empty() {
                    return None;
                }
                Material::Rsa { n, e }
            }
            "EC" => {
                let curve = match jwk.crv.as_deref()? {
                    "P-256" => Curve::P256,
                    "P-384" => Curve::P384,
                    _ => return None,
                };
                let x = b64url::decode(jwk.x.as_deref()?)?;
                let y = b64url::decode(jwk.y.as_deref()?)?;
                let len = curve.coordinate_len();
                if x.len() != len || y.len() != len {
                    return None;
                }
                let mut point = Vec::with_capacity(1 + 2 * len);
                point.push(0x04);
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                Material::Ec { curve, point }
            }
            "OKP" if jwk.crv.as_deref() == Some("Ed25519") => {
                let x = b64url::decode(jwk.x.as_deref()?)?;
                if x.len() != 32 {
                    return None;
                }
                Material::Ed25519(x)
            }
            _ => return None,
        };
        let key = VerifyingKey {
            kid: jwk.kid,
            alg,
            material,
        };
        // A JWK whose `alg` does not fit its own key type is not used.
        match alg {
            Some(alg) if !key.fits(alg) => None,
            _ => Some(key),
        }
    }

    /// Whether this key verifies `alg`: its type (and curve) match, and its
    /// own `alg`, when it names one, is the same.
    pub fn fits(&self, alg: Algorithm) -> bool {
        if self.alg.is_some_and(|own| own != alg) {
            return false;
        }
        matches!(
            (&self.material, alg),
            (
                Material::Rsa { .. },
                Algorithm::Rs256
                    | Algorithm::Rs384
                    | Algorithm::Rs512
                    | Algorithm::Ps256
                    | Algorithm::Ps384
                    | Algorithm::Ps512
            ) | (
                Material::Ec {
                    curve: Curve::P256,
                    ..
                },
                Algorithm::Es256
            ) | (
                Material::Ec {
                    curve: Curve::P384,
                    ..
                },
                Algorithm::Es384
            ) | (Material::Ed25519(_), Algorithm::EdDsa)
        )
    }

    /// Whether `signature` is this key's signature of `message` under
    /// `alg` (false for an algorithm the key does not fit).
    pub fn verifies(&self, alg: Algorithm, message: &[u8], signature: &[u8]) -> bool {
        if !self.fits(alg) {
            return false;
        }
        let checked = match &self.material {
            Material::Rsa { n, e } => {
                let params = match alg {
                    Algorithm::Rs256 => &signature::RSA_PKCS1_2048_8192_SHA256,
                    Algorithm::Rs384 => &signature::RSA_PKCS1_2048_8192_SHA384,
                    Algorithm::Rs512 => &signature::RSA_PKCS1_2048_8192_SHA512,
                    Algorithm::Ps256 => &signature::RSA_PSS_2048_8192_SHA256,
                    Algorithm::Ps384 => &signature::RSA_PSS_2048_8192_SHA384,
                    Algorithm::Ps512 => &signature::RSA_PSS_2048_8192_SHA512,
                    _ => return false,
                };
                RsaPublicKeyComponents { n, e }.verify(params, message, signature)
            }
            Material::Ec { curve, point } => {
                let algorithm = match curve {
                    Curve::P256 => &signature::ECDSA_P256_SHA256_FIXED,
                    Curve::P384 => &signature::ECDSA_P384_SHA384_FIXED,
                };
                UnparsedPublicKey::new(algorithm, point).verify(message, signature)
            }
            Material::Ed25519(key) => {
                UnparsedPublicKey::new(&signature::ED25519, key).verify(message, signature)
            }
        };
        checked.is_ok()
    }
}

/// The issuer's verification keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeySet {
    keys: Vec<VerifyingKey>,
}

/// Why a JWK Set document was not read.
#[derive(Debug, thiserror::Error)]
#[error("the JWK Set is not a JSON object with a `keys` array: {0}")]
pub struct KeySetError(#[from] serde_json::Error);

impl KeySet {
    /// Reads a JWK Set (`{"keys": [...]}`), keeping the keys this server
    /// verifies with and skipping the rest (RFC 7517 §5: a set may hold
    /// keys a reader does not understand).
    pub fn from_json(body: &[u8]) -> Result<KeySet, KeySetError> {
        #[derive(Deserialize)]
        struct Document {
            keys: Vec<serde_json::Value>,
        }
        let document: Document = serde_json::from_slice(body)?;
        let keys = document
            .keys
            .into_iter()
            .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
            .filter_map(VerifyingKey::from_jwk)
            .collect();
        Ok(KeySet { keys })
    }

    // The test issuer counts what it publishes.
    #[cfg(any(test, feature = "testing"))]
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys that may have signed a token naming `kid` and `alg`: the
    /// key with that `kid` (when the token names one), fitting `alg`.
    pub fn candidates<'k>(
        &'k self,
        kid: Option<&'k str>,
        alg: Algorithm,
    ) -> impl Iterator<Item = &'k VerifyingKey> + 'k {
        self.keys
            .iter()
            .filter(move |key| kid.is_none_or(|kid| key.kid.as_deref() == Some(kid)))
            .filter(move |key| key.fits(alg))
    }

    /// Whether a key with this `kid` is in the set.
    pub fn knows(&self, kid: &str) -> bool {
        self.keys.iter().any(|key| key.kid.as_deref() == Some(kid))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_allowed_signing_keys_are_kept() {
        let n = b64url::encode(&[0xC1; 256]);
        let short_n = b64url::encode(&[0xC1; 128]);
        let coordinate = b64url::encode(&[7; 32]);
        let set = json!({ "keys": [
            { "kty": "RSA", "kid": "rsa", "n": n, "e": "AQAB" },
            { "kty": "RSA", "kid": "enc", "use": "enc", "n": n, "e": "AQAB" },
            { "kty": "RSA", "kid": "short", "n": short_n, "e": "AQAB" },
            { "kty": "RSA", "kid": "hs", "alg": "HS256", "n": n, "e": "AQAB" },
            { "kty": "RSA", "kid": "mismatch", "alg": "ES256", "n": n, "e": "AQAB" },
            { "kty": "oct", "kid": "secret", "k": "c2VjcmV0" },
            { "kty": "EC", "kid": "p256", "crv": "P-256", "x": coordinate, "y": coordinate },
            { "kty": "EC", "kid": "k1", "crv": "secp256k1", "x": coordinate, "y": coordinate },
            { "kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": coordinate },
            { "kty": "OKP", "kid": "x", "crv": "X25519", "x": coordinate },
            "not a key",
        ]});
        let set = KeySet::from_json(set.to_string().as_bytes()).expect("a set");
        let kids: Vec<_> = set
            .keys
            .iter()
            .filter_map(|key| key.kid.as_deref())
            .collect();
        assert_eq!(kids, ["rsa", "p256", "ed"]);
        assert!(KeySet::from_json(b"[]").is_err());
        assert!(KeySet::from_json(b"{\"keys\": 1}").is_err());
    }

    #[test]
    fn keys_fit_only_their_algorithms() {
        let n = b64url::encode(&[0xC1; 256]);
        let set = json!({ "keys": [
            { "kty": "RSA", "kid": "any", "n": n, "e": "AQAB" },
            { "kty": "RSA", "kid": "ps", "alg": "PS256", "n": n, "e": "AQAB" },
        ]});
        let set = KeySet::from_json(set.to_string().as_bytes()).expect("a set");
        assert_eq!(set.candidates(None, Algorithm::Rs256).count(), 1);
        assert_eq!(set.candidates(None, Algorithm::Ps256).count(), 2);
        assert_eq!(set.candidates(Some("ps"), Algorithm::Ps256).count(), 1);
        assert_eq!(set.candidates(Some("nope"), Algorithm::Ps256).count(), 0);
        assert_eq!(set.candidates(None, Algorithm::Es256).count(), 0);
        assert!(set.knows("ps") && !set.knows("other"));
    }

    #[test]
    fn algorithm_names_are_exact() {
        for algorithm in Algorithm::ALL {
            assert_eq!(Algorithm::from_name(algorithm.name()), Some(algorithm));
        }
        for refused in ["none", "None", "HS256", "rs256", "ES256K", "RS1", ""] {
            assert_eq!(Algorithm::from_name(refused), None, "{refused}");
        }
    }
}
