//! `issues.file` against stand-in GitHub and GitLab servers: the probe,
//! the duplicate guard, every label created first with its colour, then
//! the issue in each forge's wire format; and each failure: an unreachable
//! or refusing forge stops at the probe, an unreadable duplicate check
//! files nothing, label failures do not stop filing, a refused create is
//! a failed result. Tokens never show in a result.

use portos::domains::forge::Tracker;
use portos_core::ToolState;
use portos_tests::forge_standin::{Fault, Faults, Kind, Seeded, StandIn, closed_port_url};
use serde_json::{Value, json};

use super::fixture::{Fixture, GITHUB_TOKEN, GITLAB_TOKEN, filing, result, settings};

const KINDS: [Kind; 2] = [Kind::Github, Kind::Gitlab];

fn token(kind: Kind) -> &'static str {
    match kind {
        Kind::Github => GITHUB_TOKEN,
        Kind::Gitlab => GITLAB_TOKEN,
    }
}

fn forge_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Github => "GitHub",
        Kind::Gitlab => "GitLab",
    }
}

fn remote(kind: Kind, full_name: &str) -> String {
    match kind {
        // A remote with credentials in it: they are never shown.
        Kind::Github => format!("https://bot:ghp_remote_secret@github.com/{full_name}.git"),
        Kind::Gitlab => format!("git@gitlab.com:{full_name}.git"),
    }
}

/// A stand-in of `kind` on `acme/app`, a fixture using it, and a granted
/// app `app` on it.
async fn setup(kind: Kind) -> (Fixture, StandIn) {
    let stand_in = StandIn::start(kind, "acme/app", token(kind)).await;
    let fixture = match kind {
        Kind::Github => Fixture::with(Some(&stand_in), None).await,
        Kind::Gitlab => Fixture::with(None, Some(&stand_in)).await,
    };
    fixture.grant();
    fixture
        .app("app", Some(&remote(kind, "acme/app")), Tracker::Auto)
        .await;
    (fixture, stand_in)
}

fn no_secrets(value: &Value) {
    let text = value.to_string();
    for secret in [GITHUB_TOKEN, GITLAB_TOKEN, "ghp_remote_secret"] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}

const LABELS: [(&str, &str); 5] = [
    ("persistent-mind", "5319E7"),
    ("model:heavy", "6F42C1"),
    ("effort:high", "1D7874"),
    ("bug", "D73A4A"),
    ("docs", "0075CA"),
];

