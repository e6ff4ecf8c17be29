//! The one HTTP client builder for requests this server makes (feeds,
//! weather, peer worlds): the runtime's, with TLS (rustls on ring) in place.

/// A client builder with the crypto provider in place. Everything in this
/// process that builds a `reqwest::Client` must start here (a client built
/// without a provider panics).
pub fn client_builder() -> reqwest::ClientBuilder {
    portos_server::outbound::client_builder()
}

#[cfg(test)]
mod tests {
    #[test]
    fn builds_a_tls_capable_client() {
        let client = super::client_builder().build();
        assert!(client.is_ok(), "{client:?}");
    }
}
