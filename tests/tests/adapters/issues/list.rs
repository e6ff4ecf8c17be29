//! `issues.list` against stand-in GitHub and GitLab servers: pages read
//! until the end, pull requests left out, the local search and label
//! filters, the limit and the 600-character preview; and every way a
//! tracker can be unreadable, which is a failed result, never an empty
//! list.

use portos::domains::forge::Tracker;
use portos_core::ToolState;
use portos_tests::forge_standin::{Fault, Faults, Kind, Seeded, StandIn, closed_port_url};
use serde_json::{Value, json};

use super::fixture::{Fixture, GITHUB_TOKEN, GITLAB_TOKEN, result, settings};

fn numbers(listing: &Value) -> Vec<u64> {
    listing["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .map(|issue| issue["number"].as_u64().expect("number"))
        .collect()
}

#[tokio::test]
async fn github_pages_through_open_issues_without_pull_requests() {
    let github = StandIn::start(Kind::Github, "acme/app", GITHUB_TOKEN).await;
    // 130 issues and 30 pull requests, interleaved: two pages of 100.
    github.seed((1..=160).map(|n| {
        if n % 5 == 0 && n <= 150 {
            Seeded::pull_request(n, &format!("PR {n}"))
        } else {
            Seeded::issue(n, &format!("Issue {n}"))
        }
    }));
    let fixture = Fixture::with(Some(&github), None).await;
    fixture.grant();
    fixture
        .app(
            "app",
            Some("https://github.com/acme/app.git"),
            Tracker::Auto,
        )
        .await;

    let r = fixture
        .call("issues.list", json!({ "appId": "app", "limit": 50 }))
        .await;
    assert_eq!(r.state, ToolState::Completed, "{:?}", r.result);
    let listing = result(&r);
    assert_eq!(listing["ok"], true);
    assert_eq!(listing["appId"], "app");
    assert_eq!(listing["forge"], "github");
    assert_eq!(listing["repository"], "acme/app");
    assert_eq!(listing["totalOpen"], 130, "pull requests are not issues");
    assert_eq!(listing["truncated"], true);
    let listed = numbers(listing);
    assert_eq!(listed.len(), 50);
    assert_eq!(listed[..3], [160, 159, 158], "newest update first");
    assert!(
        listed.iter().all(|n| n % 5 != 0 || *n > 150),
        "no PR: {listed:?}"
    );

    let received = github.received();
    assert_eq!(github.asked(), ["GET issues", "GET issues"]);
    for (request, page) in received.iter().zip(["1", "2"]) {
        assert_eq!(request.path, "/api/v3/repos/acme/app/issues");
        assert_eq!(request.query_value("state").as_deref(), Some("open"));
        assert_eq!(request.query_value("per_page").as_deref(), Some("100"));
        assert_eq!(request.query_value("page").as_deref(), Some(page));
        assert_eq!(
            request.credential.as_deref(),
            Some(format!("Bearer {GITHUB_TOKEN}").as_str())
        );
    }
    assert!(!listing.to_string().contains(GITHUB_TOKEN));
}

#[tokio::test]
async fn github_items_carry_labels_assignees_and_a_bounded_preview() {
    let github = StandIn::start(Kind::Github, "acme/app", GITHUB_TOKEN).await;
    let long_body = format!("{}{}", "x".repeat(590), " and then some more words");
    github.seed([
        Seeded {
            labels: vec!["bug".to_owned(), "persistent-mind".to_owned()],
            assignees: vec!["octocat".to_owned()],
            body: long_body.clone(),
            ..Seeded::issue(7, "Login fails")
        },
        Seeded {
            body: String::new(),
            ..Seeded::issue(3, "Empty body")
        },
    ]);
    let fixture = Fixture::with(Some(&github), None).await;
    fixture.grant();
    fixture
        .app("app", Some("git@github.com:acme/app.git"), Tracker::Github)
        .await;
    let r = fixture.call("issues.list", json!({ "appId": "app" })).await;
    let listing = result(&r);
    assert_eq!(listing["totalOpen"], 2);
    assert_eq!(listing["truncated"], false);
    let first = &listing["issues"][0];
    assert_eq!(
        first,
        &json!({
            "number": 7,
            "title": "Login fails",
            "url": "https://github.com/acme/app/issues/7",
            "labels": ["bug", "persistent-mind"],
            "assignees": ["octocat"],
            "updatedAt": "2026-01-01T00:00:07Z",
            "bodyPreview": first["bodyPreview"],
        })
    );
    let preview = first["bodyPreview"].as_str().expect("preview");
    assert_eq!(preview.chars().count(), 600);
    assert!(long_body.starts_with(preview.trim_end_matches('…')));
    assert_eq!(listing["issues"][1]["bodyPreview"], "");
}

#[tokio::test]
async fn gitlab_lists_a_nested_project_with_its_total() {
    let gitlab = StandIn::start(Kind::Gitlab, "group/sub/app", GITLAB_TOKEN).await;
    gitlab.seed((1..=25).map(|n| Seeded {
        labels: vec![if n % 2 == 0 { "docs" } else { "bug" }.to_owned()],
        assignees: vec!["dev".to_owned()],
        ..Seeded::issue(n, &format!("Issue {n}"))
    }));
    let fixture = Fixture::with(None, Some(&gitlab)).await;
    fixture.grant();
    // A self-hosted GitLab the auto rule does not know: the tracker says so.
    fixture
        .app(
            "app",
            Some("ssh://git@git.acme.corp:2222/group/sub/app.git"),
            Tracker::Gitlab,
        )
        .await;
    let r = fixture.call("issues.list", json!({ "appId": "app" })).await;
    assert_eq!(r.state, ToolState::Completed, "{:?}", r.result);
    let listing = result(&r);
    assert_eq!(listing["forge"], "gitlab");
    assert_eq!(listing["repository"], "group/sub/app");
    assert_eq!(listing["totalOpen"], 25);
    assert_eq!(listing["truncated"], true, "20 of 25 by default");
    assert_eq!(numbers(listing).len(), 20);
    assert_eq!(
        listing["issues"][0],
        json!({
            "number": 25,
            "title": "Issue 25",
            "url": "https://gitlab.com/group/sub/app/-/issues/25",
            "labels": ["bug"],
            "assignees": ["dev"],
            "updatedAt": "2026-01-01T00:00:25Z",
            "bodyPreview": "Body of Issue 25",
        })
    );
    let received = gitlab.received();
    assert_eq!(received.len(), 1, "one page holds all 25");
    assert_eq!(
        received[0].path,
        "/api/v4/projects/group%2Fsub%2Fapp/issues"
    );
    assert_eq!(received[0].query_value("state").as_deref(), Some("opened"));
    assert_eq!(received[0].credential.as_deref(), Some(GITLAB_TOKEN));
}

#[tokio::test]
async fn search_and_label_narrow_locally() {
    for kind in [Kind::Github, Kind::Gitlab] {
        let stand_in = StandIn::start(kind, "acme/app", token(kind)).await;
        stand_in.seed([
            Seeded {
                labels: vec!["bug".to_owned()],
                ..Seeded::issue(1, "Login page crashes")
            },
            Seeded {
                body: "The LOGIN form loses focus".to_owned(),
                labels: vec!["ux".to_owned()],
                ..Seeded::issue(2, "Focus lost")
            },
            Seeded {
                labels: vec!["bug".to_owned()],
                ..Seeded::issue(3, "Logout is slow")
            },
        ]);
        let fixture = fixture_for(kind, &stand_in).await;
        let found = listed(&fixture, json!({ "appId": "app", "search": "login" })).await;
        assert_eq!(numbers(&found), [2, 1], "{kind:?}: title or body, any case");
        assert_eq!(
            found["totalOpen"], 3,
            "the tracker's count, not the matches"
        );
        assert_eq!(found["truncated"], false);
        let found = listed(&fixture, json!({ "appId": "app", "label": "bug" })).await;
        assert_eq!(numbers(&found), [3, 1]);
        let found = listed(&fixture, json!({ "appId": "app", "label": "Bug" })).await;
        assert_eq!(numbers(&found), Vec::<u64>::new(), "exact label name");
        let found = listed(
            &fixture,
            json!({ "appId": "app", "label": "bug", "search": "LOG" }),
        )
        .await;
        assert_eq!(numbers(&found), [3, 1]);
        let found = listed(
            &fixture,
            json!({ "appId": "app", "search": "login", "limit": 1 }),
        )
        .await;
        assert_eq!(numbers(&found), [2]);
        assert_eq!(found["truncated"], true, "a second match was left out");
        let found = listed(
            &fixture,
            json!({ "appId": "app", "search": "", "label": "  " }),
        )
        .await;
        assert_eq!(numbers(&found), [3, 2, 1], "blank filters narrow nothing");
    }
}

async fn listed(fixture: &Fixture, arguments: Value) -> Value {
    let r = fixture.call("issues.list", arguments).await;
    assert_eq!(r.state, ToolState::Completed, "{:?}", r.result);
    result(&r).clone()
}

fn token(kind: Kind) -> &'static str {
    match kind {
        Kind::Github => GITHUB_TOKEN,
        Kind::Gitlab => GITLAB_TOKEN,
    }
}