#[tokio::test]
async fn files_with_every_label_created_first() {
    for kind in KINDS {
        let (fixture, stand_in) = setup(kind).await;
        stand_in.seed([
            Seeded::issue(41, "Something else"),
            Seeded::issue(12, "Older"),
        ]);
        let mut arguments = filing("app", "  Fix the login page  ");
        arguments["labels"] = json!(["bug", "docs", "bug"]);
        let r = fixture.call("issues.file", arguments).await;
        assert_eq!(r.state, ToolState::Completed, "{kind:?}: {:?}", r.result);
        let filed = result(&r);
        let forge = match kind {
            Kind::Github => "github",
            Kind::Gitlab => "gitlab",
        };
        assert_eq!(
            filed,
            &json!({
                "ok": true,
                "duplicate": false,
                "appId": "app",
                "forge": forge,
                "repository": "acme/app",
                "number": 42,
                "url": stand_in.web_url(42),
                "labels": ["persistent-mind", "model:heavy", "effort:high", "bug", "docs"],
                "summary": "Filed #42 on acme/app",
            }),
            "{kind:?}"
        );
        no_secrets(filed);

        // Probe, duplicate check, one POST per label, then the issue.
        assert_eq!(
            stand_in.asked(),
            [
                "GET repo",
                "GET issues",
                "POST labels",
                "POST labels",
                "POST labels",
                "POST labels",
                "POST labels",
                "POST issues",
            ],
            "{kind:?}"
        );
        let received = stand_in.received();
        let (repo_path, credential) = match kind {
            Kind::Github => ("/api/v3/repos/acme/app", format!("Bearer {GITHUB_TOKEN}")),
            Kind::Gitlab => ("/api/v4/projects/acme%2Fapp", GITLAB_TOKEN.to_owned()),
        };
        assert_eq!(received[0].path, repo_path);
        assert!(
            received
                .iter()
                .all(|r| r.credential.as_deref() == Some(credential.as_str()))
        );
        for (request, (name, color)) in received[2..7].iter().zip(LABELS) {
            let color = match kind {
                Kind::Github => color.to_owned(),
                Kind::Gitlab => format!("#{color}"),
            };
            assert_eq!(
                request.body,
                json!({ "name": name, "color": color }),
                "{kind:?}"
            );
        }
        let created = &received[7].body;
        let label_names: Vec<&str> = LABELS.iter().map(|(name, _)| *name).collect();
        match kind {
            Kind::Github => assert_eq!(
                created,
                &json!({ "title": "Fix the login page", "body": "Steps to reproduce: open the page.", "labels": label_names })
            ),
            Kind::Gitlab => assert_eq!(
                created,
                &json!({ "title": "Fix the login page", "description": "Steps to reproduce: open the page.", "labels": label_names.join(",") })
            ),
        }
        assert_eq!(stand_in.labels(), label_names);
        let issues = stand_in.issues();
        let new = issues.iter().find(|i| i.number == 42).expect("filed");
        assert_eq!(new.title, "Fix the login page");
        assert_eq!(new.labels, label_names);
    }
}

#[tokio::test]
async fn labels_that_exist_already_do_not_stop_filing() {
    for kind in KINDS {
        let (fixture, stand_in) = setup(kind).await;
        // The forge answers "already exists" (GitHub 422, GitLab 409).
        stand_in.existing_labels(&["persistent-mind", "model:light", "effort:low"]);
        let mut arguments = filing("app", "Add tests for the parser");
        arguments["model"] = json!("light");
        arguments["effort"] = json!("low");
        arguments.as_object_mut().expect("object").remove("labels");
        let r = fixture.call("issues.file", arguments).await;
        assert_eq!(r.state, ToolState::Completed, "{kind:?}: {:?}", r.result);
        assert_eq!(
            result(&r)["labels"],
            json!(["persistent-mind", "model:light", "effort:low"])
        );
        assert_eq!(result(&r)["summary"], "Filed #1 on acme/app");
        assert_eq!(
            stand_in.asked(),
            [
                "GET repo",
                "GET issues",
                "POST labels",
                "POST labels",
                "POST labels",
                "POST issues"
            ]
        );
    }
}

#[tokio::test]
async fn label_creation_failing_does_not_stop_filing() {
    for (kind, fault) in [
        (Kind::Github, Fault::ServerError),
        (Kind::Github, Fault::Unprocessable),
        (Kind::Gitlab, Fault::ServerError),
        (Kind::Gitlab, Fault::Unauthorized),
    ] {
        let (fixture, stand_in) = setup(kind).await;
        stand_in.fail(Faults {
            labels: fault,
            ..Faults::default()
        });
        let r = fixture
            .call("issues.file", filing("app", "Document the settings"))
            .await;
        assert_eq!(
            r.state,
            ToolState::Completed,
            "{kind:?} {fault:?}: {:?}",
            r.result
        );
        assert_eq!(result(&r)["number"], 1);
        assert_eq!(
            result(&r)["labels"],
            json!(["persistent-mind", "model:heavy", "effort:high", "bug"])
        );
        assert!(stand_in.labels().is_empty(), "none was created");
        assert_eq!(
            stand_in.asked().last().map(String::as_str),
            Some("POST issues")
        );
    }
}

