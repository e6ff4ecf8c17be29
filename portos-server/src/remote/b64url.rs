//! Base64url without padding (RFC 7515 §2), strictly: padding, other
//! alphabets and non-canonical trailing bits are refused, so one token has
//! one spelling.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

pub(crate) fn decode(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

// Only the test issuer signs tokens.
#[cfg(any(test, feature = "testing"))]
pub(crate) fn encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_spelling_only() {
        assert_eq!(decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(decode("aGk="), None, "padding");
        assert_eq!(decode("aGl"), None, "trailing bits");
        assert_eq!(decode("a+k/"), None, "standard alphabet");
        assert_eq!(encode(b"hi"), "aGk");
    }
}
