//! Catalog and registry-build cost against the number of tools.
//!
//! `cargo bench -p portos-core --bench registry`
//!
//! Synthetic descriptors (leaked, as link-time statics would be) with a
//! realistic input schema, so 50 and 1,000 tools can be compared in one run.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use portos_core::{
    ArgumentError, BoundCall, Capabilities, CatalogFormat, CatalogQuery, CatalogScope, Catalogs,
    Confirmation, IntentConfig, IntentRule, PolicyDecl, Registry, SideEffect, SourceLocation,
    ToolDescriptor,
};
use serde_json::{Value, json};

// The words the synthetic tools use, declared as an application would.
portos_core::vocabulary! {
    capabilities {
        /// Read.
        READ_PORTOS = "readPortos",
        /// Write.
        WRITE_PORTOS = "writePortos",
    }
    scopes {
        /// Agents.
        #[grants]
        #[transport(mcp)]
        AGENT = "agent",
        /// The mind.
        #[grants]
        MIND = "mind",
        /// People.
        #[signed_in]
        #[transport(http)]
        UI = "ui",
        /// Voice.
        #[trusted]
        VOICE = "voice",
    }
}

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for."},
            "limit": {"type": ["integer", "null"], "format": "int64"},
            "filters": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "since": {"type": "string"}
            }}
        },
        "required": ["query"]
    })
}

fn output_schema() -> Value {
    json!({"type": "object"})
}

fn bind(arguments: Value) -> Result<BoundCall, ArgumentError> {
    Ok(BoundCall::new(arguments, |_ctx| {
        Box::pin(async {
            portos_core::OutputJson::to_json(&json!({"ok": true}))
                .map_err(|error| error.to_string())
        })
    }))
}

fn descriptors(count: usize) -> Vec<&'static ToolDescriptor> {
    (0..count)
        .map(|index| {
            let name: &'static str = Box::leak(format!("bench.tool-{index:04}").into_boxed_str());
            let provider: &'static str =
                Box::leak(format!("bench_tool_{index:04}").into_boxed_str());
            let aliases: &'static [&'static str] = Box::leak(vec![provider].into_boxed_slice());
            let read = index % 3 != 0;
            let descriptor: &'static ToolDescriptor = Box::leak(Box::new(ToolDescriptor {
                not_strict: None,
                content_output: || false,
                requires_client: &[],
                requires_tasks: false,
                ask_first: None,
                name,
                version: 1,
                description: "A synthetic tool with a realistic schema for catalog benchmarks.",
                provider_name: provider,
                aliases,
                policy: PolicyDecl {
                    scopes: &["agent", "mind", "ui", "voice"],
                    capabilities: if read {
                        &["readPortos"]
                    } else {
                        &["writePortos"]
                    },
                    side_effect: if read {
                        SideEffect::Read
                    } else {
                        SideEffect::Write
                    },
                    idempotent: read,
                    is_async: false,
                    long_running: false,
                    confirmation: if read {
                        Confirmation::None
                    } else {
                        Confirmation::CapabilityGrant
                    },
                    open_world: false,
                    unguarded: None,
                },
                intent: IntentRule::default(),
                input_schema,
                output_schema,
                bind,
                state: &[],
                location: SourceLocation {
                    file: file!(),
                    line: line!(),
                    column: 0,
                },
            }));
            descriptor
        })
        .collect()
}

fn registry(count: usize) -> Arc<Registry> {
    Registry::builder()
        .descriptors(descriptors(count))
        .build()
        .expect("synthetic tools are valid")
}

/// The catalog layer of a registry (the synthetic tools name no intent group).
fn catalogs(registry: Arc<Registry>) -> Catalogs {
    Catalogs::new(registry, &IntentConfig::default()).expect("no intent groups named")
}

fn catalog(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog");
    let grants = Capabilities::NONE.with(READ_PORTOS);
    for count in [50_usize, 1_000] {
        let catalogs = catalogs(registry(count));
        group.throughput(Throughput::Elements(count as u64));
        for format in [CatalogFormat::Portos, CatalogFormat::Mcp] {
            let query = CatalogQuery {
                scope: CatalogScope::Only(MIND),
                intent: None,
                format,
            };
            group.bench_with_input(
                BenchmarkId::new(format!("project_and_serialize/{}", format.as_str()), count),
                &query,
                |b, query| {
                    b.iter(|| {
                        // `render`, not the memoized `catalog`: this measures rendering.
                        let catalog = catalogs.render(black_box(query), grants);
                        black_box(catalog.to_json().len())
                    });
                },
            );
        }
    }
    group.finish();
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("registry_build");
    group.sample_size(20);
    for count in [50_usize, 1_000] {
        let list = descriptors(count);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(BenchmarkId::from_parameter(count), &list, |b, list| {
            b.iter(|| {
                let registry = Registry::builder()
                    .descriptors(list.iter().copied())
                    .build()
                    .expect("valid");
                black_box(registry.tools().len())
            });
        });
    }
    group.finish();
}

fn built_and_projected(c: &mut Criterion) {
    // The figure: a 1,000-tool catalog built (schemas projected,
    // validators compiled) and then projected, end to end.
    let mut group = c.benchmark_group("build_then_catalog");
    group.sample_size(20);
    let query = CatalogQuery::default();
    for count in [50_usize, 1_000] {
        let list = descriptors(count);
        group.bench_with_input(BenchmarkId::from_parameter(count), &list, |b, list| {
            b.iter(|| {
                let registry = Registry::builder()
                    .descriptors(list.iter().copied())
                    .build()
                    .expect("valid");
                let catalogs = catalogs(registry);
                black_box(catalogs.render(&query, Capabilities::NONE).to_json().len())
            });
        });
    }
    group.finish();
}

criterion_group!(benches, catalog, build, built_and_projected);
criterion_main!(benches);
