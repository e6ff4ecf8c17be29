//! The HTTP client every outbound request goes through. Names resolve
//! through [`CheckedResolver`], which hands the connector only the
//! addresses the policy allows (so the address judged is the address
//! connected to: no second lookup a rebinding DNS server could answer
//! differently); a URL's literal address is judged before the request is
//! made, and every redirect hop again; system proxies are off, since a
//! proxy would hide the destination.

use std::error::Error as _;
use std::net::SocketAddr;
use std::sync::{Arc, Once};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The error type a resolver answers with.
type BoxError = Box<dyn std::error::Error + Send + Sync>;
use reqwest::{Method, RequestBuilder, redirect};

use super::policy::{OutboundPolicy, Refused};
use super::stats::{self, Outcome};

/// How many redirects a request follows.
const MAX_REDIRECTS: usize = 10;

/// An HTTP client that sends only where its policy allows.
#[derive(Clone, Debug)]
pub struct OutboundClient {
    client: reqwest::Client,
    policy: Arc<OutboundPolicy>,
}

/// Why a request was not made.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("{0}")]
    Refused(#[from] Refused),
    #[error("`{0}` is not an http or https URL")]
    NotHttp(String),
}

impl OutboundClient {
    /// A client for `policy`, the rest of `builder`'s settings kept (time
    /// limits, user agent); its resolver, redirect policy and proxies are
    /// this module's.
    pub fn new(
        builder: reqwest::ClientBuilder,
        policy: Arc<OutboundPolicy>,
    ) -> Result<OutboundClient, reqwest::Error> {
        let redirects = checked_redirects(policy.clone());
        OutboundClient::build(builder, policy, redirects)
    }

    /// As [`OutboundClient::new`], answering a redirect as it is instead of
    /// following it (a peer protocol where a redirect is a wrong answer).
    pub fn never_redirecting(
        builder: reqwest::ClientBuilder,
        policy: Arc<OutboundPolicy>,
    ) -> Result<OutboundClient, reqwest::Error> {
        OutboundClient::build(builder, policy, redirect::Policy::none())
    }

