//! The few places where one SQL text does not run on both engines, turned
//! into PostgreSQL's spelling: the statements' `?NNN` parameters, and the
//! migrations' SQLite column types. Everything else the project's SQL uses
//! is common to both (`ON CONFLICT … DO UPDATE`, `RETURNING`, `||`,
//! `coalesce`); the few SQLite functions it calls (`instr`, `portos_fold`,
//! `json_array_length` on text) are defined in PostgreSQL by [`PRELUDE`].

/// SQL functions PostgreSQL lacks under the names SQLite gives them, and
/// the project's own (`portos_*`, which SQLite gets from the store), made
/// (again) whenever a server migrates, so statements read the same on both.
pub(crate) const PRELUDE: &str = r#"
CREATE OR REPLACE FUNCTION portos_random_hex(bytes BIGINT) RETURNS TEXT
    LANGUAGE sql VOLATILE STRICT PARALLEL SAFE
    AS $$ SELECT string_agg(lpad(to_hex(floor(random() * 256)::INT), 2, '0'), '')
          FROM generate_series(1, bytes) $$;
CREATE OR REPLACE FUNCTION portos_utc_now() RETURNS TEXT
    LANGUAGE sql VOLATILE PARALLEL SAFE
    AS $$ SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') $$;
CREATE OR REPLACE FUNCTION instr(haystack TEXT, needle TEXT) RETURNS BIGINT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT strpos(haystack, needle)::BIGINT';
CREATE OR REPLACE FUNCTION portos_fold(value TEXT) RETURNS TEXT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT lower(value COLLATE "und-x-icu")';
CREATE OR REPLACE FUNCTION json_array_length(value TEXT) RETURNS BIGINT
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS 'SELECT json_array_length(value::json)::BIGINT';
"#;

/// The text outside quotes and comments, piece by piece: `visit` is called
/// with each stretch of code (never inside a literal, an identifier or a
/// comment); the rest is copied as is.
fn rewrite_code(sql: &str, mut visit: impl FnMut(&str, &mut String)) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let bytes = sql.as_bytes();
    let mut code_start = 0;
    let mut index = 0;
    while index < bytes.len() {
        let end = match bytes[index] {
            quote @ (b'\'' | b'"') => Some(closing_quote(bytes, index, quote)),
            b'-' if bytes.get(index + 1) == Some(&b'-') => Some(
                sql[index..]
                    .find('\n')
                    .map_or(bytes.len(), |offset| index + offset),
            ),
            b'/' if bytes.get(index + 1) == Some(&b'*') => Some(
                sql[index + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |offset| index + 2 + offset + 2),
            ),
            _ => None,
        };
        match end {
            Some(end) => {
                visit(&sql[code_start..index], &mut out);
                out.push_str(&sql[index..end]);
                index = end;
                code_start = end;
            }
            None => index += 1,
        }
    }
    visit(&sql[code_start..], &mut out);
    out
}

/// Where the quoted stretch that opens at `start` ends (a doubled quote
/// is one quote inside it).
fn closing_quote(bytes: &[u8], start: usize, quote: u8) -> usize {
    let mut index = start + 1;
    while index < bytes.len() {
        if bytes[index] == quote {
            if bytes.get(index + 1) == Some(&quote) {
                index += 2;
                continue;
            }
            return index + 1;
        }
        index += 1;
    }
    bytes.len()
}

/// `?NNN` and bare `?` parameters as PostgreSQL's `$NNN`. A bare `?` takes
/// the number after the largest one so far, as SQLite numbers it.
#[cfg(any(feature = "postgres", test))]
pub(crate) fn numbered_parameters(sql: &str) -> String {
    let mut largest = 0_u32;
    rewrite_code(sql, |code, out| {
        let mut chars = code.char_indices().peekable();
        while let Some((_, char)) = chars.next() {
            if char != '?' {
                out.push(char);
                continue;
            }
            let mut digits = String::new();
            while let Some((_, digit)) = chars.next_if(|(_, next)| next.is_ascii_digit()) {
                digits.push(digit);
            }
            let number = if digits.is_empty() {
                largest + 1
            } else {
                digits.parse().unwrap_or(u32::MAX)
            };
            largest = largest.max(number);
            out.push('$');
            out.push_str(&number.to_string());
        }
    })
}

