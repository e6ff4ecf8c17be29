//! What a Persistent Mind turn is told besides its prompt, against the real
//! binary and a scripted model: the trajectory earlier turns left (their
//! summaries and the derived `last-turn` context), gone once
//! `mind.cleanup` clears it (docs/reference.md#persistent-mind); the issue
//! block's three cases (docs/reference.md#forge-issues, last bullet) and the
//! task block, in the exact words the Mind reads.

use serde_json::{Value, json};

use crate::mind_turns::{calls, codex_provider, github_app, portos, put, turn};
use crate::scripted_model::{Answer, ScriptedModel};

const ISSUES_OFF: &str = "Forge issues are OFF: the fileIssues grant is not given, so you cannot list or file issues on any managed app.";
const ISSUES_NO_APP: &str = "Forge issues: no authorized managed app has a GitHub or GitLab issue list, so there is no tracker to list or file issues on.";
const ISSUES_GUIDANCE: &str = "Forge issues: you may read a managed app's open issues with issues_list and file a new one with issues_file. List before you file: an open issue with the same title is answered instead of filed again. Write a title and a body a coding agent can act on, and choose the model tier and effort the work needs. The authorized apps:";
const TASKS_OFF: &str =
    "Coding tasks are OFF: the createTasks grant is not given, so you cannot queue coding work.";
const TASKS_NO_PROVIDER: &str = "Coding tasks: no coding provider (an enabled CLI or TUI agent) is configured, so no coding work can be queued.";
const TASKS_GUIDANCE: &str = "Coding tasks: you may queue coding work with cos_create_task (at most 5 a turn) on an app marked granted, for one of the providers below with one of its models (\"\" for its default) and efforts. The apps:";

/// The system message of the `index`th request the model was sent.
fn system_of(model: &ScriptedModel, index: usize) -> String {
    let messages = model.requests()[index].messages();
    assert_eq!(messages[0]["role"], "system");
    messages[0]["content"]
        .as_str()
        .expect("a text system message")
        .to_owned()
}

fn id(turn: &Value) -> &str {
    turn["id"].as_str().expect("id")
}

#[tokio::test]
async fn a_turn_recalls_the_earlier_ones_until_the_mind_cleans_up() {
    let model = ScriptedModel::start(vec![
        Answer::text("Alpha: the inbox is empty."),
        Answer::text("Beta: nothing new."),
        Answer::calls(&[(
            "c1",
            "mind_cleanup",
            json!({ "scopes": ["history", "context"], "reason": "A fresh start." }),
        )]),
        Answer::text("Cleaned up."),
        Answer::text("Fresh."),
    ])
    .await;
    let server = portos(&model, &[]);
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "manageMind": true }),
    )
    .await;

    let first = turn(&server, "Check the inbox.").await;
    assert_eq!(first["state"], "completed", "{first}");
    let fresh = system_of(&model, 0);
    assert!(
        !fresh.contains("Your recent turns") && !fresh.contains("last-turn"),
        "nothing to recall yet: {fresh}"
    );

    let second = turn(&server, "Anything new?").await;
    assert_eq!(second["state"], "completed", "{second}");
    let recalled = system_of(&model, 1);
    assert!(
        recalled.contains("Your recent turns, oldest first:\n- "),
        "{recalled}"
    );
    assert!(
        recalled.contains(": Completed: Alpha: the inbox is empty. No tool calls."),
        "the first turn's summary: {recalled}"
    );
    assert!(
        recalled.contains(&format!(
            "What you derived from earlier turns:\n- last-turn: Your last turn ({}) started at {}, woken by: \"Check the inbox.\". It completed at {} after 1 provider round and 0 tool calls.",
            id(&first),
            first["startedAt"].as_str().expect("startedAt"),
            first["finishedAt"].as_str().expect("finishedAt"),
        )),
        "{recalled}"
    );

    // The Mind clears its history and context; the turn that did it is
    // the first of the new history.
    let cleaning = turn(&server, "Tidy up your memory.").await;
    assert_eq!(cleaning["state"], "completed", "{cleaning}");
    let cleanup = &calls(&cleaning)[0];
    assert_eq!(cleanup["name"], "mind.cleanup");
    let shown: Value =
        serde_json::from_str(cleanup["outcome"].as_str().expect("outcome")).expect("JSON");
    assert_eq!(shown["result"]["historyTurnsCleared"], 2, "{shown}");
    assert_eq!(shown["result"]["contextEntriesCleared"], 1, "{shown}");

    let after = turn(&server, "Still there?").await;
    assert_eq!(after["state"], "completed", "{after}");
    let cleaned = system_of(&model, 4);
    assert!(
        !cleaned.contains("Alpha") && !cleaned.contains("Beta"),
        "cleared turns are not recalled: {cleaned}"
    );
    assert!(
        cleaned.contains(": Completed: Cleaned up. Calls: mind.cleanup completed."),
        "{cleaned}"
    );
    assert!(
        cleaned.contains(&format!("- last-turn: Your last turn ({})", id(&cleaning))),
        "{cleaned}"
    );
}

