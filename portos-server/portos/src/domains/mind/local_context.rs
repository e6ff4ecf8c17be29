//! The context window (`numCtx`) of the Mind's local model, and the
//! largest one this machine can hold without running out of memory.
//!
//! How the ceiling is computed: a local model needs its weights in memory
//! plus a key/value cache that grows linearly with the context, one entry
//! per token. So
//!
//! ```text
//! memory  = min(physical RAM, the cgroup limit PortOS runs under, if any)
//! spare   = memory − reservedBytes (PortOS and the OS) − modelBytes (weights)
//! ceiling = min(131072, ⌊spare / kvBytesPerToken⌋)
//! ```
//!
//! The three estimates are the owner's configuration
//! (`PUT /api/cos/mind/local-context`); the defaults describe an 8B-class
//! model quantized to 4 bits (≈ 5 GiB of weights; 128 KiB of fp16 cache per
//! token: 32 layers × 8 KV heads × 128 dims × 2 (K and V) × 2 bytes) with
//! 2.5 GiB kept for PortOS and the OS. Installed memory is used, not free
//! memory: the ceiling must not move with the page cache between two
//! reads, and a window that fits only while the machine is idle is the one
//! that takes it down later. A ceiling below 512 means no window the tool
//! accepts is safe here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The settings key of the owner's memory estimate.
pub const SETTINGS_KEY: &str = "persistentMindLocalContext";
/// The smallest and largest window the tool accepts.
pub const NUM_CTX_MIN: i64 = 512;
pub const NUM_CTX_MAX: i64 = 131_072;
/// An adjustment's reason, trimmed, is at most this long.
pub const REASON_MAX_CHARS: usize = 240;

const GIB: u64 = 1024 * 1024 * 1024;
/// The largest value any estimate may take (1 TiB): beyond it is a typo.
pub const ESTIMATE_MAX_BYTES: u64 = 1024 * GIB;

/// What the owner says one model costs in memory; a key left out keeps
/// its default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct MemoryEstimate {
    /// Bytes of key/value cache per token of context (1 to 1 TiB; default
    /// 131072).
    #[schemars(range(min = 1, max = ESTIMATE_MAX_BYTES))]
    pub kv_bytes_per_token: u64,
    /// Bytes of model weights held in memory (0 to 1 TiB; default 5 GiB).
    #[schemars(range(max = ESTIMATE_MAX_BYTES))]
    pub model_bytes: u64,
    /// Bytes kept free for PortOS and the OS (0 to 1 TiB; default 2.5 GiB).
    #[schemars(range(max = ESTIMATE_MAX_BYTES))]
    pub reserved_bytes: u64,
}

impl Default for MemoryEstimate {
    fn default() -> MemoryEstimate {
        MemoryEstimate {
            kv_bytes_per_token: 128 * 1024,
            model_bytes: 5 * GIB,
            reserved_bytes: 5 * GIB / 2,
        }
    }
}

impl MemoryEstimate {
    /// The estimate, or what to fix.
    pub fn checked(self) -> Result<MemoryEstimate, String> {
        if self.kv_bytes_per_token == 0 || self.kv_bytes_per_token > ESTIMATE_MAX_BYTES {
            return Err(format!("kvBytesPerToken must be 1 to {ESTIMATE_MAX_BYTES}"));
        }
        if self.model_bytes > ESTIMATE_MAX_BYTES {
            return Err(format!("modelBytes must be at most {ESTIMATE_MAX_BYTES}"));
        }
        if self.reserved_bytes > ESTIMATE_MAX_BYTES {
            return Err(format!(
                "reservedBytes must be at most {ESTIMATE_MAX_BYTES}"
            ));
        }
        Ok(self)
    }

    /// The stored estimate; the defaults when none is stored or it no
    /// longer reads.
    pub fn from_stored(value: Option<&Value>) -> MemoryEstimate {
        value
            .and_then(|value| serde_json::from_value::<MemoryEstimate>(value.clone()).ok())
            .and_then(|estimate| estimate.checked().ok())
            .unwrap_or_default()
    }
}

/// This machine's memory, as the ceiling reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostMemory {
    /// Installed RAM.
    pub total_bytes: u64,
    /// The memory limit of the cgroup PortOS runs in, if it has one.
    pub cgroup_limit_bytes: Option<u64>,
}

