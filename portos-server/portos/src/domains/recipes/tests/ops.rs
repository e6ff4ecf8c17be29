//! The library's operations on a real store (docs/reference.md#recipe-storage):
//! revisions, every refusal changing nothing, racing writers, the Mind's live
//! grant.

use portos_server::settings;
use portos_server::store::Store;
use serde_json::{Value, json};

use super::{registry, valid, with};
use crate::domains::recipes::error::RecipeError;
use crate::domains::recipes::model::{Author, Written};
use crate::domains::recipes::ops;

fn store() -> Store {
    crate::store::open_in_memory().expect("store")
}

async fn create(store: &Store, definition: Value) -> Written {
    ops::create(store, registry(), definition, Author::User)
        .await
        .expect("created")
}

async fn generation(store: &Store) -> i64 {
    ops::generation(store).await.expect("generation")
}

#[tokio::test]
async fn revisions_are_appended_and_the_history_is_kept() {
    let store = store();
    let created = create(&store, valid()).await;
    let recipe = &created.recipe;
    assert_eq!(recipe.active_revision, 1);
    assert!(recipe.available && !recipe.archived);
    assert_eq!(
        recipe.definition["purpose"],
        "Search the brain for the latest capture's text."
    );
    let id = recipe.id.clone();
    assert!(uuid::Uuid::parse_str(&id).is_ok());

    let changed = with("/purpose", Some(json!("Second purpose")));
    let updated = ops::update(&store, registry(), id.clone(), changed, 1, Author::User)
        .await
        .expect("updated");
    assert_eq!(updated.recipe.active_revision, 2);
    let archived = ops::archive(&store, registry(), id.clone(), 2, Author::User)
        .await
        .expect("archived");
    assert_eq!(archived.recipe.active_revision, 3);
    assert!(archived.recipe.archived && !archived.recipe.available);
    assert_eq!(
        archived.recipe.disabled_reason.as_deref(),
        Some("The recipe is archived")
    );
    // Archiving again changes nothing and answers the same revision.
    let before = generation(&store).await;
    let again = ops::archive(&store, registry(), id.clone(), 3, Author::User)
        .await
        .expect("no-op");
    assert!(!again.changed);
    assert_eq!(again.recipe.active_revision, 3);
    let restored = ops::restore(&store, registry(), id.clone(), 1, 3, Author::User)
        .await
        .expect("restored");
    assert_eq!(restored.recipe.active_revision, 4);
    assert!(!restored.recipe.archived && restored.recipe.available);
    assert_eq!(
        restored.recipe.definition["purpose"],
        "Search the brain for the latest capture's text."
    );
    assert!(generation(&store).await > before);

    let read = ops::read(&store, &registry(), id.clone(), 2, 0)
        .await
        .expect("read");
    assert_eq!(read.total_versions, 4);
    let revisions: Vec<i64> = read.versions.iter().map(|v| v.revision).collect();
    assert_eq!(revisions, [4, 3], "newest first, paged");
    assert!(read.versions[1].archived);
    let page = ops::read(&store, &registry(), id, 2, 2)
        .await
        .expect("read");
    let revisions: Vec<i64> = page.versions.iter().map(|v| v.revision).collect();
    assert_eq!(revisions, [2, 1]);
    assert_eq!(
        page.versions[1].definition["purpose"],
        read.recipe.definition["purpose"]
    );
}

#[tokio::test]
async fn refusals_change_nothing() {
    let store = store();
    let id = create(&store, valid()).await.recipe.id;
    let before = generation(&store).await;

    let invalid = with("/steps/0/tool", Some(json!("brain.capture")));
    let error = ops::update(&store, registry(), id.clone(), invalid, 1, Author::User)
        .await
        .expect_err("invalid");
    assert!(
        matches!(&error, RecipeError::Invalid(e) if e.field.as_deref() == Some("steps[0].tool"))
    );

    let stale = ops::update(&store, registry(), id.clone(), valid(), 7, Author::User)
        .await
        .expect_err("stale");
    assert!(matches!(
        stale,
        RecipeError::RevisionConflict {
            expected: 7,
            active: 1,
            ..
        }
    ));
    let missing = ops::archive(&store, registry(), "nope".to_owned(), 1, Author::User)
        .await
        .expect_err("missing");
    assert!(matches!(missing, RecipeError::NotFound(_)));
    let no_revision = ops::restore(&store, registry(), id.clone(), 9, 1, Author::User)
        .await
        .expect_err("no such revision");
    assert!(matches!(
        no_revision,
        RecipeError::NoSuchRevision { revision: 9, .. }
    ));
    let future = with("/schemaVersion", Some(json!(2)));
    let unsupported = ops::create(&store, registry(), future, Author::User)
        .await
        .expect_err("unsupported");
    assert!(matches!(unsupported, RecipeError::VersionUnsupported(_)));
    let taken = ops::create(&store, registry(), valid(), Author::User)
        .await
        .expect_err("taken");
    assert!(matches!(taken, RecipeError::NameConflict(_)));

    assert_eq!(generation(&store).await, before, "nothing was written");
    let read = ops::read(&store, &registry(), id, 10, 0)
        .await
        .expect("read");
    assert_eq!(read.recipe.active_revision, 1);
    assert_eq!(read.total_versions, 1);
}