#[tokio::test]
async fn the_prompt_says_what_the_mind_may_do_about_issues_and_tasks() {
    let model = ScriptedModel::start((0..5).map(|_| Answer::text("Noted.")).collect()).await;
    let server = portos(&model, &[]);

    // No grant: both blocks are OFF.
    turn(&server, "one").await;
    let off = system_of(&model, 0);
    assert!(
        off.contains(&format!("\n\n{ISSUES_OFF}\n\n{TASKS_OFF}")),
        "{off}"
    );

    // Granted, but no app has a forge issue list.
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "fileIssues": true }),
    )
    .await;
    let repos = tempfile::tempdir().expect("repos");
    let plain = repos.path().join("notes");
    std::fs::create_dir_all(plain.join(".git")).expect("mkdir");
    std::fs::write(
        plain.join(".git/config"),
        "[remote \"origin\"]\n\turl = https://git.example.org/me/notes.git\n",
    )
    .expect("git config");
    let (status, _) = crate::mind_turns::send(
        portos_tests::http_client()
            .post(server.url("/api/apps"))
            .json(
                &json!({ "id": "notes", "name": "Notes", "repoPath": plain.display().to_string() }),
            ),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::CREATED);
    turn(&server, "two").await;
    let no_app = system_of(&model, 1);
    assert!(no_app.contains(ISSUES_NO_APP), "{no_app}");
    assert!(!no_app.contains(ISSUES_OFF));

    // A GitHub app: the guidance and the authorized apps.
    github_app(&server, repos.path(), "portos").await;
    turn(&server, "three").await;
    let listed = system_of(&model, 2);
    assert!(
        listed.contains(&format!(
            "{ISSUES_GUIDANCE}\n- {{\"id\":\"portos\",\"name\":\"portos\",\"forge\":\"github\",\"fullName\":\"acme/portos\"}}\n\n"
        )),
        "the forge app only: {listed}"
    );

    // The app is not among the allowed ones: no authorized app again.
    put(
        &server,
        "/api/cos/mind/capabilities",
        json!({ "fileIssues": true, "createTasks": true, "allowedAppIds": ["notes"] }),
    )
    .await;
    turn(&server, "four").await;
    let not_allowed = system_of(&model, 3);
    assert!(not_allowed.contains(ISSUES_NO_APP), "{not_allowed}");
    assert!(not_allowed.contains(TASKS_NO_PROVIDER), "{not_allowed}");

    // Tasks: the apps marked granted, and the providers.
    codex_provider(&server).await;
    turn(&server, "five").await;
    let tasks = system_of(&model, 4);
    assert!(
        tasks.ends_with(&format!(
            "{TASKS_GUIDANCE}\n- {{\"id\":\"notes\",\"name\":\"Notes\",\"granted\":true}}\n- {{\"id\":\"portos\",\"name\":\"portos\",\"granted\":false}}\nThe coding providers:\n- {{\"id\":\"codex\",\"name\":\"Codex CLI\",\"models\":[\"gpt-5\"],\"efforts\":[\"high\"]}}"
        )),
        "{tasks}"
    );
}
