//! The registry call path for `time.now` in a loop, for profilers and for
//! instruction counts that do not depend on machine noise:
//!
//! ```sh
//! cargo build --release -p portos --example profile_call
//! valgrind --tool=callgrind target/release/examples/profile_call fresh 20000
//! valgrind --tool=callgrind target/release/examples/profile_call direct 20000
//! ```
//!
//! Modes: `direct` calls the adapter function and converts its output to
//! JSON (what the registry must do anyway); `fresh` parses an envelope and
//! calls through the registry with a new requestId each time; `replay`
//! repeats one requestId. The difference between `fresh` and `direct` is the
//! registry's overhead per call.

use portos::build_registry;
use portos_core::ToolCall;
use portos_server::Config;
use portos_server::clock::UserClock;
use serde_json::json;

#[allow(clippy::print_stderr, reason = "a profiling tool reports on stderr")]
fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "fresh".to_owned());
    let count: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(200_000);

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

    let bodies: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            let id = if mode == "replay" {
                "replay".to_owned()
            } else {
                format!("p-{i}")
            };
            json!({"requestId": id, "name": "time_now", "arguments": {}})
        })
        .collect();

    let started = std::time::Instant::now();
    for body in &bodies {
        if mode == "direct" {
            // The clock looked up per call, as the registry's generated
            // code does.
            let clock = registry.state().shared::<UserClock>().expect("clock");
            let output = runtime.block_on(portos::domains::time::tools::now(clock));
            std::hint::black_box(output.ok().and_then(|o| serde_json::to_value(o).ok()));
        } else {
            let call = ToolCall::parse(body).expect("valid");
            let result = runtime
                .block_on(registry.call(&authority, call))
                .expect("allowed");
            std::hint::black_box(result);
        }
    }
    let per = started.elapsed().as_nanos() as f64 / count as f64;
    eprintln!("{mode}: {per:.0} ns per call over {count} calls");
}
