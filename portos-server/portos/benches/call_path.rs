//! The registry call path for `time.now`: parse the envelope, resolve,
//! authorize, validate, fingerprint, idempotency, spawn and await the adapter,
//! normalize. Compared in the same run with calling the adapter function
//! directly, so the difference is the registry's overhead.
//!
//! `cargo bench -p portos --bench call_path`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use portos::build_registry;
use portos_core::{Registry, Shared, ToolCall};
use portos_server::Config;
use portos_server::clock::UserClock;
use serde_json::json;

/// The clock the registry would give `time.now`, looked up per call as
/// the registry's generated code does.
fn clock(registry: &Registry) -> Shared<UserClock> {
    registry
        .state()
        .shared::<UserClock>()
        .expect("the server's clock")
}

fn call_path(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let config = Config {
        timezone: Some("Europe/Paris".to_owned()),
        ..portos::config()
    };
    let registry = build_registry(
        config,
        &portos::Options::default(),
        &portos::store::open_in_memory().expect("store"),
    )
    .expect("registry");
    let authority = portos_words::principal::voice();
    let mut group = c.benchmark_group("time_now");

    group.bench_function("adapter_direct", |b| {
        b.iter(|| {
            let result = runtime.block_on(portos::domains::time::tools::now(clock(&registry)));
            black_box(result.map(|r| r.ok).unwrap_or(false))
        });
    });

    group.bench_function("adapter_direct_as_json", |b| {
        b.iter(|| {
            let result = runtime.block_on(portos::domains::time::tools::now(clock(&registry)));
            black_box(result.ok().and_then(|r| serde_json::to_value(r).ok()))
        });
    });

    // Each request gets a fresh requestId; building the request body is
    // setup (not timed), parsing it is part of the path.
    let mut counter = 0_u64;
    group.bench_function("registry_fresh_request", |b| {
        b.iter_batched(
            || {
                counter += 1;
                json!({"requestId": format!("bench-{counter}"), "name": "time_now", "arguments": {}})
            },
            |body| {
                let call = ToolCall::parse(black_box(&body)).expect("valid envelope");
                let result = runtime.block_on(registry.call(&authority, call)).expect("allowed");
                black_box(result.is_completed())
            },
            BatchSize::SmallInput,
        );
    });

    let replay = json!({"requestId": "bench-replay", "name": "time.now"});
    group.bench_function("registry_replay", |b| {
        b.iter(|| {
            let call = ToolCall::parse(black_box(&replay)).expect("valid envelope");
            let result = runtime
                .block_on(registry.call(&authority, call))
                .expect("allowed");
            black_box(result.duplicate)
        });
    });
    group.finish();
}

criterion_group!(benches, call_path);
criterion_main!(benches);
