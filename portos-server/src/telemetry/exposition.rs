//! The Prometheus text exposition format (version 0.0.4), written by hand:
//! a family's `# HELP` and `# TYPE` lines, then its samples, label values
//! escaped. It is what every Prometheus server and most scrapers read.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use super::histogram::Histogram;

/// The `Content-Type` of [`Exposition`]'s text.
pub(crate) const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// What a family is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Histogram,
}

impl Kind {
    fn as_str(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Histogram => "histogram",
        }
    }
}

/// A label: its name and value. A label with an empty value is left out,
/// as Prometheus reads a missing label as an empty one.
pub(crate) type Label<'a> = (&'a str, &'a str);

/// The text of one scrape, written family by family.
#[derive(Debug, Default)]
pub struct Exposition {
    text: String,
}

impl Exposition {
    pub fn new() -> Exposition {
        Exposition::default()
    }

    /// Starts the family `name`; its samples follow, before any other
    /// family's. `name` must match `[a-zA-Z_:][a-zA-Z0-9_:]*` (a counter's
    /// ends in `_total`).
    pub fn family(&mut self, name: &str, kind: Kind, help: &str) {
        debug_assert!(is_metric_name(name), "metric name {name}");
        let _ = write!(self.text, "# HELP {name} ");
        for character in help.chars() {
            match character {
                '\\' => self.text.push_str("\\\\"),
                '\n' => self.text.push_str("\\n"),
                other => self.text.push(other),
            }
        }
        let _ = writeln!(self.text, "\n# TYPE {name} {}", kind.as_str());
    }

    /// One sample of a counter or gauge.
    pub fn sample(&mut self, name: &str, labels: &[Label<'_>], value: impl Value) {
        self.text.push_str(name);
        self.labels(labels, None);
        self.text.push(' ');
        value.write(&mut self.text);
        self.text.push('\n');
    }

    /// A counter family whose `label` takes each of a fixed set of values,
    /// every one written, zeros included (a rate over a series that only
    /// appears later would miss its start). An empty label name writes one
    /// series without labels.
    pub fn counters<'a>(
        &mut self,
        name: &str,
        help: &str,
        label: &str,
        values: impl IntoIterator<Item = (&'a str, &'a AtomicU64)>,
    ) {
        self.family(name, Kind::Counter, help);
        for (value, count) in values {
            let count = count.load(Ordering::Relaxed);
            if label.is_empty() {
                self.sample(name, &[], count);
            } else {
                self.sample(name, &[(label, value)], count);
            }
        }
    }

