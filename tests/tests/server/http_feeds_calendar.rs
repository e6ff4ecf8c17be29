//! `/api/feeds/*` and `/api/calendar/*` against the real binary. Feeds are
//! refreshed from a real HTTP server this test runs on 127.0.0.1 (a real
//! exchange, serving the fixture files), from files, and from addresses
//! that fail, which must answer a clear error and change nothing.

use std::path::PathBuf;

use axum::Router;
use axum::body::{Body as AxumBody, Bytes};
use axum::http::{StatusCode as AxumStatus, header};
use axum::routing::get;
use portos_server::testing::serve_on_loopback;
use portos_tests::ServerProcess;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/feeds-calendar")
        .join(name)
}

fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture_path(name)).expect("fixture")
}

/// A small web server with the fixtures and a few ways to fail; its base URL.
async fn feed_server() -> String {
    let rss = fixture_text("news.rss");
    let ics = fixture_text("calendar.ics");
    let app = Router::new()
        .route(
            "/news.rss",
            get(move || async move { ([(header::CONTENT_TYPE, "application/rss+xml")], rss) }),
        )
        .route(
            "/calendar.ics",
            get(move || async move { ([(header::CONTENT_TYPE, "text/calendar")], ics) }),
        )
        .route(
            "/page.html",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/html")],
                    "<html><body>Hello</body></html>",
                )
            }),
        )
        .route(
            "/broken",
            get(|| async { (AxumStatus::INTERNAL_SERVER_ERROR, "oops") }),
        )
        .route(
            "/endless",
            get(|| async {
                // Never ends: the fetch must stop at its size cap rather
                // than buffer it.
                let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
                let endless = futures::stream::repeat_with(move || {
                    Ok::<_, std::convert::Infallible>(chunk.clone())
                });
                (
                    [(header::CONTENT_TYPE, "application/rss+xml")],
                    AxumBody::from_stream(endless),
                )
            }),
        )
        .route(
            "/away",
            get(|| async {
                (
                    AxumStatus::FOUND,
                    [(header::LOCATION, "http://10.0.0.1/feed.xml")],
                )
            }),
        );
    serve_on_loopback(app).await
}

/// A loopback address where nothing listens.
fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/feed.xml")
}

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.expect("request");
    let status = response.status();
    let bytes = response.bytes().await.expect("body");
    let body = if bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&bytes).expect("JSON body")
    };
    (status, body)
}