const AUTOINCREMENT_KEY: &[&str] = &["PRIMARY", "KEY", "AUTOINCREMENT"];

/// A migration step written for SQLite, in PostgreSQL's types: whole
/// numbers are 64-bit (`BIGINT`, as SQLite's are), `REAL` is double
/// precision, `BLOB` is `BYTEA`, an `AUTOINCREMENT` key is an identity, and
/// text compares byte by byte (`COLLATE "C"`), as SQLite's does, so an
/// `ORDER BY` gives the same order on both engines. Every table gets a
/// `rowid` column too (an identity), since queries order by insertion with
/// it; tables whose key is an integer already have one in SQLite's eyes and
/// keep their own.
pub(crate) fn postgres_migration(sql: &str) -> String {
    // The last two tokens seen (a word upper-cased, or one punctuation
    // character): a type is the word after a column's name, and a column's
    // name comes after `(`, `,` or `ADD COLUMN`. So a column *named* `text`
    // keeps its name.
    let mut recent: [String; 2] = Default::default();
    let remember = |token: String, recent: &mut [String; 2]| {
        recent.swap(0, 1);
        recent[1] = token;
    };
    let typed = rewrite_code(sql, |code, out| {
        let mut words = Words::new(code);
        while let Some(piece) = words.next_piece() {
            match piece {
                Piece::Other(text) => {
                    out.push_str(text);
                    for char in text.chars().filter(|char| !char.is_whitespace()) {
                        remember(char.to_string(), &mut recent);
                    }
                }
                Piece::Word(word) => {
                    let upper = word.to_ascii_uppercase();
                    let is_type = !recent[1].starts_with(|char: char| char.is_ascii_punctuation())
                        && !recent[1].is_empty()
                        && matches!(recent[0].as_str(), "(" | "," | "COLUMN");
                    match upper.as_str() {
                        "INTEGER" if is_type && words.followed_by(AUTOINCREMENT_KEY) => {
                            words.skip_words(AUTOINCREMENT_KEY);
                            out.push_str("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY");
                        }
                        "INTEGER" if is_type => out.push_str("BIGINT"),
                        "REAL" if is_type => out.push_str("DOUBLE PRECISION"),
                        "BLOB" if is_type => out.push_str("BYTEA"),
                        "TEXT" if is_type => out.push_str("TEXT COLLATE \"C\""),
                        _ => out.push_str(word),
                    }
                    remember(upper, &mut recent);
                }
            }
        }
    });
    with_rowids(&typed)
}

/// Adds `rowid` to each `CREATE TABLE` that has no integer key of its own
/// (`CREATE TABLE … AS SELECT` has no column list, and is left as is).
fn with_rowids(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 64);
    let mut rest = sql;
    while let Some(at) = rest.to_ascii_uppercase().find("CREATE TABLE") {
        let Some(open) = rest[at..].find('(').map(|offset| at + offset) else {
            break;
        };
        out.push_str(&rest[..=open]);
        let head = rest[at..open].to_ascii_uppercase();
        let body = rest[open + 1..matching_paren(rest, open)].to_ascii_uppercase();
        if !head.contains(" AS ")
            && !body.contains("GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY")
            && !body.contains("BIGINT PRIMARY KEY")
        {
            out.push_str("\n    rowid BIGINT GENERATED BY DEFAULT AS IDENTITY,");
        }
        rest = &rest[open + 1..];
    }
    out.push_str(rest);
    out
}

fn matching_paren(sql: &str, open: usize) -> usize {
    let mut depth = 0_usize;
    for (offset, char) in sql[open..].char_indices() {
        match char {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return open + offset;
                }
            }
            _ => {}
        }
    }
    sql.len()
}

enum Piece<'a> {
    Word(&'a str),
    Other(&'a str),
}

/// Identifier-like words and what lies between them.
struct Words<'a> {
    code: &'a str,
    at: usize,
}