/// A fixture with `stand_in` as its forge and an app `app` on it.
async fn fixture_for(kind: Kind, stand_in: &StandIn) -> Fixture {
    let fixture = match kind {
        Kind::Github => Fixture::with(Some(stand_in), None).await,
        Kind::Gitlab => Fixture::with(None, Some(stand_in)).await,
    };
    fixture.grant();
    let remote = match kind {
        Kind::Github => format!("https://github.com/{}.git", stand_in.full_name),
        Kind::Gitlab => format!("https://gitlab.com/{}.git", stand_in.full_name),
    };
    fixture.app("app", Some(&remote), Tracker::Auto).await;
    fixture
}

/// Asserts the listing failed with exactly `expected`.
async fn unreadable(fixture: &Fixture, expected: &str) {
    let r = fixture.call("issues.list", json!({ "appId": "app" })).await;
    assert_eq!(r.state, ToolState::Failed, "{:?}", r.result);
    assert_eq!(result(&r), &json!({ "ok": false, "error": expected }));
    assert!(result(&r).get("issues").is_none(), "never an empty list");
}

#[tokio::test]
async fn an_unreadable_tracker_is_a_failure_that_says_why() {
    for kind in [Kind::Github, Kind::Gitlab] {
        let (forge, variable, token_variable) = match kind {
            Kind::Github => ("GitHub", "PORTOS_GITHUB_API_URL", "GITHUB_TOKEN"),
            Kind::Gitlab => ("GitLab", "PORTOS_GITLAB_API_URL", "GITLAB_TOKEN"),
        };
        let stand_in = StandIn::start(kind, "acme/app", token(kind)).await;
        stand_in.seed([Seeded::issue(1, "One")]);
        let fixture = fixture_for(kind, &stand_in).await;
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
            (
                Fault::BadGateway,
                "HTTP 502".to_owned(),
                "try again later".to_owned(),
            ),
        ] {
            stand_in.fail(Faults {
                list: fault,
                ..Faults::default()
            });
            unreadable(
                &fixture,
                &format!("Could not read the {forge} issue list ({reason}); {remedy}"),
            )
            .await;
        }

        // A wrong token is the forge's 401 too: the same stand-in, given
        // the other forge's token.
        let remote = match kind {
            Kind::Github => "https://github.com/acme/app.git",
            Kind::Gitlab => "https://gitlab.com/acme/app.git",
        };
        stand_in.fail(Faults::default());
        let mut other = settings(&stand_in.api_url, &stand_in.api_url);
        std::mem::swap(&mut other.github_token, &mut other.gitlab_token);
        let swapped = Fixture::new(other);
        swapped.grant();
        swapped.app("app", Some(remote), Tracker::Auto).await;
        unreadable(
            &swapped,
            &format!(
                "Could not read the {forge} issue list (authentication failed (HTTP 401)); set {token_variable} to a token with issue access to this repository"
            ),
        )
        .await;
        let r = fixture.call("issues.list", json!({ "appId": "app" })).await;
        assert_eq!(r.state, ToolState::Completed, "the right token reads");

        // Nothing listens.
        let closed = closed_port_url(kind).await;
        let nowhere = Fixture::new(settings(&closed, &closed));
        nowhere.grant();
        nowhere.app("app", Some(remote), Tracker::Auto).await;
        let r = nowhere.call("issues.list", json!({ "appId": "app" })).await;
        assert_eq!(r.state, ToolState::Failed);
        let error = result(&r)["error"].as_str().expect("error").to_owned();
        assert!(
            error.starts_with(&format!(
                "Could not read the {forge} issue list (unreachable: "
            )) && error.ends_with(&format!(
                "); check the network and the {forge} API URL ({variable})"
            )),
            "{error}"
        );
        assert!(
            !error.contains("127.0.0.1"),
            "no URL in the reason: {error}"
        );
        assert!(result(&r).get("issues").is_none());
    }
}

#[tokio::test]
async fn a_repository_the_token_cannot_see_is_not_found() {
    let github = StandIn::start(Kind::Github, "acme/app", GITHUB_TOKEN).await;
    let fixture = Fixture::with(Some(&github), None).await;
    fixture.grant();
    fixture
        .app(
            "app",
            Some("https://github.com/acme/private.git"),
            Tracker::Auto,
        )
        .await;
    let r = fixture.call("issues.list", json!({ "appId": "app" })).await;
    assert_eq!(
        result(&r)["error"],
        "Could not read the GitHub issue list (repository not found or not visible to the token); check the app's git remote and that GITHUB_TOKEN can see the repository"
    );
    assert_eq!(
        github.received()[0].path,
        "/api/v3/repos/acme/private/issues"
    );
}