    /// As [`OutboundClient::new`], following only redirects that stay on
    /// the first request's origin (an API whose moved resources redirect
    /// within it); a redirect elsewhere is answered as it is.
    pub fn same_origin_redirects(
        builder: reqwest::ClientBuilder,
        policy: Arc<OutboundPolicy>,
    ) -> Result<OutboundClient, reqwest::Error> {
        let redirects = redirect::Policy::custom(|attempt| {
            let first = attempt.previous().first().map(reqwest::Url::origin);
            if attempt.previous().len() >= MAX_REDIRECTS || first != Some(attempt.url().origin()) {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        OutboundClient::build(builder, policy, redirects)
    }

    fn build(
        builder: reqwest::ClientBuilder,
        policy: Arc<OutboundPolicy>,
        redirects: redirect::Policy,
    ) -> Result<OutboundClient, reqwest::Error> {
        let client = builder
            .dns_resolver(Arc::new(CheckedResolver {
                policy: policy.clone(),
            }))
            .redirect(redirects)
            .no_proxy()
            .build()?;
        Ok(OutboundClient { client, policy })
    }

    /// A request to `url`, or why it may not be made (a literal address the
    /// policy refuses; a name is judged when it resolves).
    pub fn request(&self, method: Method, url: &str) -> Result<RequestBuilder, OutboundError> {
        let parsed =
            reqwest::Url::parse(url).map_err(|_| OutboundError::NotHttp(url.to_owned()))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(OutboundError::NotHttp(url.to_owned()));
        }
        let host = parsed
            .host_str()
            .ok_or_else(|| OutboundError::NotHttp(url.to_owned()))?;
        if let Err(refused) = self.policy.check_host(host) {
            stats::count(Outcome::Refused);
            return Err(refused.into());
        }
        Ok(self.client.request(method, parsed))
    }

    /// Sends `request` (made by [`OutboundClient::request`]) as an HTTP
    /// client span (OpenTelemetry's HTTP conventions: the method, the
    /// server's name and port, the status; never the URL's path or query,
    /// which may carry a feed's token) carrying the trace context onward,
    /// and counts how it ended.
    pub async fn send(&self, request: RequestBuilder) -> Result<reqwest::Response, reqwest::Error> {
        let mut request = request.build()?;
        let span = tracing::info_span!(
            target: portos_core::telemetry::SPAN_TARGET,
            "outbound request",
            otel.name = request.method().as_str(),
            otel.kind = "client",
            otel.status_code = tracing::field::Empty,
            http.request.method = request.method().as_str(),
            server.address = request.url().host_str().unwrap_or_default(),
            server.port = i64::from(request.url().port_or_known_default().unwrap_or_default()),
            http.response.status_code = tracing::field::Empty,
            "error.type" = tracing::field::Empty,
        );
        if !span.is_disabled() {
            let _inside = span.enter();
            crate::telemetry::traces::inject(request.headers_mut());
        }
        let sent = portos_core::telemetry::in_span(&span, self.client.execute(request)).await;
        let outcome = match &sent {
            Ok(response) => {
                let status = response.status();
                span.record("http.response.status_code", i64::from(status.as_u16()));
                if status.is_client_error() || status.is_server_error() {
                    span.record("error.type", status.as_str());
                    span.record("otel.status_code", "ERROR");
                }
                Outcome::Sent
            }
            Err(error) => {
                let refused = refusal(error).is_some();
                span.record(
                    "error.type",
                    if refused { "refused" } else { "unreachable" },
                );
                span.record("otel.status_code", "ERROR");
                if refused {
                    Outcome::Refused
                } else {
                    Outcome::Failed
                }
            }
        };
        stats::count(outcome);
        sent
    }

    pub fn get(&self, url: &str) -> Result<RequestBuilder, OutboundError> {
        self.request(Method::GET, url)
    }

    pub fn post(&self, url: &str) -> Result<RequestBuilder, OutboundError> {
        self.request(Method::POST, url)
    }

    pub fn policy(&self) -> &OutboundPolicy {
        &self.policy
    }
}

/// A reqwest builder with TLS ready (rustls on ring: reqwest's own default
/// would pull aws-lc, a slow C build). Every client of this process starts
/// here: a client built without a provider panics.
pub fn client_builder() -> reqwest::ClientBuilder {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        // Err means another provider was installed first; that one serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    reqwest::Client::builder()
}

/// The policy's refusal inside a failed request (its resolver's or its
/// redirect check's), if that is why it failed.
pub fn refusal(error: &reqwest::Error) -> Option<&Refused> {
    let mut source = error.source();
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<Refused>() {
            return Some(refused);
        }
        source = cause.source();
    }
    None
}

/// Resolves with the owner's pinned names, then the system resolver, and
/// keeps the addresses the policy allows (all of them for a name the owner allowed); none left is a
/// refusal naming the first one refused.
#[derive(Debug)]
struct CheckedResolver {
    policy: Arc<OutboundPolicy>,
}

impl Resolve for CheckedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // Under an allow-list-only policy an unlisted name is not even
            // looked up: the lookup itself would leave the machine.
            if let Err(refused) = policy.check_host(&host) {
                return Err(Box::new(refused) as BoxError);
            }
            let resolved: Vec<SocketAddr> = match policy.pinned(&host) {
                Some(addresses) => addresses
                    .into_iter()
                    .map(|ip| SocketAddr::new(ip, 0))
                    .collect(),
                None => tokio::net::lookup_host((host.as_str(), 0)).await?.collect(),
            };
            let by_name = policy.allows_host(&host);
            let mut allowed = Vec::new();
            let mut first_refusal = None;
            for address in resolved {
                match policy.check_ip(address.ip()) {
                    Err(refused) if !by_name => {
                        first_refusal.get_or_insert(refused.for_host(&host, address.ip()));
                    }
                    _ => allowed.push(address),
                }
            }
            match (allowed.is_empty(), first_refusal) {
                (true, Some(refused)) => Err(Box::new(refused) as _),
                _ => Ok(Box::new(allowed.into_iter()) as Addrs),
            }
        })
    }
}

