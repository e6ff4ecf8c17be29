use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::canonical_json;

/// `"` + base64url(sha256(canonicalJSON(body))) + `"`: strong, unpadded.
pub fn etag_of(body: &Value) -> String {
    quote(&Sha256::digest(canonical_json::to_string(body).as_bytes()))
}

/// Wraps a SHA-256 digest as a strong ETag.
pub(crate) fn quote(digest: &[u8]) -> String {
    format!("\"{}\"", URL_SAFE_NO_PAD.encode(digest))
}
