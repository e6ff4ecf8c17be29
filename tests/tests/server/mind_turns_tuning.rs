//! What the Mind chose for itself reaching its model, against the real
//! binary and a scripted model on loopback (a local provider): the local
//! context window goes out as `options.num_ctx` on every turn; the
//! thinking preset it requested is taken by the next self-directed wake
//! only, which asks the preset's model with its effort as
//! `reasoning_effort`. The turn record says what it ran with.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::mind_turns::{calls, get, portos, put, send, turn};
use crate::scripted_model::{Answer, ScriptedModel};

/// A self-directed wake (no prompt), waited for.
async fn wake(server: &portos_tests::ServerProcess) -> Value {
    let (status, turn) = send(
        portos_tests::http_client()
            .post(server.url("/api/cos/mind/turns"))
            .json(&json!({ "waitSeconds": 60 })),
    )
    .await;
    assert_eq!(status, StatusCode::ACCEPTED, "{turn}");
    assert_eq!(turn["state"], "completed", "{turn}");
    turn
}

#[tokio::test]
async fn the_chosen_window_and_preset_reach_the_model() {
    let model = ScriptedModel::start(vec![
        Answer::calls(&[
            (
                "c1",
                "mind_request_thinking_preset",
                json!({ "presetId": "deep", "reason": "The backlog needs careful planning." }),
            ),
            (
                "c2",
                "mind_adjust_local_context",
                json!({ "numCtx": 16384, "reason": "Room for the whole backlog." }),
            ),
        ]),
        Answer::text("Asked for a deeper wake."),
        Answer::text("Prompted turn."),
        Answer::text("Deep wake."),
        Answer::text("Default wake."),
    ])
    .await;
    let server = portos(&model, &[]);
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "chooseThinkingPreset": true, "adjustLocalContext": true }),
    )
    .await;
    put(
        &server,
        "/api/cos/mind/thinking-presets",
        json!({ "presets": [
            { "id": "quick", "effort": "low" },
            { "id": "deep", "label": "Deep", "model": "scripted-model-large", "effort": "xhigh" }
        ] }),
    )
    .await;
    // An estimate under which any window fits this machine.
    put(
        &server,
        "/api/cos/mind/local-context",
        json!({ "kvBytesPerToken": 1, "modelBytes": 0, "reservedBytes": 0 }),
    )
    .await;

    let asking = turn(&server, "Plan the backlog.").await;
    assert_eq!(asking["state"], "completed", "{asking}");
    assert!(
        calls(&asking)
            .iter()
            .all(|call| call["state"] == "completed"),
        "{asking}"
    );
    assert_eq!(asking["thinkingPreset"], Value::Null);
    assert_eq!(asking["numCtx"], Value::Null, "not set yet when it started");

    // A prompted turn keeps the default route; the window applies.
    let prompted = turn(&server, "What is due?").await;
    assert_eq!(prompted["thinkingPreset"], Value::Null);
    assert_eq!(prompted["reasoningEffort"], Value::Null);
    assert_eq!(prompted["numCtx"], 16384);
    assert_eq!(prompted["model"], "scripted-model");

    // The next self-directed wake takes the request.
    let deep = wake(&server).await;
    assert_eq!(deep["thinkingPreset"]["id"], "deep", "{deep}");
    assert_eq!(deep["thinkingPreset"]["effort"], "xhigh");
    assert_eq!(deep["reasoningEffort"], "high", "xhigh is sent as high");
    assert_eq!(deep["numCtx"], 16384);
    assert_eq!(deep["model"], "scripted-model-large");

    // Used once: the wake after it is the default again.
    let default = wake(&server).await;
    assert_eq!(default["thinkingPreset"], Value::Null);
    assert_eq!(default["model"], "scripted-model");
    let presets = get(&server, "/api/cos/mind/thinking-presets").await;
    assert_eq!(presets["pending"], Value::Null);
    assert_eq!(presets["recent"][0]["state"], "used");

    // What the model was sent.
    let bodies: Vec<Value> = model.requests().into_iter().map(|r| r.body).collect();
    assert_eq!(bodies.len(), 5);
    for body in &bodies[..2] {
        assert!(body.get("options").is_none(), "{body}");
        assert!(body.get("reasoning_effort").is_none(), "{body}");
    }
    assert_eq!(bodies[2]["options"], json!({ "num_ctx": 16384 }));
    assert!(bodies[2].get("reasoning_effort").is_none());
    assert_eq!(bodies[3]["model"], "scripted-model-large");
    assert_eq!(bodies[3]["reasoning_effort"], "high");
    assert_eq!(bodies[3]["options"], json!({ "num_ctx": 16384 }));
    assert_eq!(bodies[4]["model"], "scripted-model");
    assert!(bodies[4].get("reasoning_effort").is_none());
    assert_eq!(bodies[4]["options"], json!({ "num_ctx": 16384 }));
}
