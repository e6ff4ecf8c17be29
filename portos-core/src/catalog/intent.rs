//! The intent filter (BEHAVIOUR §2.6). It only narrows which voice-derived
//! tools are advertised; it never authorizes a call, and `resolve` ignores it.

use std::sync::LazyLock;

use regex::{Regex, RegexBuilder};
use serde::Serialize;

use crate::descriptor::IntentRule;

/// The voice tool groups an intent can switch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IntentGroup {
    Brain,
    Meatspace,
    Goals,
    System,
    Feeds,
    Dailylog,
    Calendar,
    Weather,
    Code,
    Catalog,
}

impl IntentGroup {
    pub const ALL: [IntentGroup; 10] = [
        IntentGroup::Brain,
        IntentGroup::Meatspace,
        IntentGroup::Goals,
        IntentGroup::System,
        IntentGroup::Feeds,
        IntentGroup::Dailylog,
        IntentGroup::Calendar,
        IntentGroup::Weather,
        IntentGroup::Code,
        IntentGroup::Catalog,
    ];

    /// Case-insensitive pattern whose match switches the group on.
    fn pattern(self) -> &'static str {
        match self {
            IntentGroup::Brain => concat!(
                r"\b(search|find|look\s*up|recall|brain|inbox|capture|remember|remind\s+me|jot)\b",
                r"|\bwhat\s+did\s+i\s+(say|write|note)\b",
                r"|\bnote\s+(that|to|down)\b",
                r"|\bsave\s+(this|that)\b",
                r"|\bfile\s+(this|that|it)\b",
                r"|\badd\b.{0,60}\bto\s+my\s+(brain|inbox|notes)\b",
            ),
            IntentGroup::Meatspace => concat!(
                r"\b(drinks?|drank|beers?|wines?|whiske?y|shots?|cocktails?|cigarettes?|vapes?|vaping|pouch(es)?",
                r"|nicotine|weigh(s|ed|t)?|pounds?|kilos?|kg|smok(e|ed|ing)|workouts?|exercis(e|ed|ing)|jog(ged|ging)?",
                r"|yoga|lift(ed|ing)?|cardio|gym|cycling|swim(ming)?)\b",
                r"|\bhow\s+am\s+i\b|\bsummary\s+today\b",
                r"|\blog\s+(a|my)\s+(drink|weight|nicotine|workout|run|exercise)\b",
                r"|\bwent\s+for\s+an?\b.{0,30}\brun\b",
                r"|\bran\s+(\d|a\s+mile|a\s+few|an?\s+\w+\s*k\b|around|for|to|along|through)",
            ),
            IntentGroup::Goals => r"\b(goals?|progress|objectives?)\b",
            IntentGroup::System => concat!(
                r"\b(restart|crash(ed|es|ing)?|pm2|process(es)?|services?|status)\b",
                r"|\bis\b.{0,40}\b(running|down|up)\b",
            ),
            IntentGroup::Feeds => concat!(
                r"\b(feeds?|news|unread|articles?|rss|digest|headlines?)\b",
                r"|\bmark\b.{0,40}\bread\b",
            ),
            IntentGroup::Dailylog => concat!(
                r"\b(daily|dailey|dayly)[\s-]*log\b|\bjournal\b|\bdictat",
                r"|\blog\s+entry\b|\blog\s+something\b|\bto\s+my\s+log\b|\bread\s+(back\s+)?my\s+log\b",
            ),
            IntentGroup::Calendar => concat!(
                r"\b(calendar|agenda|meetings?|appointments?|events?)\b",
                r"|\bwhat('?s|\s+is|\s+do\s+i\s+have)\b.{0,40}\b(today|next|coming\s+up|upcoming|scheduled|on\s+my\s+plate|schedule|calendar)\b",
                r"|\bwhat'?s\s+next\b",
            ),
            IntentGroup::Weather => concat!(
                r"\b(weather|forecast|temperature|raining|snowing|sunny|cloudy)\b",
                r"|\bhow\s+(hot|cold|warm)\b|\bdegrees\s+out(side)?\b",
            ),
            IntentGroup::Code => concat!(
                r"\b(dispatch|agents?|pr|pull\s+request|refactor)\b|\bfix\s+the\s+bug\b",
                r"|\bhow'?s\s+the\s+coding\s+(task|agent)\b|\bcoding\s+(task|agent)s?\b",
            ),
            IntentGroup::Catalog => concat!(
                r"\b(catalog|ingredients?|cast|creative\s+library)\b",
                r"|\b(find|search|look\s*up|show\s+me|do\s+i\s+have|any)\b.{0,60}",
                r"\b(characters?|places?|objects?|scenes?|concepts?|ideas?|props?|settings?|locations?|factions?)\b",
            ),
        }
    }
}

