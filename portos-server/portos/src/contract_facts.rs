//! PortOS's own facts about the tool contract, handed to the runtime as
//! configuration by [`crate::install`]: neither portos-core nor the runtime
//! knows an application's tool order, intent groups or public paths.
//!
//! Every served catalog and document is byte-for-byte what it was when
//! these were constants of core; the golden snapshots under `tests/` say so.

use portos_core::catalog::{IntentConfig, IntentGroup};

/// The contract's catalog order: the static tools, then the 22 voice-derived
/// adapters in their table order (docs/reference.md#semantic-adapters). Tools
/// it does not name follow, by canonical name.
pub const TOOL_ORDER: &[&str] = &[
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
    // The 22 shared semantic adapters (docs/reference.md#semantic-adapters
    // table order).
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

/// The voice intent groups (docs/reference.md#intent-filtering), each switched
/// on by a case-insensitive pattern, and the form-fill pattern that hides the
/// tools marked `suppress_on_form_fill`.
pub const INTENTS: IntentConfig = IntentConfig {
    groups: &[
        IntentGroup {
            name: "brain",
            pattern: concat!(
                r"\b(search|find|look\s*up|recall|brain|inbox|capture|remember|remind\s+me|jot)\b",
                r"|\bwhat\s+did\s+i\s+(say|write|note)\b",
                r"|\bnote\s+(that|to|down)\b",
                r"|\bsave\s+(this|that)\b",
                r"|\bfile\s+(this|that|it)\b",
                r"|\badd\b.{0,60}\bto\s+my\s+(brain|inbox|notes)\b",
            ),
        },
        IntentGroup {
            name: "meatspace",
            pattern: concat!(
                r"\b(drinks?|drank|beers?|wines?|whiske?y|shots?|cocktails?|cigarettes?|vapes?|vaping|pouch(es)?",
                r"|nicotine|weigh(s|ed|t)?|pounds?|kilos?|kg|smok(e|ed|ing)|workouts?|exercis(e|ed|ing)|jog(ged|ging)?",
                r"|yoga|lift(ed|ing)?|cardio|gym|cycling|swim(ming)?)\b",
                r"|\bhow\s+am\s+i\b|\bsummary\s+today\b",
                r"|\blog\s+(a|my)\s+(drink|weight|nicotine|workout|run|exercise)\b",
                r"|\bwent\s+for\s+an?\b.{0,30}\brun\b",
                r"|\bran\s+(\d|a\s+mile|a\s+few|an?\s+\w+\s*k\b|around|for|to|along|through)",
            ),
        },
        IntentGroup {
            name: "goals",
            pattern: r"\b(goals?|progress|objectives?)\b",
        },
        IntentGroup {
            name: "system",
            pattern: concat!(
                r"\b(restart|crash(ed|es|ing)?|pm2|process(es)?|services?|status)\b",
                r"|\bis\b.{0,40}\b(running|down|up)\b",
            ),
        },
        IntentGroup {
            name: "feeds",
            pattern: concat!(
                r"\b(feeds?|news|unread|articles?|rss|digest|headlines?)\b",
                r"|\bmark\b.{0,40}\bread\b",
            ),
        },
        IntentGroup {
            name: "dailylog",
            pattern: concat!(
                r"\b(daily|dailey|dayly)[\s-]*log\b|\bjournal\b|\bdictat",
                r"|\blog\s+entry\b|\blog\s+something\b|\bto\s+my\s+log\b|\bread\s+(back\s+)?my\s+log\b",
            ),
        },
        IntentGroup {
            name: "calendar",
            pattern: concat!(
                r"\b(calendar|agenda|meetings?|appointments?|events?)\b",
                r"|\bwhat('?s|\s+is|\s+do\s+i\s+have)\b.{0,40}\b(today|next|coming\s+up|upcoming|scheduled|on\s+my\s+plate|schedule|calendar)\b",
                r"|\bwhat'?s\s+next\b",
            ),
        },
        IntentGroup {
            name: "weather",
            pattern: concat!(
                r"\b(weather|forecast|temperature|raining|snowing|sunny|cloudy)\b",
                r"|\bhow\s+(hot|cold|warm)\b|\bdegrees\s+out(side)?\b",
            ),
        },
        IntentGroup {
            name: "code",
            pattern: concat!(
                r"\b(dispatch|agents?|pr|pull\s+request|refactor)\b|\bfix\s+the\s+bug\b",
                r"|\bhow'?s\s+the\s+coding\s+(task|agent)\b|\bcoding\s+(task|agent)s?\b",
            ),
        },
        IntentGroup {
            name: "catalog",
            pattern: concat!(
                r"\b(catalog|ingredients?|cast|creative\s+library)\b",
                r"|\b(find|search|look\s*up|show\s+me|do\s+i\s+have|any)\b.{0,60}",
                r"\b(characters?|places?|objects?|scenes?|concepts?|ideas?|props?|settings?|locations?|factions?)\b",
            ),
        },
    ],
    // "fill|type|enter|put|write|set … within 60 chars … description|name|…":
    // the user is dictating into a form, not asking for a capture.
    form_fill: Some(concat!(
        r"\b(fill|type|enter|put|write|set)\b.{0,60}",
        r"\b(description|name|title|subject|body|content|field|input|textarea|form|label|placeholder|caption)\b",
    )),
};

/// Path prefixes that pass the gate without credentials: the guest routes
/// another PortOS calls when its presence visits this world (the peer does
/// not hold this instance's password). The routes themselves refuse unless
/// the owner accepts guests.
pub const ALWAYS_PUBLIC_PREFIXES: &[&str] = &["/api/eidoverse/travel/guest/"];

#[cfg(test)]
mod tests {
    use portos_core::catalog::IntentGroups;

    use super::*;

    fn groups(text: &str) -> Vec<&'static str> {
        let compiled = IntentGroups::new(&INTENTS).unwrap_or_default();
        compiled.filter(Some(text)).groups().to_vec()
    }

    #[test]
    fn every_pattern_compiles() {
        assert!(IntentGroups::new(&INTENTS).is_ok());
    }

    #[test]
    fn what_time_is_it_matches_no_group() {
        assert!(groups("what time is it").is_empty());
    }

    #[test]
    fn each_group_has_a_trigger() {
        let cases = [
            ("search my brain for tacos", "brain"),
            ("remind me to buy milk", "brain"),
            ("add eggs to my inbox", "brain"),
            ("I drank two beers", "meatspace"),
            ("went for a long run", "meatspace"),
            ("how is my goal progress", "goals"),
            ("is the api server running", "system"),
            ("any unread news", "feeds"),
            ("mark that article as read", "feeds"),
            ("read back my log", "dailylog"),
            ("add to my daily log", "dailylog"),
            ("what do I have on my plate today", "calendar"),
            ("what's next", "calendar"),
            ("is it raining", "weather"),
            ("how cold is it", "weather"),
            ("how's the coding task going", "code"),
            ("do I have any characters named Bo", "catalog"),
        ];
        for (text, group) in cases {
            assert!(
                groups(text).contains(&group),
                "{text:?} should switch on {group:?}, got {:?}",
                groups(text)
            );
        }
    }

    #[test]
    fn guest_routes_are_always_public() {
        let classifier = crate::builder(
            portos_server::Config::new("portos"),
            &crate::Options::default(),
        )
        .expect("the PortOS builder")
        .classifier();
        assert!(classifier.is_always_public("/api/eidoverse/travel/guest/visits"));
        assert!(classifier.is_always_public("/api/auth/login"));
        assert!(!classifier.is_always_public("/api/eidoverse/travel"));
        assert!(!classifier.is_always_public("/api/eidoverse/peers"));
    }
}
