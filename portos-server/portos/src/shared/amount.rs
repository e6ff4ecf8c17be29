//! Numbers in sentences a person hears (health logs, goal notes): at most
//! one decimal and no trailing `.0`.

/// A number as a person reads it: at most one decimal, no trailing `.0`.
pub fn amount(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::amount;

    #[test]
    fn amounts_read_naturally() {
        assert_eq!(amount(2.0), "2");
        assert_eq!(amount(1.25), "1.3");
        assert_eq!(amount(0.04), "0");
        assert_eq!(amount(176.37), "176.4");
    }
}