/// "fill|type|enter|put|write|set … within 60 chars … description|name|…":
/// the user is dictating into a form, not asking for a capture.
const FORM_FILL_PATTERN: &str = concat!(
    r"\b(fill|type|enter|put|write|set)\b.{0,60}",
    r"\b(description|name|title|subject|body|content|field|input|textarea|form|label|placeholder|caption)\b",
);

fn build(pattern: &str) -> Regex {
    RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .unwrap_or_else(|error| unreachable!("static intent pattern must compile: {error}"))
}

static GROUP_PATTERNS: LazyLock<Vec<(IntentGroup, Regex)>> = LazyLock::new(|| {
    IntentGroup::ALL
        .into_iter()
        .map(|group| (group, build(group.pattern())))
        .collect()
});

static FORM_FILL: LazyLock<Regex> = LazyLock::new(|| build(FORM_FILL_PATTERN));

/// An intent, evaluated once per catalog read.
#[derive(Clone, Debug, Default)]
pub struct IntentFilter {
    /// `None` when there is no (non-blank) intent: nothing is filtered.
    active: Option<ActiveIntent>,
}

#[derive(Clone, Debug)]
struct ActiveIntent {
    groups: Vec<IntentGroup>,
    form_fill: bool,
}

impl IntentFilter {
    pub fn new(intent: Option<&str>) -> IntentFilter {
        let Some(text) = intent.map(str::trim).filter(|t| !t.is_empty()) else {
            return IntentFilter::default();
        };
        let groups = GROUP_PATTERNS
            .iter()
            .filter(|(_, regex)| regex.is_match(text))
            .map(|(group, _)| *group)
            .collect();
        IntentFilter {
            active: Some(ActiveIntent {
                groups,
                form_fill: FORM_FILL.is_match(text),
            }),
        }
    }

    pub fn allows(&self, rule: &IntentRule) -> bool {
        let Some(active) = &self.active else {
            return true;
        };
        if rule.suppress_on_form_fill && active.form_fill {
            return false;
        }
        match rule.group {
            Some(group) => active.groups.contains(&group),
            None => true,
        }
    }

    /// The groups the intent switched on (for diagnostics and tests).
    pub fn groups(&self) -> &[IntentGroup] {
        self.active.as_ref().map_or(&[], |a| &a.groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(text: &str) -> Vec<IntentGroup> {
        IntentFilter::new(Some(text)).groups().to_vec()
    }

    #[test]
    fn what_time_is_it_matches_no_group() {
        assert!(groups("what time is it").is_empty());
    }

    #[test]
    fn each_group_has_a_trigger() {
        use IntentGroup::*;
        let cases = [
            ("search my brain for tacos", Brain),
            ("remind me to buy milk", Brain),
            ("add eggs to my inbox", Brain),
            ("I drank two beers", Meatspace),
            ("went for a long run", Meatspace),
            ("how is my goal progress", Goals),
            ("is the api server running", System),
            ("any unread news", Feeds),
            ("mark that article as read", Feeds),
            ("read back my log", Dailylog),
            ("add to my daily log", Dailylog),
            ("what do I have on my plate today", Calendar),
            ("what's next", Calendar),
            ("is it raining", Weather),
            ("how cold is it", Weather),
            ("how's the coding task going", Code),
            ("do I have any characters named Bo", Catalog),
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
    fn blank_intent_filters_nothing() {
        let rule = IntentRule {
            group: Some(IntentGroup::Brain),
            suppress_on_form_fill: true,
        };
        assert!(IntentFilter::new(None).allows(&rule));
        assert!(IntentFilter::new(Some("   ")).allows(&rule));
    }

    #[test]
    fn form_fill_suppresses_even_ungrouped_tools() {
        let journal = IntentRule {
            group: None,
            suppress_on_form_fill: true,
        };
        let time = IntentRule::default();
        let filter = IntentFilter::new(Some("type my name into the title field"));
        assert!(!filter.allows(&journal));
        assert!(filter.allows(&time));
        assert!(IntentFilter::new(Some("what time is it")).allows(&journal));
    }
}
