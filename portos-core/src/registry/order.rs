//! Catalog order. The contract lists its tools in a fixed order (the static
//! tools, then the 22 voice-derived adapters in their table order); tools the
//! contract does not name follow, by canonical name. Link order is not stable
//! across builds, so it is never used.

const CONTRACT_ORDER: &[&str] = &[
    "mind.recipes.create",
    "mind.recipes.list",
    "mind.recipes.read",
    "mind.recipes.update",
    "mind.recipes.archive",
    "mind.recipes.restore",
    "mind.thinking-presets",
    "mind.request-thinking-preset",
    "mind.local-context",
    "mind.adjust-local-context",
    "cos.create-task",
    "issues.list",
    "issues.file",
    "mind.cleanup",
    "mind.protect-memory",
    "mind.choose-name",
    "user-actions.query",
    "eidoverse.chat",
    "eidoverse.destinations",
    "eidoverse.visit",
    "eidoverse.visit-chat",
    "eidoverse.leave",
    "eidoverse.status",
    "eidoverse.project",
    "eidoverse.augment",
    "eidoverse.say",
    // The 22 shared semantic adapters (BEHAVIOUR §3 table order).
    "brain.capture",
    "brain.search",
    "brain.recent",
    "health.log.drink",
    "health.log.nicotine",
    "health.today",
    "health.log.weight",
    "health.log.workout",
    "goals.list",
    "goals.update-progress",
    "goals.log-note",
    "system.processes.status",
    "feeds.digest",
    "feeds.mark-read",
    "journal.append",
    "journal.read",
    "time.now",
    "calendar.today",
    "calendar.next",
    "weather.now",
    "cos.agents.status",
    "catalog.search",
];

/// The sort key of a canonical name.
pub fn catalog_rank(name: &str) -> (usize, &str) {
    match CONTRACT_ORDER.iter().position(|known| *known == name) {
        Some(position) => (position, ""),
        None => (CONTRACT_ORDER.len(), name),
    }
}