/// Follows up to [`MAX_REDIRECTS`] hops, judging each hop's host (a name's
/// addresses are judged by the resolver when the hop connects).
fn checked_redirects(policy: Arc<OutboundPolicy>) -> redirect::Policy {
    redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= MAX_REDIRECTS {
            return attempt.error("too many redirects");
        }
        let host = attempt.url().host_str().unwrap_or_default().to_owned();
        match policy.check_host(&host) {
            Ok(()) => attempt.follow(),
            Err(refused) => attempt.error(refused),
        }
    })
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    use axum::routing::get;

    use super::*;

    /// A stand-in server on loopback: `/ok` answers, `/away` redirects to
    /// a private address, `/lan` to a name the tests pin, `/home` to
    /// `localhost`.
    async fn stand_in() -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let router = Router::new()
            .route("/ok", get(|| async { "fine" }))
            .route(
                "/away",
                get(|| async {
                    (
                        StatusCode::FOUND,
                        [(header::LOCATION, "http://10.0.0.1/secret")],
                    )
                        .into_response()
                }),
            )
            .route(
                "/lan",
                get(|| async {
                    (
                        StatusCode::FOUND,
                        [(header::LOCATION, "http://lan.test/ok")],
                    )
                        .into_response()
                }),
            )
            .route(
                "/home",
                get(move || async move {
                    let to = format!("http://localhost:{}/ok", address.port());
                    (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
                }),
            );
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        address
    }

    fn client(policy: OutboundPolicy) -> OutboundClient {
        OutboundClient::new(client_builder(), Arc::new(policy)).expect("a client")
    }

    #[tokio::test]
    async fn a_literal_refused_address_is_refused_before_any_request() {
        let server = stand_in().await;
        let public = client(OutboundPolicy::public_only());
        let refused = public
            .get(&format!("http://{server}/ok"))
            .expect_err("loopback literal");
        assert!(
            matches!(refused, OutboundError::Refused(ref r) if r.kind == "loopback"),
            "{refused}"
        );
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://[::1]:22/",
            "http://[::ffff:10.0.0.1]/",
            "http://250.250.250.250/",
        ] {
            assert!(public.get(url).is_err(), "{url}");
        }
        assert!(matches!(
            public.get("file:///etc/passwd"),
            Err(OutboundError::NotHttp(_))
        ));
    }

    #[tokio::test]
    async fn a_name_is_judged_by_the_addresses_it_resolves_to() {
        let server = stand_in().await;
        let url = format!("http://localhost:{}/ok", server.port());
        let error = client(OutboundPolicy::public_only())
            .get(&url)
            .expect("a name passes until it resolves")
            .send()
            .await
            .expect_err("localhost is loopback");
        let refused = refusal(&error).expect("the policy's refusal");
        assert!(refused.destination.starts_with("localhost ("), "{refused}");
        assert_eq!(refused.kind, "loopback");

        // The owner may allow the name itself: its addresses are then not
        // judged, though the same address written out still is.
        let by_name = client(OutboundPolicy::allowing("localhost").expect("valid"));
        let answer = by_name
            .get(&url)
            .expect("allowed")
            .send()
            .await
            .expect("sent");
        assert_eq!(answer.text().await.expect("body"), "fine");
        assert!(by_name.get(&format!("http://{server}/ok")).is_err());
    }

    #[tokio::test]
    async fn every_redirect_hop_is_judged_before_it_is_followed() {
        let server = stand_in().await;
        let local = client(OutboundPolicy::loopback_too());
        let answer = local
            .get(&format!("http://{server}/ok"))
            .expect("allowed")
            .send()
            .await
            .expect("sent");
        assert_eq!(answer.status(), 200);

        let error = local
            .get(&format!("http://{server}/away"))
            .expect("allowed")
            .send()
            .await
            .expect_err("the hop goes to a private address");
        let refused = refusal(&error).expect("the policy's refusal");
        assert_eq!(refused.destination, "10.0.0.1");
        assert_eq!(refused.kind, "private (RFC 1918)");

        // A hop to a name is judged when it resolves: allowed here.
        let answer = local
            .get(&format!("http://{server}/home"))
            .expect("allowed")
            .send()
            .await
            .expect("followed to localhost");
        assert_eq!(answer.text().await.expect("body"), "fine");
    }

    #[tokio::test]
    async fn a_pinned_name_connects_only_to_an_allowed_pinned_address() {
        let server = stand_in().await;
        let pinned = |hosts: &str| {
            client(
                OutboundPolicy::loopback_only()
                    .with_hosts(hosts)
                    .expect("valid"),
            )
        };
        // Never looked up (no resolver would know these names), connected
        // to the allowed address only.
        let answer = pinned("feeds.test=10.0.0.1,feeds.test=127.0.0.1")
            .get(&format!("http://feeds.test:{}/ok", server.port()))
            .expect("one pinned address is allowed")
            .send()
            .await
            .expect("sent to 127.0.0.1");
        assert_eq!(answer.text().await.expect("body"), "fine");

        let refused = pinned("rebind.test=10.0.0.1")
            .get(&format!("http://rebind.test:{}/ok", server.port()))
            .expect_err("refused before any request");
        assert!(
            matches!(refused, OutboundError::Refused(ref r) if r.destination == "rebind.test (10.0.0.1)"),
            "{refused}"
        );

        // A redirect to a pinned name is judged by the pinned address.
        let redirected = client(
            OutboundPolicy::loopback_too()
                .with_hosts("lan.test=192.168.7.7")
                .expect("valid"),
        );
        let error = redirected
            .get(&format!("http://{server}/lan"))
            .expect("allowed")
            .send()
            .await
            .expect_err("the hop's pinned address is private");
        let refused = refusal(&error).expect("the policy's refusal");
        assert_eq!(refused.destination, "lan.test (192.168.7.7)");
    }
}
