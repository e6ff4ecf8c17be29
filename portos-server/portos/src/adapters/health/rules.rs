//! What logging a health entry means, shared by the tools and the REST
//! routes: presets, range checks, unit conversion, and the day's totals.
//! Bad input is refused here, before anything is stored.

use super::{LogDrinkArgs, LogNicotineArgs, LogWeightArgs, LogWorkoutArgs, WeightUnit};
use crate::clock::UserClock;
use crate::shared::local_date;
use crate::store::health::{self, Drink, Nicotine, Weight, Workout};
use crate::store::{Store, StoreError};

/// One US standard drink is 0.6 fl oz of pure alcohol.
const OZ_ALCOHOL_PER_STANDARD_DRINK: f64 = 0.6;
const POUNDS_PER_KILOGRAM: f64 = 2.204_622_621_8;
const MAX_POUNDS: f64 = 800.0;
const MAX_DRINKS: f64 = 50.0;
const MAX_OZ: f64 = 128.0;
const MAX_NICOTINE_UNITS: f64 = 100.0;
const MAX_MG_PER_UNIT: f64 = 200.0;
const MAX_WORKOUT_MINUTES: f64 = 1440.0;
/// The averages `health.today` compares today with cover the days before it.
const AVERAGE_DAYS: i64 = 7;

/// Drink presets by a word in the name, in this order: (word, oz, abv %).
const DRINK_PRESETS: [(&str, f64, f64); 5] = [
    ("beer", 12.0, 5.0),
    ("wine", 5.0, 13.0),
    ("whiskey", 1.5, 40.0),
    ("shot", 1.5, 40.0),
    ("cocktail", 3.0, 20.0),
];
/// Nicotine presets by a word in the product: (word, mg per unit).
const NICOTINE_PRESETS: [(&str, f64); 3] = [("cigarette", 1.0), ("vape", 1.0), ("pouch", 6.0)];

/// Why an entry was not logged.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// The input does not fit; the message says what to change.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A logged entry and the user-local day's running total it belongs to.
#[derive(Debug)]
pub struct Logged<T> {
    pub entry: T,
    pub day_total: f64,
}

/// The (oz, abv) preset of a drink name; beer when no word matches.
pub fn drink_preset(name: &str) -> (f64, f64) {
    let name = name.to_lowercase();
    DRINK_PRESETS
        .iter()
        .find(|(word, _, _)| name.contains(word))
        .map_or((DRINK_PRESETS[0].1, DRINK_PRESETS[0].2), |(_, oz, abv)| {
            (*oz, *abv)
        })
}

/// The mg-per-unit preset of a nicotine product; a cigarette when no word matches.
pub fn nicotine_preset(product: &str) -> f64 {
    let product = product.to_lowercase();
    NICOTINE_PRESETS
        .iter()
        .find(|(word, _)| product.contains(word))
        .map_or(NICOTINE_PRESETS[0].1, |(_, mg)| *mg)
}

pub fn standard_drinks(count: f64, oz: f64, abv: f64) -> f64 {
    count * oz * abv / 100.0 / OZ_ALCOHOL_PER_STANDARD_DRINK
}

/// Logs a drink today and answers it with the day's standard drinks.
pub async fn log_drink(
    store: &Store,
    clock: &UserClock,
    args: &LogDrinkArgs,
) -> Result<Logged<Drink>, LogError> {
    let name = non_empty("name", &args.name)?;
    let count = args.count.unwrap_or(1.0);
    positive_at_most("count", count, MAX_DRINKS)?;
    let (preset_oz, preset_abv) = drink_preset(&name);
    let oz = args.oz.unwrap_or(preset_oz);
    positive_at_most("oz", oz, MAX_OZ)?;
    let abv = args.abv.unwrap_or(preset_abv);
    between("abv", abv, 0.0, 100.0)?;
    let drink = Drink {
        id: new_id(),
        date: local_date::today(clock).to_string(),
        logged_at: jiff::Timestamp::now().to_string(),
        name,
        count,
        oz,
        abv,
        standard_drinks: standard_drinks(count, oz, abv),
    };
    Ok(store
        .run(move |connection| {
            health::insert_drink(connection, &drink)?;
            let day_total = health::standard_drinks_between(connection, &drink.date, &drink.date)?;
            Ok(Logged {
                entry: drink,
                day_total,
            })
        })
        .await?)
}

/// Logs nicotine today and answers it with the day's milligrams.
pub async fn log_nicotine(
    store: &Store,
    clock: &UserClock,
    args: &LogNicotineArgs,
) -> Result<Logged<Nicotine>, LogError> {
    let product = non_empty("product", &args.product)?;
    let count = args.count.unwrap_or(1.0);
    positive_at_most("count", count, MAX_NICOTINE_UNITS)?;
    let mg_per_unit = args
        .mg_per_unit
        .unwrap_or_else(|| nicotine_preset(&product));
    between("mgPerUnit", mg_per_unit, 0.0, MAX_MG_PER_UNIT)?;
    let entry = Nicotine {
        id: new_id(),
        date: local_date::today(clock).to_string(),
        logged_at: jiff::Timestamp::now().to_string(),
        product,
        count,
        mg_per_unit,
        total_mg: count * mg_per_unit,
    };
    Ok(store
        .run(move |connection| {
            health::insert_nicotine(connection, &entry)?;
            let day_total = health::nicotine_mg_between(connection, &entry.date, &entry.date)?;
            Ok(Logged { entry, day_total })
        })
        .await?)
}