impl HostMemory {
    /// Reads this machine's memory. Blocking (it reads `/proc` on Linux):
    /// call it off the async workers.
    pub fn read() -> Result<HostMemory, String> {
        let mut system = sysinfo::System::new()
            .map_err(|error| format!("cannot read this machine's memory: {error}"))?;
        system.refresh_memory();
        let total_bytes = system.total_memory();
        if total_bytes == 0 {
            return Err("cannot read this machine's memory: it reports none".to_owned());
        }
        let cgroup_limit_bytes = system
            .cgroup_limits()
            .map(|limits| limits.total_memory)
            .filter(|limit| *limit > 0 && *limit < total_bytes);
        Ok(HostMemory {
            total_bytes,
            cgroup_limit_bytes,
        })
    }

    /// The memory a model may count on: the smaller of RAM and the cgroup
    /// limit.
    pub fn usable_bytes(&self) -> u64 {
        self.cgroup_limit_bytes
            .map_or(self.total_bytes, |limit| limit.min(self.total_bytes))
    }
}

/// The largest `numCtx` this machine can hold under `estimate` (see the
/// module's comment); never above [`NUM_CTX_MAX`], possibly below
/// [`NUM_CTX_MIN`].
pub fn ceiling(host: &HostMemory, estimate: &MemoryEstimate) -> i64 {
    let spare = host
        .usable_bytes()
        .saturating_sub(estimate.reserved_bytes)
        .saturating_sub(estimate.model_bytes);
    let tokens = spare / estimate.kv_bytes_per_token.max(1);
    i64::try_from(tokens).map_or(NUM_CTX_MAX, |tokens| tokens.min(NUM_CTX_MAX))
}

/// Why `num_ctx` is refused under `ceiling`, if it is.
pub fn refusal(num_ctx: i64, ceiling: i64) -> Option<String> {
    if num_ctx <= ceiling {
        return None;
    }
    Some(if ceiling < NUM_CTX_MIN {
        format!(
            "numCtx {num_ctx} was refused: this machine cannot safely hold any local context window (safe ceiling {ceiling} tokens); running out of memory would stop PortOS"
        )
    } else {
        format!(
            "numCtx {num_ctx} exceeds the safe ceiling of {ceiling} tokens for this machine's memory; a larger window risks running out of memory and stopping PortOS"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB_I: u64 = GIB;

    fn host(total_gib: u64, limit_gib: Option<u64>) -> HostMemory {
        HostMemory {
            total_bytes: total_gib * GIB_I,
            cgroup_limit_bytes: limit_gib.map(|gib| gib * GIB_I),
        }
    }

    #[test]
    fn the_ceiling_follows_memory_and_the_estimate() {
        let estimate = MemoryEstimate::default();
        // 16 GiB − 2.5 − 5 = 8.5 GiB of 128 KiB entries.
        assert_eq!(ceiling(&host(16, None), &estimate), 69_632);
        // A container limit wins over the machine's RAM.
        assert_eq!(ceiling(&host(64, Some(8)), &estimate), 4_096);
        // Big machines stop at the wire's maximum.
        assert_eq!(ceiling(&host(512, None), &estimate), NUM_CTX_MAX);
        // Too small for the model: nothing is safe.
        assert_eq!(ceiling(&host(4, None), &estimate), 0);
        let lean = MemoryEstimate {
            kv_bytes_per_token: 1024 * 1024,
            model_bytes: 0,
            reserved_bytes: 0,
        };
        assert_eq!(ceiling(&host(8, None), &lean), 8_192);
    }

    #[test]
    fn refusals_name_the_ceiling() {
        assert_eq!(refusal(4096, 4096), None);
        let refused = refusal(8192, 4096).expect("refused");
        assert!(
            refused.contains("8192") && refused.contains("4096"),
            "{refused}"
        );
        assert!(refused.contains("running out of memory"), "{refused}");
        let none = refusal(512, 0).expect("refused");
        assert!(none.contains("cannot safely hold any"), "{none}");
    }

    #[test]
    fn estimates_are_bounded() {
        let zero = MemoryEstimate {
            kv_bytes_per_token: 0,
            ..MemoryEstimate::default()
        };
        assert!(zero.checked().is_err());
        let huge = MemoryEstimate {
            model_bytes: ESTIMATE_MAX_BYTES + 1,
            ..MemoryEstimate::default()
        };
        assert!(huge.checked().is_err());
        assert_eq!(MemoryEstimate::from_stored(None), MemoryEstimate::default());
        assert_eq!(
            MemoryEstimate::from_stored(Some(&serde_json::json!({ "kvBytesPerToken": 0 }))),
            MemoryEstimate::default()
        );
    }
}