#[tokio::test]
async fn a_duplicate_title_files_nothing() {
    for kind in KINDS {
        let (fixture, stand_in) = setup(kind).await;
        stand_in.seed([
            Seeded::issue(3, "Unrelated"),
            Seeded::issue(8, "Fix: the LOGIN page!"),
        ]);
        let r = fixture
            .call("issues.file", filing("app", "fix the login-page"))
            .await;
        assert_eq!(r.state, ToolState::Completed, "{kind:?}: {:?}", r.result);
        assert_eq!(
            result(&r),
            &json!({
                "ok": true,
                "duplicate": true,
                "number": 8,
                "url": stand_in.web_url(8),
                "summary": "#8 on acme/app already has this title; nothing was filed",
            })
        );
        assert_eq!(
            stand_in.asked(),
            ["GET repo", "GET issues"],
            "no label, no issue"
        );
        assert_eq!(stand_in.issues().len(), 2);
    }
}

#[tokio::test]
async fn punctuation_only_titles_never_dedupe() {
    for kind in KINDS {
        let (fixture, stand_in) = setup(kind).await;
        stand_in.seed([Seeded::issue(5, "?!")]);
        let r = fixture.call("issues.file", filing("app", "?!")).await;
        assert_eq!(r.state, ToolState::Completed, "{kind:?}: {:?}", r.result);
        assert_eq!(result(&r)["duplicate"], false);
        assert_eq!(result(&r)["number"], 6);
        assert_eq!(
            stand_in.asked().last().map(String::as_str),
            Some("POST issues")
        );
    }
}

#[tokio::test]
async fn on_github_a_pull_request_is_no_duplicate() {
    let (fixture, stand_in) = setup(Kind::Github).await;
    stand_in.seed([Seeded::pull_request(9, "Fix the login page")]);
    let r = fixture
        .call("issues.file", filing("app", "Fix the login page"))
        .await;
    assert_eq!(result(&r)["duplicate"], false, "{:?}", r.result);
    assert_eq!(result(&r)["number"], 10);
}

#[tokio::test]
async fn a_failed_probe_stops_before_anything_else() {
    for kind in KINDS {
        let forge = forge_name(kind);
        let token_variable = match kind {
            Kind::Github => "GITHUB_TOKEN",
            Kind::Gitlab => "GITLAB_TOKEN",
        };
        let (fixture, stand_in) = setup(kind).await;
        for (fault, reason, remedy) in [
            (
                Fault::Unauthorized,
                "authentication failed (HTTP 401)".to_owned(),
                format!("set {token_variable} to a token with issue access to this repository"),
            ),
            (
                Fault::RateLimitForbidden,
                "rate limited".to_owned(),
                "wait for the rate limit to reset, then try again".to_owned(),
            ),
            (
                Fault::TooManyRequests,
                "rate limited".to_owned(),
                "wait for the rate limit to reset, then try again".to_owned(),
            ),
        ] {
            let before = stand_in.received().len();
            stand_in.fail(Faults {
                probe: fault,
                ..Faults::default()
            });
            let r = fixture
                .call("issues.file", filing("app", "Fix the login page"))
                .await;
            assert_eq!(r.state, ToolState::Failed, "{kind:?} {fault:?}");
            assert_eq!(
                result(&r),
                &json!({
                    "ok": false,
                    "error": format!("Could not reach the {forge} repository acme/app ({reason}); {remedy}"),
                })
            );
            assert_eq!(stand_in.received().len(), before + 1, "only the probe");
            assert_eq!(
                stand_in.asked().last().map(String::as_str),
                Some("GET repo")
            );
        }
        assert!(stand_in.issues().is_empty());

        // Nothing listens on the API's port.
        let closed = closed_port_url(kind).await;
        let nowhere = Fixture::new(settings(&closed, &closed));
        nowhere.grant();
        nowhere
            .app("app", Some(&remote(kind, "acme/app")), Tracker::Auto)
            .await;
        let r = nowhere
            .call("issues.file", filing("app", "Fix the login page"))
            .await;
        let error = result(&r)["error"].as_str().expect("error").to_owned();
        assert!(
            error.starts_with(&format!(
                "Could not reach the {forge} repository acme/app (unreachable: "
            )),
            "{error}"
        );
        assert!(
            error.contains(&format!("; check the network and the {forge} API URL")),
            "{error}"
        );
        no_secrets(result(&r));
    }
}