/// Logs a weight (kept in pounds) on the given or today's date.
pub async fn log_weight(
    store: &Store,
    clock: &UserClock,
    args: &LogWeightArgs,
) -> Result<Weight, LogError> {
    let unit = args.unit.unwrap_or(WeightUnit::Lb);
    if !args.weight.is_finite() || args.weight <= 0.0 {
        return Err(invalid(format!(
            "weight must be more than 0 (got {})",
            amount(args.weight)
        )));
    }
    let pounds = match unit {
        WeightUnit::Lb => args.weight,
        WeightUnit::Kg => args.weight * POUNDS_PER_KILOGRAM,
    };
    if pounds > MAX_POUNDS {
        return Err(invalid(format!(
            "weight must be at most {MAX_POUNDS} lb (got {} lb): check the number and the unit",
            amount(pounds)
        )));
    }
    let date = local_date::date_or_today(clock, args.date.as_deref()).map_err(LogError::Invalid)?;
    let entry = Weight {
        id: new_id(),
        date: date.to_string(),
        logged_at: jiff::Timestamp::now().to_string(),
        pounds,
        entered_value: args.weight,
        entered_unit: unit.as_str().to_owned(),
    };
    Ok(store
        .run(move |connection| {
            health::insert_weight(connection, &entry)?;
            Ok(entry)
        })
        .await?)
}

/// Logs a workout on the given or today's date.
pub async fn log_workout(
    store: &Store,
    clock: &UserClock,
    args: &LogWorkoutArgs,
) -> Result<Workout, LogError> {
    let kind = non_empty("type", &args.kind)?;
    if let Some(minutes) = args.duration_minutes {
        positive_at_most("durationMinutes", minutes, MAX_WORKOUT_MINUTES)?;
    }
    let date = local_date::date_or_today(clock, args.date.as_deref()).map_err(LogError::Invalid)?;
    let notes = args
        .notes
        .as_deref()
        .map(str::trim)
        .filter(|notes| !notes.is_empty())
        .map(str::to_owned);
    let entry = Workout {
        id: new_id(),
        date: date.to_string(),
        logged_at: jiff::Timestamp::now().to_string(),
        kind,
        duration_minutes: args.duration_minutes,
        intensity: args.intensity.map(|i| i.as_str().to_owned()),
        notes,
    };
    Ok(store
        .run(move |connection| {
            health::insert_workout(connection, &entry)?;
            Ok(entry)
        })
        .await?)
}

/// Today's alcohol and nicotine next to the daily averages of the 7 days before.
#[derive(Clone, Debug)]
pub struct Today {
    pub date: String,
    pub standard_drinks: f64,
    pub average_standard_drinks: f64,
    pub nicotine_mg: f64,
    pub average_nicotine_mg: f64,
}

pub async fn today(store: &Store, clock: &UserClock) -> Result<Today, StoreError> {
    let today = local_date::today(clock);
    let first = today
        .checked_sub(jiff::Span::new().days(AVERAGE_DAYS))
        .unwrap_or(today);
    let last = today.yesterday().unwrap_or(today);
    let (today, first, last) = (today.to_string(), first.to_string(), last.to_string());
    store
        .run(move |connection| {
            let days = AVERAGE_DAYS as f64;
            Ok(Today {
                standard_drinks: health::standard_drinks_between(connection, &today, &today)?,
                average_standard_drinks: health::standard_drinks_between(
                    connection, &first, &last,
                )? / days,
                nicotine_mg: health::nicotine_mg_between(connection, &today, &today)?,
                average_nicotine_mg: health::nicotine_mg_between(connection, &first, &last)? / days,
                date: today,
            })
        })
        .await
}

/// A number as a person reads it: at most one decimal, no trailing `.0`.
pub fn amount(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

fn invalid(message: String) -> LogError {
    LogError::Invalid(message)
}

fn non_empty(field: &str, text: &str) -> Result<String, LogError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(invalid(format!("{field} must not be empty")));
    }
    Ok(text.to_owned())
}

/// `0 < value ≤ max`.
fn positive_at_most(field: &str, value: f64, max: f64) -> Result<(), LogError> {
    if value.is_finite() && value > 0.0 && value <= max {
        Ok(())
    } else {
        Err(invalid(format!(
            "{field} must be more than 0 and at most {} (got {})",
            amount(max),
            amount(value)
        )))
    }
}

/// `min ≤ value ≤ max`.
fn between(field: &str, value: f64, min: f64, max: f64) -> Result<(), LogError> {
    if value.is_finite() && (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(invalid(format!(
            "{field} must be between {} and {} (got {})",
            amount(min),
            amount(max),
            amount(value)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_a_word_in_the_name_and_default_to_beer() {
        assert_eq!(drink_preset("Glass of Red Wine"), (5.0, 13.0));
        assert_eq!(drink_preset("whiskey sour"), (1.5, 40.0));
        assert_eq!(drink_preset("tequila shot"), (1.5, 40.0));
        assert_eq!(drink_preset("cocktail"), (3.0, 20.0));
        assert_eq!(drink_preset("IPA"), (12.0, 5.0));
        assert_eq!(nicotine_preset("Zyn pouch"), 6.0);
        assert_eq!(nicotine_preset("vape hit"), 1.0);
        assert_eq!(nicotine_preset("cigar"), 1.0);
    }

    #[test]
    fn a_beer_is_one_standard_drink() {
        assert!((standard_drinks(1.0, 12.0, 5.0) - 1.0).abs() < 1e-9);
        assert!((standard_drinks(2.0, 5.0, 13.0) - 2.1667).abs() < 1e-3);
    }

    #[test]
    fn amounts_read_naturally() {
        assert_eq!(amount(2.0), "2");
        assert_eq!(amount(1.25), "1.3");
        assert_eq!(amount(0.04), "0");
        assert_eq!(amount(176.37), "176.4");
    }
}
