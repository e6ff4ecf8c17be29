//! A histogram family whose labels take only values known in advance: one
//! cell per combination, made on its first observation, found by index
//! without hashing or locking. The part of the server that observes owns
//! the label values (the MCP transport its methods and revisions); the
//! family only counts and writes them.

use std::sync::OnceLock;
use std::time::Duration;

use super::exposition::{Exposition, Kind};
use super::histogram::{Histogram, SECONDS};

/// One label and every value it may take.
#[derive(Debug)]
pub(crate) struct Dimension {
    pub label: &'static str,
    pub values: &'static [&'static str],
}

/// A family of duration histograms over [`Dimension`]s.
#[derive(Debug)]
pub(crate) struct HistogramGrid {
    name: &'static str,
    help: &'static str,
    bounds: &'static [f64],
    dimensions: &'static [Dimension],
    cells: Box<[OnceLock<Histogram>]>,
}

impl HistogramGrid {
    /// The family `name` (with its `help`), bounds in seconds.
    pub(crate) fn new(
        name: &'static str,
        help: &'static str,
        bounds: &'static [f64],
        dimensions: &'static [Dimension],
    ) -> HistogramGrid {
        let cells = dimensions
            .iter()
            .map(|dimension| dimension.values.len())
            .product::<usize>();
        HistogramGrid {
            name,
            help,
            bounds,
            dimensions,
            cells: (0..cells).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Counts `elapsed` for the values at `at` (one index per dimension,
    /// in order); an index out of its dimension counts as its last value.
    pub(crate) fn observe(&self, at: &[usize], elapsed: Duration) {
        let index = self
            .dimensions
            .iter()
            .zip(at)
            .fold(0, |index, (dimension, &value)| {
                let count = dimension.values.len();
                index * count + value.min(count - 1)
            });
        self.cells[index]
            .get_or_init(|| Histogram::new(self.bounds, SECONDS))
            .observe(elapsed);
    }

    /// The family, with the combinations observed so far.
    pub(crate) fn write(&self, out: &mut Exposition) {
        out.family(self.name, Kind::Histogram, self.help);
        let mut labels = Vec::with_capacity(self.dimensions.len());
        for (index, cell) in self.cells.iter().enumerate() {
            let Some(histogram) = cell.get() else {
                continue;
            };
            labels.clear();
            let mut rest = index;
            for dimension in self.dimensions.iter().rev() {
                let count = dimension.values.len();
                labels.push((dimension.label, dimension.values[rest % count]));
                rest /= count;
            }
            labels.reverse();
            out.histogram(self.name, &labels, histogram);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIMENSIONS: &[Dimension] = &[
        Dimension {
            label: "method",
            values: &["a", "b", "_OTHER"],
        },
        Dimension {
            label: "error",
            values: &["", "x"],
        },
    ];

    #[test]
    fn each_combination_is_written_with_its_own_labels_and_only_once_observed() {
        let grid = HistogramGrid::new("op_seconds", "Ops.", &[1.0], DIMENSIONS);
        grid.observe(&[1, 1], Duration::from_millis(5));
        grid.observe(&[9, 0], Duration::from_secs(2));
        let mut out = Exposition::new();
        grid.write(&mut out);
        let text = out.into_text();
        assert!(
            text.contains(r#"op_seconds_count{method="b",error="x"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(r#"op_seconds_count{method="_OTHER"} 1"#),
            "{text}"
        );
        assert!(!text.contains(r#"method="a""#), "{text}");
    }
}