impl<'a> Words<'a> {
    fn new(code: &'a str) -> Words<'a> {
        Words { code, at: 0 }
    }

    fn next_piece(&mut self) -> Option<Piece<'a>> {
        let rest = &self.code[self.at..];
        let first = rest.chars().next()?;
        let is_word = |char: char| char.is_ascii_alphanumeric() || char == '_';
        let end = rest
            .char_indices()
            .find(|(_, char)| is_word(*char) != is_word(first))
            .map_or(rest.len(), |(index, _)| index);
        self.at += end;
        Some(if is_word(first) {
            Piece::Word(&rest[..end])
        } else {
            Piece::Other(&rest[..end])
        })
    }

    /// Whether the next words (spaces between them) are `expected`.
    fn followed_by(&self, expected: &[&str]) -> bool {
        self.after_words(expected).is_some()
    }

    /// Moves past the next words, which [`Words::followed_by`] checked.
    fn skip_words(&mut self, expected: &[&str]) {
        if let Some(end) = self.after_words(expected) {
            self.at = end;
        }
    }

    /// Where the words `expected` end, when they come next.
    fn after_words(&self, expected: &[&str]) -> Option<usize> {
        let mut at = self.at;
        for want in expected {
            let rest = &self.code[at..];
            let start = rest.len() - rest.trim_start().len();
            let word_end = rest[start..]
                .find(|char: char| !(char.is_ascii_alphanumeric() || char == '_'))
                .map_or(rest.len(), |offset| start + offset);
            if start == 0 || !rest[start..word_end].eq_ignore_ascii_case(want) {
                return None;
            }
            at += word_end;
        }
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_numbered_outside_literals_and_comments() {
        assert_eq!(
            numbered_parameters("SELECT a FROM t WHERE b = ?1 AND c = '?2' AND d = ?2 -- ?3\n"),
            "SELECT a FROM t WHERE b = $1 AND c = '?2' AND d = $2 -- ?3\n"
        );
        assert_eq!(
            numbered_parameters("VALUES (?, ?, ?5, ?)"),
            "VALUES ($1, $2, $5, $6)"
        );
        assert_eq!(
            numbered_parameters(r#"SELECT "a?" FROM t WHERE x = 'it''s ?' AND y = ?"#),
            r#"SELECT "a?" FROM t WHERE x = 'it''s ?' AND y = $1"#
        );
    }

    #[test]
    fn a_sqlite_table_reads_in_postgres_types_with_a_rowid() {
        let translated = postgres_migration(
            "CREATE TABLE IF NOT EXISTS t (
                id TEXT PRIMARY KEY,
                n INTEGER NOT NULL CHECK (n IN (1, 2)),
                r REAL, b BLOB,
                note TEXT DEFAULT 'INTEGER TEXT',
                text TEXT NOT NULL
            );
            ALTER TABLE t ADD COLUMN extra INTEGER;
            CREATE TABLE copied AS SELECT id FROM t;
            CREATE TABLE IF NOT EXISTS events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                body TEXT
            );
            CREATE TABLE later (name TEXT);",
        );
        assert!(translated.contains("rowid BIGINT GENERATED BY DEFAULT AS IDENTITY,"));
        assert!(translated.contains("id TEXT COLLATE \"C\" PRIMARY KEY"));
        assert!(translated.contains("n BIGINT NOT NULL"));
        assert!(translated.contains("r DOUBLE PRECISION, b BYTEA"));
        assert!(translated.contains("DEFAULT 'INTEGER TEXT'"));
        assert!(
            translated.contains("text TEXT COLLATE \"C\" NOT NULL"),
            "{translated}"
        );
        assert!(translated.contains("ADD COLUMN extra BIGINT"));
        assert!(translated.contains("seq BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"));
        assert!(
            translated.contains("later (\n    rowid BIGINT"),
            "{translated}"
        );
        assert_eq!(translated.matches("rowid").count(), 2, "{translated}");
    }
}
