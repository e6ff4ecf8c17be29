// `#[derive(RouteErrors)]`: every variant says how it answers, with a
// failure status and a SCREAMING_SNAKE_CASE code.
use portos_server::http::RouteErrors;

#[derive(Debug, thiserror::Error, RouteErrors)]
enum DemoError {
    #[error("gone")]
    Gone,
    #[error("fine")]
    #[route_error(status = 200, code = "fine")]
    Fine,
    #[error("two")]
    #[route_error(transparent)]
    Two(String, String),
    #[error("half")]
    #[route_error(status = 404)]
    Half,
    #[error("odd")]
    #[route_error(retry = true)]
    Odd,
}

#[derive(RouteErrors)]
struct NotAnEnum;

fn main() {}
