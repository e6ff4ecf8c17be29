//! `portos --mind-turn "prompt"`: one Persistent Mind turn from the command
//! line, on the same data directory the server uses. Prints the stored
//! turn as JSON and exits 0 when it completed, 1 when it failed, 2 when it
//! could not start.

use std::io::Write;
use std::pin::Pin;
use std::process::ExitCode;

use portos_server::LiveCatalogs;
use portos_server::app::App;
use portos_server::cli::Command;

use super::ops;
use super::record::TurnState;

/// The job `--mind-turn` asks for.
pub fn mind_turn(prompt: String) -> Command {
    Box::new(
        move |app: App| -> Pin<Box<dyn Future<Output = ExitCode> + Send>> {
            Box::pin(async move { run(&app, &prompt).await })
        },
    )
}

async fn run(app: &App, prompt: &str) -> ExitCode {
    let resources = match ops::TurnResources::of(app.state()) {
        Ok(resources) => resources,
        Err(missing) => return fail(&missing.to_string(), ExitCode::from(2)),
    };
    let Some(catalogs) = app
        .state()
        .get::<LiveCatalogs>()
        .and_then(LiveCatalogs::get)
    else {
        return fail("the tool catalogs are not available", ExitCode::from(2));
    };
    let started = match ops::start(catalogs, resources, Some(prompt)).await {
        Ok(started) => started,
        Err(refusal) => return fail(&refusal.to_string(), ExitCode::from(2)),
    };
    let turn = match started.done.await {
        Ok(turn) => turn,
        Err(error) => {
            return fail(
                &format!("the turn {} stopped: {error}", started.id),
                ExitCode::FAILURE,
            );
        }
    };
    let text = match serde_json::to_string_pretty(&turn) {
        Ok(text) => text,
        Err(error) => return fail(&error.to_string(), ExitCode::FAILURE),
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        return fail(
            &format!("cannot write to stdout: {error}"),
            ExitCode::FAILURE,
        );
    }
    match turn.state {
        TurnState::Completed => ExitCode::SUCCESS,
        TurnState::Failed | TurnState::Running => ExitCode::FAILURE,
    }
}

fn fail(message: &str, code: ExitCode) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "portos: {message}");
    code
}
