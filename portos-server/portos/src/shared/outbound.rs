//! The one HTTP client builder for requests this server makes (feeds,
//! weather, peer worlds). TLS is rustls on the ring provider: reqwest's own
//! default pulls aws-lc, a slow C build, so its provider-less variant is used
//! and ring is installed as the process default before the first client.

use std::sync::Once;

/// A client builder with the crypto provider in place. Everything in this
/// process that builds a `reqwest::Client` must start here (a client built
/// without a provider panics).
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder()
}

fn install_crypto_provider() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Err means another provider was installed first; that one serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn builds_a_tls_capable_client() {
        let client = super::client_builder().build();
        assert!(client.is_ok(), "{client:?}");
    }
}
