//! Finding the goal, feed or article a person means from a few spoken words
//! (docs/reference.md#semantic-adapters rows 10, 11 and 14): the exact title
//! scores 100, a title containing the words (or contained in them) 80,
//! otherwise the share of the query's words of three or more letters found in
//! the title, times 60.

/// Below this a title is not considered a match: at least half of the
/// query's words must be in it.
pub const MIN_SCORE: f64 = 30.0;
const EXACT: f64 = 100.0;
const SUBSTRING: f64 = 80.0;
const TOKEN_WEIGHT: f64 = 60.0;
const MIN_TOKEN_CHARS: usize = 3;

/// How well `title` matches `query`, 0 to 100.
pub fn score(query: &str, title: &str) -> f64 {
    let query = normalize(query);
    let title = normalize(title);
    if query.is_empty() || title.is_empty() {
        return 0.0;
    }
    if query == title {
        return EXACT;
    }
    if title.contains(&query) || query.contains(&title) {
        return SUBSTRING;
    }
    let query_tokens = tokens(&query);
    if query_tokens.is_empty() {
        return 0.0;
    }
    let title_tokens = tokens(&title);
    // A word matches its own inflections in the title ("marathon" and
    // "marathons"), in either direction.
    let found = query_tokens
        .iter()
        .filter(|word| {
            title_tokens
                .iter()
                .any(|candidate| candidate.starts_with(*word) || word.starts_with(*candidate))
        })
        .count();
    found as f64 / query_tokens.len() as f64 * TOKEN_WEIGHT
}

/// The indices of `titles` that match `query`, best first; equal scores keep
/// the order of `titles` (the caller passes the most urgent first).
pub fn rank<'a>(query: &str, titles: impl IntoIterator<Item = &'a str>) -> Vec<(usize, f64)> {
    let mut ranked: Vec<(usize, f64)> = titles
        .into_iter()
        .enumerate()
        .map(|(index, title)| (index, score(query, title)))
        .filter(|(_, score)| *score >= MIN_SCORE)
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    ranked
}

/// The best-matching candidate (the first of equals, so callers order
/// candidates by preference), or none at or above [`MIN_SCORE`].
pub fn best<'a, T>(query: &str, candidates: &'a [T], title: impl Fn(&T) -> &str) -> Option<&'a T> {
    let (index, _) = *rank(query, candidates.iter().map(title)).first()?;
    candidates.get(index)
}

/// Lowercase, with runs of whitespace made one space.
fn normalize(text: &str) -> String {
    text.split_whitespace()
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The words of at least three letters (short words such as "a", "my",
/// "to" say nothing about which goal is meant).
fn tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= MIN_TOKEN_CHARS)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_titles_score_100_ignoring_case_and_spacing() {
        assert_eq!(score("Run a Marathon", "run a  marathon"), 100.0);
    }

    #[test]
    fn a_title_containing_the_query_scores_80() {
        assert_eq!(score("marathon", "Run a marathon in 2027"), 80.0);
        assert_eq!(score("my goal to learn rust please", "learn rust"), 80.0);
    }

    #[test]
    fn token_overlap_scores_its_share_of_60() {
        assert_eq!(score("marathon run", "Run a marathon"), 60.0);
        assert_eq!(score("spanish lessons daily", "Learn Spanish"), 20.0);
        assert_eq!(score("learning spanish", "Learn Spanish"), 60.0);
        // Words shorter than three letters do not count.
        assert_eq!(score("to go", "Go to Japan"), 0.0);
        assert_eq!(score("piano", "Learn Spanish"), 0.0);
    }

    #[test]
    fn rank_keeps_matches_best_first_and_ties_in_order() {
        let titles = ["Learn Spanish", "Run a marathon", "Run a half marathon"];
        let ranked = rank("marathon", titles);
        assert_eq!(ranked, vec![(1, 80.0), (2, 80.0)]);
        assert_eq!(rank("run a marathon", titles)[0], (1, 100.0));
        assert!(rank("piano", titles).is_empty());
    }

    #[test]
    fn feed_and_article_titles() {
        assert_eq!(score("Rust Blog", "rust blog"), 100.0);
        assert_eq!(score("rust", "The Rust Blog"), 80.0);
        assert_eq!(
            score("rust release notes", "Notes on the Rust release"),
            60.0
        );
        assert_eq!(score("rust compiler internals", "Rust news"), 20.0);
        assert_eq!(score("", "anything"), 0.0);
    }

    #[test]
    fn best_picks_the_best_or_none() {
        let titles = ["Weekly digest", "Rust 2.0 released", "Rust"];
        assert_eq!(best("rust", &titles, |t| t), Some(&"Rust"));
        assert_eq!(best("released", &titles, |t| t), Some(&"Rust 2.0 released"));
        assert_eq!(best("gardening", &titles, |t| t), None);
    }
}
