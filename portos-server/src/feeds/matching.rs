//! Fuzzy title matching for spoken references ("mark the rust article read"):
//! an exact title scores 100, a title containing the query 80, otherwise the
//! share of the query's words (3+ characters) found in the title × 60.

/// Below this, a candidate is not a match (fewer than half the words found).
const MIN_SCORE: u32 = 30;

/// How well `title` matches `query`, 0..=100.
pub fn score(query: &str, title: &str) -> u32 {
    let query = query.trim().to_lowercase();
    let title = title.trim().to_lowercase();
    if query.is_empty() {
        return 0;
    }
    if query == title {
        return 100;
    }
    if title.contains(&query) {
        return 80;
    }
    let title_words: Vec<&str> = words(&title).collect();
    let query_words: Vec<&str> = words(&query)
        .filter(|word| word.chars().count() >= 3)
        .collect();
    if query_words.is_empty() {
        return 0;
    }
    let found = query_words
        .iter()
        .filter(|word| title_words.contains(word))
        .count();
    // At most 60, so the cast cannot truncate.
    (found * 60 / query_words.len()) as u32
}

/// The best-scoring candidate at or above the threshold (the first on ties,
/// so callers order candidates by preference).
pub fn best<'a, T>(query: &str, candidates: &'a [T], title: impl Fn(&T) -> &str) -> Option<&'a T> {
    let mut best: Option<(&T, u32)> = None;
    for candidate in candidates {
        let score = score(query, title(candidate));
        if score >= MIN_SCORE && best.is_none_or(|(_, top)| score > top) {
            best = Some((candidate, score));
        }
    }
    best.map(|(candidate, _)| candidate)
}

fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{best, score};

    #[test]
    fn scores() {
        assert_eq!(score("Rust Blog", "rust blog"), 100);
        assert_eq!(score("rust", "The Rust Blog"), 80);
        assert_eq!(score("rust release notes", "Notes on the Rust release"), 60);
        assert_eq!(score("rust compiler internals", "Rust news"), 20);
        assert_eq!(score("", "anything"), 0);
    }

    #[test]
    fn picks_the_best_or_none() {
        let titles = ["Weekly digest", "Rust 2.0 released", "Rust"];
        assert_eq!(best("rust", &titles, |t| t), Some(&"Rust"));
        assert_eq!(best("released", &titles, |t| t), Some(&"Rust 2.0 released"));
        assert_eq!(best("gardening", &titles, |t| t), None);
    }
}