    /// One histogram series: its cumulative buckets, sum and count.
    pub fn histogram(&mut self, name: &str, labels: &[Label<'_>], histogram: &Histogram) {
        let snapshot = histogram.snapshot();
        let mut cumulative = 0;
        let mut bucket = String::new();
        for (bound, count) in histogram.bounds().iter().zip(&snapshot.counts) {
            cumulative += count;
            bucket.clear();
            let _ = write!(bucket, "{bound}");
            self.text.push_str(name);
            self.text.push_str("_bucket");
            self.labels(labels, Some(&bucket));
            let _ = writeln!(self.text, " {cumulative}");
        }
        self.text.push_str(name);
        self.text.push_str("_bucket");
        self.labels(labels, Some("+Inf"));
        let _ = writeln!(self.text, " {}", snapshot.count);
        self.text.push_str(name);
        self.text.push_str("_sum");
        self.labels(labels, None);
        let _ = writeln!(self.text, " {}", snapshot.sum);
        self.text.push_str(name);
        self.text.push_str("_count");
        self.labels(labels, None);
        let _ = writeln!(self.text, " {}", snapshot.count);
    }

    pub fn into_text(self) -> String {
        self.text
    }

    fn labels(&mut self, labels: &[Label<'_>], le: Option<&str>) {
        let mut present = labels
            .iter()
            .filter(|(_, value)| !value.is_empty())
            .copied()
            .chain(le.map(|le| ("le", le)))
            .peekable();
        if present.peek().is_none() {
            return;
        }
        self.text.push('{');
        for (index, (name, value)) in present.enumerate() {
            debug_assert!(is_label_name(name), "label name {name}");
            if index > 0 {
                self.text.push(',');
            }
            self.text.push_str(name);
            self.text.push_str("=\"");
            for character in value.chars() {
                match character {
                    '\\' => self.text.push_str("\\\\"),
                    '"' => self.text.push_str("\\\""),
                    '\n' => self.text.push_str("\\n"),
                    other => self.text.push(other),
                }
            }
            self.text.push('"');
        }
        self.text.push('}');
    }
}

/// A sample's value.
pub trait Value {
    fn write(self, text: &mut String);
}

impl Value for u64 {
    fn write(self, text: &mut String) {
        let _ = write!(text, "{self}");
    }
}

impl Value for usize {
    fn write(self, text: &mut String) {
        let _ = write!(text, "{self}");
    }
}

impl Value for i64 {
    fn write(self, text: &mut String) {
        let _ = write!(text, "{self}");
    }
}

impl Value for f64 {
    fn write(self, text: &mut String) {
        if self.is_nan() {
            text.push_str("NaN");
        } else if self.is_infinite() {
            text.push_str(if self > 0.0 { "+Inf" } else { "-Inf" });
        } else {
            let _ = write!(text, "{self}");
        }
    }
}

fn is_metric_name(name: &str) -> bool {
    let mut characters = name.chars();
    characters
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || first == ':')
        && characters.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn is_label_name(name: &str) -> bool {
    let mut characters = name.chars();
    characters
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && characters.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with("__")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::telemetry::histogram::{Histogram, SECONDS};

    #[test]
    fn a_family_is_its_help_its_type_and_its_samples_with_escaped_labels() {
        let mut out = Exposition::new();
        out.family("calls_total", Kind::Counter, "Calls, by \\ and\nline.");
        out.sample(
            "calls_total",
            &[("tool", "a\"b\\c\nd"), ("empty", "")],
            3u64,
        );
        out.sample("calls_total", &[], 0u64);
        assert_eq!(
            out.into_text(),
            "# HELP calls_total Calls, by \\\\ and\\nline.\n\
             # TYPE calls_total counter\n\
             calls_total{tool=\"a\\\"b\\\\c\\nd\"} 3\n\
             calls_total 0\n"
        );
    }

    #[test]
    fn counters_write_every_value_of_their_label_zeros_included() {
        let (sent, failed) = (AtomicU64::new(2), AtomicU64::new(0));
        let mut out = Exposition::new();
        out.counters(
            "sent_total",
            "Sent.",
            "outcome",
            [("sent", &sent), ("failed", &failed)],
        );
        out.counters("all_total", "All.", "", [("", &sent)]);
        assert_eq!(
            out.into_text(),
            "# HELP sent_total Sent.\n# TYPE sent_total counter\n\
             sent_total{outcome=\"sent\"} 2\nsent_total{outcome=\"failed\"} 0\n\
             # HELP all_total All.\n# TYPE all_total counter\nall_total 2\n"
        );
    }

    #[test]
    fn a_histogram_has_cumulative_buckets_an_inf_bucket_a_sum_and_a_count() {
        let histogram = Histogram::new(&[0.1, 1.0], SECONDS);
        histogram.observe(Duration::from_millis(50));
        histogram.observe(Duration::from_millis(500));
        histogram.observe(Duration::from_secs(3));
        let mut out = Exposition::new();
        out.histogram("d_seconds", &[("x", "y")], &histogram);
        assert_eq!(
            out.into_text(),
            "d_seconds_bucket{x=\"y\",le=\"0.1\"} 1\n\
             d_seconds_bucket{x=\"y\",le=\"1\"} 2\n\
             d_seconds_bucket{x=\"y\",le=\"+Inf\"} 3\n\
             d_seconds_sum{x=\"y\"} 3.55\n\
             d_seconds_count{x=\"y\"} 3\n"
        );
    }

    #[test]
    fn values_are_written_as_prometheus_reads_them() {
        let mut text = String::new();
        f64::INFINITY.write(&mut text);
        text.push(' ');
        f64::NAN.write(&mut text);
        text.push(' ');
        0.005f64.write(&mut text);
        assert_eq!(text, "+Inf NaN 0.005");
    }
}