#[tokio::test]
async fn names_stay_taken_by_archived_recipes_and_renames_are_checked() {
    let store = store();
    let first = create(&store, valid()).await.recipe;
    ops::archive(&store, registry(), first.id.clone(), 1, Author::User)
        .await
        .expect("archived");
    let again = ops::create(&store, registry(), valid(), Author::User).await;
    assert!(matches!(again, Err(RecipeError::NameConflict(_))));

    let other = create(&store, with("/name", Some(json!("recipe.other"))))
        .await
        .recipe;
    let rename = ops::update(
        &store,
        registry(),
        other.id.clone(),
        valid(),
        1,
        Author::User,
    )
    .await;
    assert!(matches!(rename, Err(RecipeError::NameConflict(_))));
    let renamed = ops::update(
        &store,
        registry(),
        other.id,
        with("/name", Some(json!("recipe.renamed"))),
        1,
        Author::User,
    )
    .await
    .expect("a free name");
    assert_eq!(renamed.recipe.name, "recipe.renamed");
    let callable = ops::callable(&store, "recipe.renamed".to_owned())
        .await
        .expect("callable");
    assert_eq!(callable.revision, 2);
    assert!(matches!(
        ops::callable(&store, "recipe.other".to_owned()).await,
        Err(RecipeError::NotFound(_))
    ));
    assert!(matches!(
        ops::callable(&store, "recipe.brain-echo".to_owned()).await,
        Err(RecipeError::Archived(_))
    ));
    let active = ops::active(&store).await.expect("active");
    let names: Vec<&str> = active.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["recipe.renamed"]);
    assert!(active[0].definition.is_ok());
}

#[tokio::test]
async fn two_racing_updates_cannot_both_win() {
    let store = store();
    let id = create(&store, valid()).await.recipe.id;
    let a = ops::update(
        &store,
        registry(),
        id.clone(),
        with("/purpose", Some(json!("A"))),
        1,
        Author::User,
    );
    let b = ops::update(
        &store,
        registry(),
        id.clone(),
        with("/purpose", Some(json!("B"))),
        1,
        Author::User,
    );
    let (a, b) = tokio::join!(a, b);
    let wins = [a.is_ok(), b.is_ok()].iter().filter(|won| **won).count();
    assert_eq!(wins, 1, "{a:?} {b:?}");
    let lost = if a.is_ok() { b } else { a };
    assert!(matches!(lost, Err(RecipeError::RevisionConflict { .. })));
    let read = ops::read(&store, &registry(), id, 10, 0)
        .await
        .expect("read");
    assert_eq!(read.total_versions, 2);
}

#[tokio::test]
async fn the_minds_writes_re_read_its_grant() {
    let store = store();
    let off = ops::create(&store, registry(), valid(), Author::Mind).await;
    assert!(matches!(off, Err(RecipeError::AccessOff)));
    store
        .run(|connection| {
            settings::set_json(
                connection,
                crate::MIND_GRANTS_KEY,
                &json!({ "manageToolRecipes": true }),
            )
        })
        .await
        .expect("granted");
    let created = ops::create(&store, registry(), valid(), Author::Mind)
        .await
        .expect("granted");
    let read = ops::read(&store, &registry(), created.recipe.id, 10, 0)
        .await
        .expect("read");
    assert_eq!(read.versions[0].author, Author::Mind);
}

#[tokio::test]
async fn a_stored_definition_that_no_longer_fits_is_unavailable() {
    let store = store();
    let id = create(&store, valid()).await.recipe.id;
    // As if the catalog changed under it: the stored step names a tool
    // that is gone.
    store
        .run(move |connection| {
            connection.execute(
                "UPDATE mind_tool_recipe_versions
                 SET definition = replace(definition, 'brain.recent', 'brain.retired')",
                [],
            )?;
            Ok(())
        })
        .await
        .expect("rewritten");
    let page = ops::list(&store, &registry(), 10, 0).await.expect("list");
    let recipe = &page.recipes[0];
    assert_eq!(recipe.id, id);
    assert!(!recipe.available);
    assert!(
        recipe
            .disabled_reason
            .as_deref()
            .is_some_and(|reason| reason.contains("brain.retired")),
        "{recipe:?}"
    );
    // Restoring that revision is checked against today's catalog.
    let restore = ops::restore(&store, registry(), id, 1, 1, Author::User).await;
    assert!(matches!(restore, Err(RecipeError::Invalid(_))));
}
