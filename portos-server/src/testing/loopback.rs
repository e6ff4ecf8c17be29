//! A stand-in for a remote service (a model provider, a weather service, a
//! collector) served on a loopback port, so a test's server talks to it
//! over real HTTP without leaving the machine.

/// Serves `router` on a port of 127.0.0.1 for the rest of the test process
/// and returns its base URL (`http://127.0.0.1:{port}`, no trailing slash).
///
/// # Panics
/// If no loopback port can be bound.
#[allow(clippy::expect_used)]
pub async fn serve_on_loopback(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let address = listener.local_addr().expect("its address");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    format!("http://{address}")
}
