//! The OTLP exporter's HTTP client: the outbound client (its policy, rustls
//! on ring) on the server's runtime. The exporter runs on a thread of its
//! own and waits with a plain executor, so each request is spawned on the
//! runtime and its answer awaited from there. Its requests open no span:
//! exporting must not make more to export.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};

use crate::outbound::{OutboundClient, OutboundPolicy, client_builder};

/// How long one export may take.
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);
/// What a collector's answer may weigh (it says little).
const MAX_ANSWER_BYTES: usize = 64 * 1024;

#[derive(Clone, Debug)]
pub(super) struct OtlpClient {
    client: OutboundClient,
    runtime: tokio::runtime::Handle,
}

impl OtlpClient {
    pub(super) fn new(
        policy: &OutboundPolicy,
        runtime: tokio::runtime::Handle,
    ) -> Result<OtlpClient, String> {
        let client = OutboundClient::never_redirecting(
            client_builder().timeout(EXPORT_TIMEOUT),
            Arc::new(policy.clone()),
        )
        .map_err(|error| format!("--otlp-endpoint: cannot make its client: {error}"))?;
        Ok(OtlpClient { client, runtime })
    }
}

#[async_trait::async_trait]
impl HttpClient for OtlpClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let (parts, body) = request.into_parts();
        let builder = self
            .client
            .request(parts.method, &parts.uri.to_string())?
            .headers(parts.headers)
            .body(body);
        let answer = self.runtime.spawn(async move {
            let mut response = builder.send().await?;
            let status = response.status();
            let headers = std::mem::take(response.headers_mut());
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await? {
                if body.len() + chunk.len() > MAX_ANSWER_BYTES {
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok::<_, reqwest::Error>((status, headers, Bytes::from(body)))
        });
        let (status, headers, body) = answer.await??;
        let mut response = Response::new(body);
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        Ok(response)
    }
}
