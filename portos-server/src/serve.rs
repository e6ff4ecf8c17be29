//! Running the server: bind, serve, stop cleanly on SIGINT/SIGTERM.

use std::io::Write;
use std::process::ExitCode;

use tokio::net::TcpListener;

use crate::app::App;
use crate::builder::ServerBuilder;
use crate::http;

/// Builds the server and serves it on a runtime of its own until SIGINT or
/// SIGTERM (what the command line's default action does).
pub(crate) fn run(builder: ServerBuilder) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start the runtime: {error}")),
    };
    let traces = match install_telemetry(&builder, runtime.handle()) {
        Ok(traces) => traces,
        Err(message) => return fail(&message),
    };
    let code = runtime.block_on(async move {
        let served = match builder.build() {
            Ok(app) => serve(app).await,
            Err(error) => Err(error.to_string()),
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => fail(&message),
        }
    });
    traces.shutdown();
    code
}

/// Serves `app` on its configured address until SIGINT or SIGTERM; in-flight
/// requests finish first.
pub async fn serve(app: App) -> Result<(), String> {
    let bind = app.config.bind;
    let listener = TcpListener::bind(bind)
        .await
        .map_err(|error| format!("cannot listen on {bind}: {error}"))?;
    serve_on(app, listener, shutdown_signal()).await
}

/// Serves `app` on `listener` until `shutdown` completes.
pub async fn serve_on(
    app: App,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    let registry = app.registry.clone();
    let tools = registry.tools().len();
    let name = app.identity.name.clone();
    let data = app
        .store
        .path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    // An HTTP tool whose input cannot be flattened is a declaration mistake:
    // refuse to start rather than serve a broken tools.min.json.
    app.documents.tools_min()?;
    // What the last run left unfinished is settled before anyone can ask.
    let settled = app
        .jobs
        .recover()
        .await
        .map_err(|error| format!("cannot settle the unfinished jobs: {error}"))?;
    if settled > 0 {
        tracing::info!(
            jobs = settled,
            "settled the jobs a previous run left unfinished"
        );
    }
    // Several servers on one database: leases say which runs what.
    app.jobs.keep_leases(crate::jobs::TakeOver::Yes);
    let jobs = app.jobs.clone();
    // Several servers on one database: what the others change is read here.
    crate::cluster::follow_other_servers(&app);
    let local = listener.local_addr().map_err(|error| error.to_string())?;
    // The peer address goes with every request, for the loopback-only Agent
    // Tools routes.
    if http::tracing_requested() {
        let router = http::router(app).map_err(|error| error.to_string())?;
        tracing::info!(address = %local, %data, tools, "{name} listening on http://{local}");
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|error| error.to_string())?;
    } else {
        let service = http::service(app).map_err(|error| error.to_string())?;
        tracing::info!(address = %local, %data, tools, "{name} listening on http://{local}");
        axum::serve(
            listener,
            axum::ServiceExt::<axum::extract::Request>::into_make_service_with_connect_info::<
                std::net::SocketAddr,
            >(service),
        )
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|error| error.to_string())?;
    }
    // In-flight requests have finished; tell any adapter still running.
    registry.shutdown_token().cancel();
    // The jobs this server ran are another's to take over, now.
    if let Err(error) = jobs.release_leases().await {
        tracing::warn!(%error, "cannot hand this server's jobs over");
    }
    tracing::info!("{name} stopped");
    Ok(())
}

async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
    tracing::info!("shutdown requested");
}

/// Logs to stderr and, when configured, exports spans from `runtime`
/// (docs/observability.md).
pub(crate) fn install_telemetry(
    builder: &ServerBuilder,
    runtime: &tokio::runtime::Handle,
) -> Result<crate::trace_export::Traces, String> {
    let config = builder.config();
    let identity = builder.identity();
    crate::trace_export::install(
        config.traces.as_ref(),
        (&config.app, &identity.version),
        &config.outbound,
        runtime,
    )
}

fn fail(message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "{}: {message}", crate::config::program());
    ExitCode::FAILURE
}