fn assert_error(body: &Value, code: &str) {
    assert_eq!(body["code"], code, "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );
}

async fn subscribe(client: &Client, server: &ServerProcess, body: Value) -> (StatusCode, Value) {
    send(client.post(server.url("/api/feeds")).json(&body)).await
}

#[tokio::test]
async fn a_feed_refreshed_over_http_feeds_the_digest() {
    let web = feed_server().await;
    let server = ServerProcess::start(&["--timezone", "UTC"]);
    let client = portos_tests::http_client();

    let (status, feed) = subscribe(
        &client,
        &server,
        json!({ "url": format!("{web}/news.rss") }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{feed}");
    let id = feed["id"].as_str().expect("id").to_owned();
    assert_eq!(feed["refreshedAt"], Value::Null);
    assert_eq!(feed["items"], 0);

    let (status, again) = subscribe(
        &client,
        &server,
        json!({ "url": format!("{web}/news.rss") }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_error(&again, "ALREADY_SUBSCRIBED");

    let (status, refreshed) =
        send(client.post(server.url(&format!("/api/feeds/{id}/refresh")))).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert_eq!(refreshed["added"], 3);
    assert_eq!(refreshed["seen"], 3);
    assert_eq!(refreshed["feed"]["title"], "Harbor Town News");
    assert_eq!(refreshed["feed"]["unread"], 3);
    let (_, refreshed) = send(client.post(server.url(&format!("/api/feeds/{id}/refresh")))).await;
    assert_eq!(refreshed["added"], 0, "a second refresh adds nothing");

    let (status, listed) = send(client.get(server.url("/api/feeds/items?unread=true"))).await;
    assert_eq!(status, StatusCode::OK);
    let items = listed["items"].as_array().expect("items");
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["title"], "Ferry schedule changes for winter");
    assert_eq!(items[0]["publishedAt"], "2026-12-02T09:30:00Z");
    assert_eq!(items[0]["feedId"], id.as_str());
    let item_id = items[0]["id"].as_str().expect("id").to_owned();

    let (status, read) =
        send(client.post(server.url(&format!("/api/feeds/items/{item_id}/read")))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read["read"], true);
    let (_, listed) =
        send(client.get(server.url(&format!("/api/feeds/items?unread=true&feed={id}")))).await;
    assert_eq!(listed["items"].as_array().map(Vec::len), Some(2));
    let (_, all) = send(client.get(server.url("/api/feeds/items"))).await;
    assert_eq!(all["items"].as_array().map(Vec::len), Some(3));

    // The tool sees the same data.
    let (status, call) = send(client.post(server.url("/api/cos/tools/call")).json(&json!({
        "requestId": "digest-1", "name": "feeds.digest", "arguments": {}
    })))
    .await;
    assert_eq!(status, StatusCode::OK, "{call}");
    assert_eq!(call["result"]["totalUnread"], 2);
    assert_eq!(
        call["result"]["items"][0]["title"],
        "Library opens a repair cafe"
    );
    assert_eq!(call["result"]["items"][0]["date"], "2026-12-01");

    let (status, _) = send(client.delete(server.url(&format!("/api/feeds/{id}")))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, gone) = send(client.delete(server.url(&format!("/api/feeds/{id}")))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&gone, "FEED_NOT_FOUND");
    let (_, all) = send(client.get(server.url("/api/feeds/items"))).await;
    assert_eq!(all["items"].as_array().map(Vec::len), Some(0));
}

#[tokio::test]
async fn a_feed_file_refreshes_and_a_custom_title_stays() {
    let server = ServerProcess::start(&["--timezone", "UTC"]);
    let client = portos_tests::http_client();
    let path = fixture_path("blog.atom").display().to_string();
    let (status, feed) = subscribe(
        &client,
        &server,
        json!({ "path": path, "title": "Compiler blog" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{feed}");
    let id = feed["id"].as_str().expect("id");
    let (status, refreshed) =
        send(client.post(server.url(&format!("/api/feeds/{id}/refresh")))).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert_eq!(refreshed["added"], 2);
    assert_eq!(refreshed["feed"]["title"], "Compiler blog");
    let (_, feeds) = send(client.get(server.url("/api/feeds"))).await;
    assert_eq!(feeds["feeds"][0]["unread"], 2);
}

#[tokio::test]
async fn failed_refreshes_say_why_and_change_nothing() {
    let web = feed_server().await;
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    let unreachable = closed_port_url();
    let missing = std::env::temp_dir().join("portos-no-such-feed.xml");
    let cases = [
        (
            json!({ "url": unreachable.clone() }),
            StatusCode::BAD_GATEWAY,
            "SOURCE_UNREACHABLE",
            unreachable.clone(),
        ),
        (
            json!({ "url": format!("{web}/broken") }),
            StatusCode::BAD_GATEWAY,
            "SOURCE_UNREACHABLE",
            "HTTP 500".to_owned(),
        ),
        (
            json!({ "url": format!("{web}/endless") }),
            StatusCode::BAD_GATEWAY,
            "SOURCE_UNREACHABLE",
            "sent more than 8388608 bytes".to_owned(),
        ),
        (
            json!({ "url": format!("{web}/page.html") }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "FEED_PARSE_ERROR",
            "not an RSS or Atom feed".to_owned(),
        ),
        (
            json!({ "path": missing.display().to_string() }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "SOURCE_UNREADABLE",
            "cannot read the file".to_owned(),
        ),
    ];
    for (body, status, code, says) in cases {
        let (created, feed) = subscribe(&client, &server, body.clone()).await;
        assert_eq!(created, StatusCode::CREATED, "{feed}");
        let id = feed["id"].as_str().expect("id");
        let (got, error) = send(client.post(server.url(&format!("/api/feeds/{id}/refresh")))).await;
        assert_eq!(got, status, "{body} {error}");
        assert_error(&error, code);
        let message = error["error"].as_str().expect("message");
        assert!(message.contains(&says), "{message} should mention {says}");
        let (_, feeds) = send(client.get(server.url("/api/feeds"))).await;
        let stored = feeds["feeds"]
            .as_array()
            .expect("feeds")
            .iter()
            .find(|f| f["id"] == id)
            .expect("still subscribed")
            .clone();
        assert_eq!(stored["refreshedAt"], Value::Null, "{body}");
        assert_eq!(stored["items"], 0);
    }
    let (status, error) = send(client.post(server.url("/api/feeds/no-such-feed/refresh"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&error, "FEED_NOT_FOUND");
    let (status, error) = send(client.post(server.url("/api/feeds/items/no-such-item/read"))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&error, "FEED_ITEM_NOT_FOUND");
}

/// Refreshes a new feed at `url` on `server`: the answer, and whether the
/// feed is unchanged after it.
async fn refresh_new_feed(
    client: &Client,
    server: &ServerProcess,
    url: &str,
) -> (StatusCode, Value, bool) {
    let (created, feed) = subscribe(client, server, json!({ "url": url })).await;
    assert_eq!(created, StatusCode::CREATED, "{feed}");
    let id = feed["id"].as_str().expect("id").to_owned();
    let (status, body) = send(client.post(server.url(&format!("/api/feeds/{id}/refresh")))).await;
    let (_, feeds) = send(client.get(server.url("/api/feeds"))).await;
    let unchanged = feeds["feeds"]
        .as_array()
        .expect("feeds")
        .iter()
        .any(|f| f["id"] == id.as_str() && f["refreshedAt"] == Value::Null && f["items"] == 0);
    (status, body, unchanged)
}

#[tokio::test]
async fn a_source_the_outbound_policy_refuses_is_never_fetched() {
    let web = feed_server().await;
    let client = portos_tests::http_client();

    // The tests' policy: loopback only. A URL whose host is a refused
    // address is refused when it is added (400, naming the rule, nothing
    // stored); a name, or a redirect from the allowed stand-in to a
    // private address, when it is fetched (422, nothing sent, nothing
    // changed; an unlisted name is not even looked up). The names this
    // server resolves are the test's own (pinned), so a name that resolves
    // to a refused address is judged by that address.
    let server = ServerProcess::start(&[
        "--outbound-hosts",
        "rebind.test=10.0.0.1,v6.test=fd00::1,feeds.test=192.168.1.9,feeds.test=127.0.0.1",
    ]);
    for (url, says) in [
        (
            "http://169.254.169.254/latest/meta-data/",
            "169.254.0.0/16: link-local (cloud metadata)",
        ),
        ("http://10.0.0.1/feed.xml", "10.0.0.0/8: private (RFC 1918)"),
        (
            "http://[::ffff:c0a8:1]/feed.xml",
            "192.168.0.0/16: private (RFC 1918)",
        ),
        ("http://[fe80::1]/feed.xml", "fe80::/10: link-local"),
        ("http://250.250.250.250/", "240.0.0.0/4: reserved"),
        (
            "http://93.184.215.14/feed.xml",
            "not in this server's outbound allow list",
        ),
    ] {
        let (status, error) = subscribe(&client, &server, json!({ "url": url })).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{url}: {error}");
        assert_error(&error, "VALIDATION_ERROR");
        let message = error["error"].as_str().expect("message");
        assert!(message.contains(says), "{url}: {message}");
    }
    let (_, feeds) = send(client.get(server.url("/api/feeds"))).await;
    assert_eq!(
        feeds["feeds"].as_array().map(Vec::len),
        Some(0),
        "nothing stored"
    );
    for (url, says) in [
        (
            "http://feeds.example.org/feed.xml".to_owned(),
            "not in this server's outbound allow list",
        ),
        (format!("{web}/away"), "10.0.0.0/8: private (RFC 1918)"),
        (
            "http://rebind.test/feed.xml".to_owned(),
            "rebind.test (10.0.0.1) is not a public address (10.0.0.0/8",
        ),
        (
            "http://v6.test:8080/feed.xml".to_owned(),
            "v6.test (fd00::1) is not a public address (fc00::/7",
        ),
    ] {
        let (status, error, unchanged) = refresh_new_feed(&client, &server, &url).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{url}: {error}");
        assert_error(&error, "DESTINATION_NOT_ALLOWED");
        let message = error["error"].as_str().expect("message");
        assert!(message.contains(says), "{url}: {message}");
        assert!(unchanged, "{url}: a refused refresh changes nothing");
    }
    let (status, refreshed, _) =
        refresh_new_feed(&client, &server, &format!("{web}/news.rss")).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "the stand-in on loopback is allowed: {refreshed}"
    );
    let port = web.rsplit(':').next().expect("a port");
    let (status, refreshed, _) = refresh_new_feed(
        &client,
        &server,
        &format!("http://feeds.test:{port}/news.rss"),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::OK,
        "a pinned name reaches its allowed address only: {refreshed}"
    );

    // The default policy (public addresses) widened by a LAN range:
    // loopback is refused even by name, since the name resolves to it.
    let public = ServerProcess::start_with_env(
        tempfile::tempdir().expect("temp dir"),
        &["--outbound-allow", "192.168.1.0/24"],
        &[("PORTOS_OUTBOUND_ONLY", "")],
    );
    let by_name = format!("http://localhost:{port}/news.rss");
    let (status, error, unchanged) = refresh_new_feed(&client, &public, &by_name).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{error}");
    assert_error(&error, "DESTINATION_NOT_ALLOWED");
    let message = error["error"].as_str().expect("message");
    assert!(
        message.contains("localhost (") && message.contains("loopback"),
        "{message}"
    );
    assert!(unchanged);

    // A calendar source is judged by the same policy: a refused address
    // when it is added, a name when it is fetched.
    let (refused, error) = send(
        client
            .post(server.url("/api/calendar/sources"))
            .json(&json!({ "url": "http://169.254.169.254/cal.ics" })),
    )
    .await;
    assert_eq!(refused, StatusCode::BAD_REQUEST, "{error}");
    assert_error(&error, "VALIDATION_ERROR");
    let (created, source) = send(
        client
            .post(server.url("/api/calendar/sources"))
            .json(&json!({ "url": "http://calendars.example.org/cal.ics" })),
    )
    .await;
    assert_eq!(created, StatusCode::CREATED, "{source}");
    let id = source["id"].as_str().expect("id");
    let (status, error) =
        send(client.post(server.url(&format!("/api/calendar/sources/{id}/refresh")))).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{error}");
    assert_error(&error, "DESTINATION_NOT_ALLOWED");
}

#[tokio::test]
async fn bad_bodies_are_refused() {
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for body in [
        json!({ "url": "https://example.org/a.xml", "color": "red" }),
        json!({ "url": "https://example.org/a.xml", "path": "/tmp/a.xml" }),
        json!({}),
        json!({ "url": "ftp://example.org/a.xml" }),
        json!({ "url": "/tmp/a.xml" }),
        json!({ "path": "https://example.org/a.xml" }),
        json!({ "url": "https://example.org/a.xml", "title": "  " }),
        json!({ "url": 5 }),
    ] {
        for route in ["/api/feeds", "/api/calendar/sources"] {
            let (status, error) = send(client.post(server.url(route)).json(&body)).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{route} {body}");
            assert_error(&error, "VALIDATION_ERROR");
        }
    }
    for route in [
        "/api/feeds",
        "/api/calendar/sources",
        "/api/calendar/events",
    ] {
        let (status, error) = send(
            client
                .post(server.url(route))
                .header("content-type", "text/plain")
                .body("{}"),
        )
        .await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{route}");
        assert_error(&error, "UNSUPPORTED_MEDIA_TYPE");
    }
    let (status, feeds) = send(client.get(server.url("/api/feeds"))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(feeds["feeds"], json!([]));
    let (status, error) = send(client.get(server.url("/api/feeds/items?unread=maybe"))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_error(&error, "VALIDATION_ERROR");
}

#[tokio::test]
async fn a_calendar_over_http_lists_its_events_in_the_users_zone() {
    let web = feed_server().await;
    let server = ServerProcess::start(&["--timezone", "America/Los_Angeles"]);
    let client = portos_tests::http_client();
    let (status, source) = send(
        client
            .post(server.url("/api/calendar/sources"))
            .json(&json!({ "url": format!("{web}/calendar.ics"), "title": "Team" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{source}");
    let id = source["id"].as_str().expect("id").to_owned();
    let (status, refreshed) =
        send(client.post(server.url(&format!("/api/calendar/sources/{id}/refresh")))).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    assert_eq!(refreshed["events"], 3);
    assert_eq!(refreshed["warnings"], json!([]));
    assert_eq!(refreshed["source"]["events"], 3);

    let (status, listed) =
        send(client.get(server.url("/api/calendar/events?from=2026-12-03&to=2026-12-08"))).await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed["from"], "2026-12-03T00:00:00-08:00");
    let shown: Vec<(String, String)> = listed["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["title"].as_str().expect("t").to_owned(),
                e["start"].as_str().expect("s").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (
                "Team standup".to_owned(),
                "2026-12-03T00:15:00-08:00".to_owned()
            ),
            (
                "Late call with Tokyo".to_owned(),
                "2026-12-03T20:30:00-08:00".to_owned()
            ),
            ("Founders Day".to_owned(), "2026-12-07".to_owned()),
        ]
    );
    assert_eq!(listed["events"][0]["recurring"], true);
    assert_eq!(listed["events"][2]["allDay"], true);

    // Events of a source are changed through the source.
    let event_id = listed["events"][0]["eventId"].as_str().expect("id");
    let (status, error) =
        send(client.delete(server.url(&format!("/api/calendar/events/{event_id}")))).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_error(&error, "EVENT_FROM_SOURCE");

    let (status, _) = send(client.delete(server.url(&format!("/api/calendar/sources/{id}")))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (_, listed) =
        send(client.get(server.url("/api/calendar/events?from=2026-12-03&to=2026-12-08"))).await;
    assert_eq!(listed["events"], json!([]));
    let (status, error) =
        send(client.post(server.url(&format!("/api/calendar/sources/{id}/refresh")))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&error, "CALENDAR_SOURCE_NOT_FOUND");
}

#[tokio::test]
async fn calendar_source_failures_change_nothing() {
    let web = feed_server().await;
    let server = ServerProcess::start(&[]);
    let client = portos_tests::http_client();
    for (body, status, code) in [
        (
            json!({ "url": closed_port_url() }),
            StatusCode::BAD_GATEWAY,
            "SOURCE_UNREACHABLE",
        ),
        (
            json!({ "url": format!("{web}/news.rss") }),
            StatusCode::UNPROCESSABLE_ENTITY,
            "CALENDAR_PARSE_ERROR",
        ),
    ] {
        let (_, source) = send(client.post(server.url("/api/calendar/sources")).json(&body)).await;
        let id = source["id"].as_str().expect("id");
        let (got, error) =
            send(client.post(server.url(&format!("/api/calendar/sources/{id}/refresh")))).await;
        assert_eq!(got, status, "{error}");
        assert_error(&error, code);
    }
    let (_, sources) = send(client.get(server.url("/api/calendar/sources"))).await;
    for source in sources["sources"].as_array().expect("sources") {
        assert_eq!(source["refreshedAt"], Value::Null);
        assert_eq!(source["events"], 0);
    }
}

#[tokio::test]
async fn events_added_through_the_api() {
    let server = ServerProcess::start(&["--timezone", "Europe/Paris"]);
    let client = portos_tests::http_client();
    let (status, created) = send(client.post(server.url("/api/calendar/events")).json(&json!({
        "title": "Piano lesson", "start": "2026-12-05T17:00:00", "end": "2026-12-05T18:00:00",
        "location": "Rue Lepic"
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["start"], "2026-12-05T17:00:00+01:00");
    assert_eq!(created["end"], "2026-12-05T18:00:00+01:00");
    let lesson = created["id"].as_str().expect("id").to_owned();

    let (status, created) = send(
        client
            .post(server.url("/api/calendar/events"))
            .json(&json!({
                "title": "Trip", "start": "2026-12-06", "end": "2026-12-07", "allDay": true
            })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["allDay"], true);
    assert_eq!(created["end"], "2026-12-08");

    let (status, created) = send(
        client
            .post(server.url("/api/calendar/events"))
            .json(&json!({
                "title": "Call", "start": "2026-12-05T22:30:00Z"
            })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["start"], "2026-12-05T23:30:00+01:00");

    let (_, listed) =
        send(client.get(server.url("/api/calendar/events?from=2026-12-05&to=2026-12-06"))).await;
    let titles: Vec<&str> = listed["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["title"].as_str().expect("title"))
        .collect();
    assert_eq!(titles, ["Piano lesson", "Call"]);
    let (_, listed) =
        send(client.get(server.url("/api/calendar/events?from=2026-12-07&to=2026-12-08"))).await;
    assert_eq!(listed["events"][0]["title"], "Trip");

    for body in [
        json!({ "title": "x", "start": "2026-12-05T17:00:00", "colour": "red" }),
        json!({ "title": " ", "start": "2026-12-05T17:00:00" }),
        json!({ "title": "x", "start": "next tuesday" }),
        json!({ "title": "x", "start": "2026-12-05", "allDay": false }),
        json!({ "title": "x", "start": "2026-12-05T17:00:00", "allDay": true }),
        json!({ "title": "x", "start": "2026-12-05T17:00:00", "end": "2026-12-05T16:00:00" }),
        json!({ "title": "x", "start": "2026-12-05T17:00:00", "end": "2026-12-06" }),
        json!({ "start": "2026-12-05T17:00:00" }),
    ] {
        let (status, error) =
            send(client.post(server.url("/api/calendar/events")).json(&body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_error(&error, "VALIDATION_ERROR");
    }
    for query in [
        "from=yesterday",
        "from=2026-12-08&to=2026-12-01",
        "from=2026-01-01&to=2028-01-01",
        "since=2026-12-01",
    ] {
        let (status, error) =
            send(client.get(server.url(&format!("/api/calendar/events?{query}")))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}");
        assert_error(&error, "VALIDATION_ERROR");
    }

    let (status, _) =
        send(client.delete(server.url(&format!("/api/calendar/events/{lesson}")))).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, error) =
        send(client.delete(server.url(&format!("/api/calendar/events/{lesson}")))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_error(&error, "CALENDAR_EVENT_NOT_FOUND");
    let (_, listed) =
        send(client.get(server.url("/api/calendar/events?from=2026-12-05&to=2026-12-06"))).await;
    assert_eq!(listed["events"].as_array().map(Vec::len), Some(1));
}
