//! The prompt's task block: OFF without the `createTasks` grant; a plain
//! "nothing to queue on" when no managed app is authorized or no coding
//! provider takes tasks; otherwise the guidance, the runnable apps marked
//! `granted` (as `GET /api/cos/mind/tools`' `taskCatalog` has them) and the
//! providers with their models and efforts. `cos.create-task` checks all of
//! it again when called.

use portos_server::store::{Store, StoreError};
use serde::Serialize;

use super::bounded_list;
use crate::domains::cos::Effort;
use crate::domains::mind::MindSettings;
use crate::domains::mind::grants::{self, TaskApp};

pub const TASKS_OFF: &str = "Coding tasks are OFF: the createTasks grant is not given, so you \
cannot queue coding work.";
pub const TASKS_NO_APP: &str = "Coding tasks: no managed app is authorized for Persistent Mind \
work, so there is no app to queue coding work on.";
pub const TASKS_NO_PROVIDER: &str = "Coding tasks: no coding provider (an enabled CLI or TUI \
agent) is configured, so no coding work can be queued.";
pub const TASKS_GUIDANCE: &str = "Coding tasks: you may queue coding work with cos_create_task \
(at most 5 a turn) on an app marked granted, for one of the providers below with one of its \
models (\"\" for its default) and efforts. The apps:";
pub const TASKS_PROVIDERS: &str = "The coding providers:";
/// The most each list may take of the prompt.
const LIST_MAX_CHARS: usize = 2_000;

/// A coding provider as the prompt names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TaskProvider {
    pub id: String,
    pub name: String,
    pub models: Vec<String>,
    pub efforts: Vec<Effort>,
}

/// What the prompt says about coding tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskBlock {
    Off,
    NoApp,
    NoProvider,
    Catalog {
        apps: Vec<TaskApp>,
        providers: Vec<TaskProvider>,
    },
}

impl TaskBlock {
    /// The block for `settings`, with the apps and providers as stored now.
    pub async fn resolve(settings: &MindSettings, store: &Store) -> Result<TaskBlock, StoreError> {
        if !settings.create_tasks {
            return Ok(TaskBlock::Off);
        }
        let catalog = grants::task_catalog(store, settings).await?;
        Ok(if !catalog.apps.iter().any(|app| app.granted) {
            TaskBlock::NoApp
        } else if catalog.providers.is_empty() {
            TaskBlock::NoProvider
        } else {
            TaskBlock::Catalog {
                apps: catalog.apps,
                providers: catalog
                    .providers
                    .into_iter()
                    .map(|provider| TaskProvider {
                        id: provider.id,
                        name: provider.name,
                        models: provider.models,
                        efforts: provider.efforts,
                    })
                    .collect(),
            }
        })
    }

    pub fn section(&self) -> String {
        match self {
            TaskBlock::Off => TASKS_OFF.to_owned(),
            TaskBlock::NoApp => TASKS_NO_APP.to_owned(),
            TaskBlock::NoProvider => TASKS_NO_PROVIDER.to_owned(),
            TaskBlock::Catalog { apps, providers } => {
                let apps = bounded_list(TASKS_GUIDANCE, &json_lines(apps), LIST_MAX_CHARS);
                let providers =
                    bounded_list(TASKS_PROVIDERS, &json_lines(providers), LIST_MAX_CHARS);
                format!("{apps}\n{providers}")
            }
        }
    }
}

fn json_lines<T: Serialize>(items: &[T]) -> Vec<String> {
    items
        .iter()
        .map(|item| serde_json::to_string(item).unwrap_or_default())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_for_each_case() {
        assert_eq!(TaskBlock::Off.section(), TASKS_OFF);
        assert_eq!(TaskBlock::NoApp.section(), TASKS_NO_APP);
        assert_eq!(TaskBlock::NoProvider.section(), TASKS_NO_PROVIDER);
        let catalog = TaskBlock::Catalog {
            apps: vec![
                TaskApp {
                    id: "portos".to_owned(),
                    name: "PortOS".to_owned(),
                    granted: true,
                },
                TaskApp {
                    id: "blog".to_owned(),
                    name: "Blog".to_owned(),
                    granted: false,
                },
            ],
            providers: vec![TaskProvider {
                id: "codex".to_owned(),
                name: "Codex CLI".to_owned(),
                models: vec!["gpt-5".to_owned()],
                efforts: vec![Effort::High],
            }],
        };
        assert_eq!(
            catalog.section(),
            format!(
                "{TASKS_GUIDANCE}\n- {{\"id\":\"portos\",\"name\":\"PortOS\",\"granted\":true}}\n- {{\"id\":\"blog\",\"name\":\"Blog\",\"granted\":false}}\n{TASKS_PROVIDERS}\n- {{\"id\":\"codex\",\"name\":\"Codex CLI\",\"models\":[\"gpt-5\"],\"efforts\":[\"high\"]}}"
            )
        );
    }
}
