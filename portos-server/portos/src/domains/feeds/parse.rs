//! RSS, Atom (and JSON Feed) documents into the items we keep, with the
//! `feed-rs` parser.

/// One entry of a parsed feed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedItem {
    /// The entry's guid/id; without one, its link (or title): what makes a
    /// refresh recognise an item it already has.
    pub guid: String,
    pub title: String,
    pub link: Option<String>,
    /// When it was published (or last updated), if the feed says.
    pub published: Option<jiff::Timestamp>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedFeed {
    pub title: Option<String>,
    pub items: Vec<ParsedItem>,
}

/// Parses a feed document; the error says why it is not a feed.
pub fn parse(bytes: &[u8]) -> Result<ParsedFeed, String> {
    // feed-rs would invent a random id for an entry without guid or link,
    // which a refresh could not recognise: a stable one is derived instead.
    let parser = feed_rs::parser::Builder::new()
        .id_generator(|links, title, _uri| match links.first() {
            Some(link) => link.href.trim().to_owned(),
            None => format!(
                "title:{}",
                title.as_ref().map_or("", |text| text.content.trim())
            ),
        })
        .build();
    let feed = parser
        .parse(bytes)
        .map_err(|error| format!("not an RSS or Atom feed ({error})"))?;
    let items = feed
        .entries
        .into_iter()
        .map(|entry| {
            let link = entry
                .links
                .iter()
                .find(|link| link.rel.as_deref().is_none_or(|rel| rel == "alternate"))
                .or(entry.links.first())
                .map(|link| link.href.trim().to_owned());
            let title = entry
                .title
                .map(|text| collapse_whitespace(&text.content))
                .filter(|title| !title.is_empty())
                .or_else(|| link.clone())
                .unwrap_or_else(|| "(untitled)".to_owned());
            let published = entry
                .published
                .or(entry.updated)
                .and_then(|at| jiff::Timestamp::from_second(at.timestamp()).ok());
            let guid = if entry.id.trim().is_empty() {
                link.clone().unwrap_or_else(|| format!("title:{title}"))
            } else {
                entry.id.trim().to_owned()
            };
            ParsedItem {
                guid,
                title,
                link,
                published,
            }
        })
        .collect();
    Ok(ParsedFeed {
        title: feed
            .title
            .map(|text| collapse_whitespace(&text.content))
            .filter(|title| !title.is_empty()),
        items,
    })
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn reads_rss_and_atom() {
        let rss = br#"<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>
            <item><title>One</title><link>https://example.org/1</link><guid>g-1</guid>
            <pubDate>Tue, 01 Dec 2026 10:00:00 GMT</pubDate></item>
            <item><title>Two</title><link>https://example.org/2</link></item>
            </channel></rss>"#;
        let feed = parse(rss).expect("rss");
        assert_eq!(feed.title.as_deref(), Some("News"));
        assert_eq!(feed.items.len(), 2);
        assert_eq!(feed.items[0].guid, "g-1");
        assert_eq!(
            feed.items[0].published.map(|at| at.to_string()),
            Some("2026-12-01T10:00:00Z".to_owned())
        );
        // No guid: the link identifies it, the same on every parse.
        assert_eq!(feed.items[1].guid, "https://example.org/2");

        let atom = br#"<?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:b</id>
            <updated>2026-12-02T08:00:00Z</updated>
            <entry><title>Hello</title><id>urn:e1</id><updated>2026-12-02T08:00:00Z</updated>
            <link href="https://example.org/hello"/></entry></feed>"#;
        let feed = parse(atom).expect("atom");
        assert_eq!(feed.title.as_deref(), Some("Blog"));
        assert_eq!(feed.items[0].guid, "urn:e1");
        assert_eq!(
            feed.items[0].link.as_deref(),
            Some("https://example.org/hello")
        );
    }

    #[test]
    fn refuses_what_is_not_a_feed() {
        assert!(parse(b"<html><body>hi</body></html>").is_err());
        assert!(parse(b"not xml at all").is_err());
    }
}
