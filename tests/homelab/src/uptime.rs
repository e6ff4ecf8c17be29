//! This machine's uptime, from the Linux kernel's `/proc/uptime`.

use std::path::Path;

/// Where Linux reports the seconds since boot.
pub const PROC_UPTIME: &str = "/proc/uptime";

/// The whole seconds since boot in the text of `/proc/uptime`
/// (`"<seconds since boot> <idle seconds of all CPUs>"`).
pub fn parse(text: &str) -> Result<u64, String> {
    let first = text
        .split_whitespace()
        .next()
        .ok_or_else(|| "empty uptime file".to_owned())?;
    let seconds: f64 = first
        .parse()
        .map_err(|_| format!("unreadable uptime `{first}`"))?;
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("unreadable uptime `{first}`"));
    }
    // Whole seconds: the fraction is below what anyone asks an uptime for.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(seconds.floor() as u64)
}

/// Reads and parses `path` (normally [`PROC_UPTIME`]).
pub fn read(path: &Path) -> Result<u64, String> {
    let text = std::fs::read_to_string(path).map_err(|error| {
        format!(
            "cannot read {} (uptime is read from Linux's procfs): {error}",
            path.display()
        )
    })?;
    parse(&text)
}

/// `3 days, 4 hours, 5 minutes`: the largest three units that are not zero.
pub fn human(seconds: u64) -> String {
    let units = [
        (seconds / 86_400, "day"),
        (seconds % 86_400 / 3_600, "hour"),
        (seconds % 3_600 / 60, "minute"),
        (seconds % 60, "second"),
    ];
    let parts: Vec<String> = units
        .iter()
        .skip_while(|(count, _)| *count == 0)
        .filter(|(count, _)| *count > 0)
        .take(3)
        .map(|(count, unit)| {
            let plural = if *count == 1 { "" } else { "s" };
            format!("{count} {unit}{plural}")
        })
        .collect();
    if parts.is_empty() {
        "0 seconds".to_owned()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_first_field_in_whole_seconds() {
        assert_eq!(parse("350735.47 234388.90\n"), Ok(350_735));
        assert_eq!(parse("0.99 0.10"), Ok(0));
        assert!(parse("").is_err());
        assert!(parse("soon 1.0").is_err());
        assert!(parse("-1.0 1.0").is_err());
    }

    #[test]
    fn human_uptime_names_the_largest_units() {
        assert_eq!(human(0), "0 seconds");
        assert_eq!(human(61), "1 minute, 1 second");
        assert_eq!(
            human(3 * 86_400 + 4 * 3_600 + 5 * 60 + 6),
            "3 days, 4 hours, 5 minutes"
        );
        assert_eq!(human(86_400 + 59), "1 day, 59 seconds");
    }
}