#[tokio::test]
async fn a_failed_duplicate_check_files_nothing() {
    for kind in KINDS {
        let forge = forge_name(kind);
        let (fixture, stand_in) = setup(kind).await;
        for (fault, reason) in [
            (Fault::BadGateway, "HTTP 502"),
            (Fault::TooManyRequests, "rate limited"),
            (Fault::ServerError, "HTTP 500: 500 Internal Server Error"),
        ] {
            stand_in.fail(Faults {
                list: fault,
                ..Faults::default()
            });
            let r = fixture
                .call("issues.file", filing("app", "Fix the login page"))
                .await;
            assert_eq!(r.state, ToolState::Failed, "{kind:?} {fault:?}");
            assert_eq!(
                result(&r),
                &json!({
                    "ok": false,
                    "error": format!("Could not read the {forge} issue list to check for duplicates ({reason}); nothing was filed"),
                })
            );
        }
        let asked = stand_in.asked();
        assert!(
            asked.iter().all(|what| what.starts_with("GET ")),
            "no POST at all: {asked:?}"
        );
        assert!(stand_in.issues().is_empty() && stand_in.labels().is_empty());
    }
}

#[tokio::test]
async fn a_refused_create_is_a_failed_result() {
    for (kind, fault, reason) in [
        (
            Kind::Github,
            Fault::Unprocessable,
            "HTTP 422: Validation Failed".to_owned(),
        ),
        (
            Kind::Gitlab,
            Fault::ServerError,
            "HTTP 500: 500 Internal Server Error".to_owned(),
        ),
        (
            Kind::Github,
            Fault::RateLimitForbidden,
            "rate limited".to_owned(),
        ),
    ] {
        let (fixture, stand_in) = setup(kind).await;
        stand_in.fail(Faults {
            create: fault,
            ..Faults::default()
        });
        let r = fixture
            .call("issues.file", filing("app", "Fix the login page"))
            .await;
        assert_eq!(r.state, ToolState::Failed);
        let remedy = match fault {
            Fault::RateLimitForbidden => "wait for the rate limit to reset, then try again",
            _ => "try again later",
        };
        assert_eq!(
            result(&r),
            &json!({
                "ok": false,
                "error": format!("Could not file the issue on acme/app ({reason}); {remedy}"),
            })
        );
        assert!(stand_in.issues().is_empty());
    }
}

#[tokio::test]
async fn filing_twice_is_caught_by_the_duplicate_guard() {
    // Not idempotent: a second call is a new filing, which the duplicate
    // guard then answers with the first issue.
    let (fixture, stand_in) = setup(Kind::Github).await;
    let first = fixture
        .call("issues.file", filing("app", "Speed up start-up"))
        .await;
    assert_eq!(result(&first)["number"], 1);
    let second = fixture
        .call("issues.file", filing("app", "Speed up start-up"))
        .await;
    assert_eq!(result(&second)["duplicate"], true);
    assert_eq!(result(&second)["number"], 1);
    assert_eq!(stand_in.issues().len(), 1);
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_with_the_token() {
    let (fixture, stand_in) = setup(Kind::Gitlab).await;
    let elsewhere = StandIn::start(Kind::Gitlab, "acme/app", GITLAB_TOKEN).await;
    stand_in.redirect_to(&format!("{}/projects/acme%2Fapp", elsewhere.api_url));
    stand_in.fail(Faults {
        probe: Fault::Redirect,
        ..Faults::default()
    });
    let r = fixture
        .call("issues.file", filing("app", "Fix the login page"))
        .await;
    assert_eq!(r.state, ToolState::Failed);
    assert_eq!(
        result(&r)["error"],
        "Could not reach the GitLab repository acme/app (HTTP 302); try again later"
    );
    assert!(elsewhere.received().is_empty(), "the token stayed home");
}
