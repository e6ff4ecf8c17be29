//! What a turn runs with besides its prompt: the thinking preset a
//! self-directed wake takes (the model it names, the effort it asks for)
//! and the local context window the Mind chose. Both are the Mind's own
//! choices (`mind.request-thinking-preset`, `mind.adjust-local-context`),
//! made in an earlier turn and applied here.

use std::net::IpAddr;

use jiff::Timestamp;
use portos_server::store::{Store, StoreError};

use super::provider::{Extras, ProviderConfig};
use crate::domains::mind::ops::thinking::take_request;
use crate::domains::mind::store::local_context;
use crate::domains::mind::thinking::{ThinkingEffort, ThinkingPreset};

/// A turn's model and what it asks of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// The preset the wake took, as it was requested.
    pub preset: Option<ThinkingPreset>,
    /// The model asked: the preset's, else the configured one.
    pub model: String,
    pub extras: Extras,
}

/// The tuning of a turn about to start at `now` on `provider`. Only a
/// self-directed wake takes the pending preset request: the request is for
/// "the next self-directed wake", and a turn the owner prompted keeps the
/// default route (the request stays pending for the next wake).
pub async fn for_turn(
    store: &Store,
    provider: &ProviderConfig,
    self_directed: bool,
    now: Timestamp,
) -> Result<Tuning, StoreError> {
    let request = if self_directed {
        take_request(store, now).await?
    } else {
        None
    };
    let num_ctx = store
        .run(|connection| local_context::current(connection))
        .await?;
    let preset = request.map(|request| ThinkingPreset {
        id: request.preset_id,
        label: request.label,
        model: request.model,
        effort: request.effort,
    });
    Ok(tune(provider, preset, num_ctx))
}

/// [`for_turn`] once the preset and the stored window are known.
pub fn tune(
    provider: &ProviderConfig,
    preset: Option<ThinkingPreset>,
    num_ctx: Option<i64>,
) -> Tuning {
    let model = preset
        .as_ref()
        .map(|preset| preset.model.trim())
        .filter(|model| !model.is_empty())
        .unwrap_or(provider.model.as_str())
        .to_owned();
    let reasoning_effort = preset
        .as_ref()
        .and_then(|preset| reasoning_effort(preset.effort));
    Tuning {
        preset,
        model,
        extras: Extras {
            reasoning_effort,
            // The window is the local model's: a hosted API has its own,
            // and OpenAI's refuses a request with a field it does not know.
            num_ctx: num_ctx.filter(|_| is_local(&provider.base_url)),
        },
    }
}

/// The `reasoning_effort` a preset's effort is sent as: the three values
/// OpenAI, Ollama (which refuses any other), vLLM and llama.cpp all accept,
/// the finer levels rounded to the nearest; the provider's default sends
/// nothing.
pub fn reasoning_effort(effort: ThinkingEffort) -> Option<&'static str> {
    match effort {
        ThinkingEffort::Default => None,
        ThinkingEffort::Minimal | ThinkingEffort::Low => Some("low"),
        ThinkingEffort::Medium => Some("medium"),
        ThinkingEffort::High
        | ThinkingEffort::Xhigh
        | ThinkingEffort::Max
        | ThinkingEffort::Ultra => Some("high"),
    }
}

/// Whether the provider runs on this machine or its network: a loopback,
/// private or link-local address, `localhost`, a `.local`, `.lan`,
/// `.internal` or `.localhost` name, or a name without a dot (a container
/// or LAN host such as `ollama`).
pub fn is_local(base_url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base_url) else {
        return false;
    };
    let Some(host) = url.host_str() else {
        return false;
    };
    // An IPv6 host is written in brackets.
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Ok(IpAddr::V6(ip)) => {
            ip.is_loopback() || ip.is_unique_local() || ip.is_unicast_link_local()
        }
        Err(_) => {
            let name = bare.trim_end_matches('.').to_ascii_lowercase();
            !name.contains('.')
                || [".local", ".lan", ".internal", ".localhost"]
                    .iter()
                    .any(|suffix| name.ends_with(suffix))
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn provider(url: &str) -> ProviderConfig {
        ProviderConfig {
            base_url: url.to_owned(),
            model: "qwen3:8b".to_owned(),
            api_key: None,
            timeout: Duration::from_secs(5),
        }
    }

    fn preset(model: &str, effort: ThinkingEffort) -> ThinkingPreset {
        ThinkingPreset {
            id: "deep".to_owned(),
            label: "Deep".to_owned(),
            model: model.to_owned(),
            effort,
        }
    }

    #[test]
    fn a_preset_names_the_model_and_the_effort() {
        let local = provider("http://127.0.0.1:11434/v1");
        let plain = tune(&local, None, None);
        assert_eq!(plain.model, "qwen3:8b");
        assert_eq!(plain.extras, Extras::default());

        let deep = tune(&local, Some(preset("", ThinkingEffort::Xhigh)), Some(8192));
        assert_eq!(deep.model, "qwen3:8b", "\"\" is the Mind's model");
        assert_eq!(deep.extras.reasoning_effort, Some("high"));
        assert_eq!(deep.extras.num_ctx, Some(8192));

        let other = tune(
            &local,
            Some(preset("qwen3:32b", ThinkingEffort::Default)),
            None,
        );
        assert_eq!(other.model, "qwen3:32b");
        assert_eq!(other.extras.reasoning_effort, None);
    }

    #[test]
    fn efforts_round_to_what_every_server_accepts() {
        use ThinkingEffort::*;
        let sent: Vec<Option<&str>> = [Default, Minimal, Low, Medium, High, Xhigh, Max, Ultra]
            .into_iter()
            .map(reasoning_effort)
            .collect();
        assert_eq!(
            sent,
            [
                None,
                Some("low"),
                Some("low"),
                Some("medium"),
                Some("high"),
                Some("high"),
                Some("high"),
                Some("high")
            ]
        );
    }

    #[test]
    fn the_window_goes_to_local_providers_only() {
        for url in [
            "http://127.0.0.1:8080/v1",
            "http://localhost:11434/v1",
            "http://[::1]:8000/v1",
            "http://192.168.1.20:11434/v1",
            "http://10.0.0.5/v1",
            "http://ollama:11434/v1",
            "http://gpu-box.lan:8080/v1",
            "http://mac-mini.local:11434/v1",
        ] {
            assert!(is_local(url), "{url}");
            assert_eq!(
                tune(&provider(url), None, Some(4096)).extras.num_ctx,
                Some(4096)
            );
        }
        for url in [
            "https://api.openai.com/v1",
            "https://openrouter.ai/api/v1",
            "http://8.8.8.8/v1",
            "not a url",
        ] {
            assert!(!is_local(url), "{url}");
            assert_eq!(tune(&provider(url), None, Some(4096)).extras.num_ctx, None);
        }
    }
}
