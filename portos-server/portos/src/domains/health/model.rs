//! What the health logs hold (drinks, nicotine, weights, workouts, each
//! dated by the user's local day) and the rules of logging them: presets,
//! ranges, unit conversion. Bad input is refused here, before anything is
//! stored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shared::amount::amount;

/// One US standard drink is 0.6 fl oz of pure alcohol.
const OZ_ALCOHOL_PER_STANDARD_DRINK: f64 = 0.6;
const POUNDS_PER_KILOGRAM: f64 = 2.204_622_621_8;
const MAX_POUNDS: f64 = 800.0;
pub const MAX_DRINKS: f64 = 50.0;
pub const MAX_OZ: f64 = 128.0;
pub const MAX_NICOTINE_UNITS: f64 = 100.0;
pub const MAX_MG_PER_UNIT: f64 = 200.0;
pub const MAX_WORKOUT_MINUTES: f64 = 1440.0;
/// The averages `health.today` compares today with cover the days before it.
pub const AVERAGE_DAYS: i64 = 7;

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

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogDrinkArgs {
    /// What was drunk, e.g. "beer", "glass of wine", "whiskey". Sets the
    /// serving size and strength unless `oz` / `abv` are given.
    pub name: String,
    /// How many (more than 0, at most 50; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<f64>,
    /// Fluid ounces per drink (more than 0, at most 128).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oz: Option<f64>,
    /// Alcohol by volume in percent (0 to 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abv: Option<f64>,
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogNicotineArgs {
    /// What was used, e.g. "cigarette", "vape", "pouch". Sets the
    /// milligrams per unit unless `mgPerUnit` is given.
    pub product: String,
    /// How many units (more than 0, at most 100; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<f64>,
    /// Milligrams of nicotine per unit (0 to 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mg_per_unit: Option<f64>,
}

/// The unit a weight is given in.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WeightUnit {
    Lb,
    Kg,
}

impl WeightUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            WeightUnit::Lb => "lb",
            WeightUnit::Kg => "kg",
        }
    }
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogWeightArgs {
    /// Body weight (more than 0; at most 800 lb).
    pub weight: f64,
    /// `lb` (default) or `kg`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<WeightUnit>,
    /// The day, `YYYY-MM-DD` (default today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// How hard a workout was.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Intensity {
    Light,
    Moderate,
    Vigorous,
}

impl Intensity {
    pub fn as_str(self) -> &'static str {
        match self {
            Intensity::Light => "light",
            Intensity::Moderate => "moderate",
            Intensity::Vigorous => "vigorous",
        }
    }
}

#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogWorkoutArgs {
    /// What kind of workout, e.g. "run", "yoga", "weights".
    #[serde(rename = "type")]
    pub kind: String,
    /// How long, in minutes (more than 0, at most 1440).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_minutes: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intensity: Option<Intensity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The day, `YYYY-MM-DD` (default today).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// A logged drink (already resolved against its preset).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Drink {
    pub id: String,
    /// The user-local date, `YYYY-MM-DD`.
    pub date: String,
    pub logged_at: String,
    pub name: String,
    pub count: f64,
    pub oz: f64,
    /// Alcohol by volume, percent.
    pub abv: f64,
    pub standard_drinks: f64,
}

/// Logged nicotine use.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Nicotine {
    pub id: String,
    pub date: String,
    pub logged_at: String,
    pub product: String,
    pub count: f64,
    pub mg_per_unit: f64,
    pub total_mg: f64,
}

/// A logged body weight; kept in pounds, with what the user entered.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Weight {
    pub id: String,
    pub date: String,
    pub logged_at: String,
    pub pounds: f64,
    pub entered_value: f64,
    /// `lb` or `kg`.
    pub entered_unit: String,
}

/// A logged workout.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Workout {
    pub id: String,
    pub date: String,
    pub logged_at: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub duration_minutes: Option<f64>,
    /// `light`, `moderate` or `vigorous`.
    pub intensity: Option<String>,
    pub notes: Option<String>,
}

/// Everything logged on one day, oldest first.
#[derive(Clone, Debug, Default, Serialize, JsonSchema)]
pub struct DayEntries {
    pub date: String,
    pub drinks: Vec<Drink>,
    pub nicotine: Vec<Nicotine>,
    pub weights: Vec<Weight>,
    pub workouts: Vec<Workout>,
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

/// US standard drinks in `count` drinks of `oz` fluid ounces at `abv` percent.
pub fn standard_drinks(count: f64, oz: f64, abv: f64) -> f64 {
    count * oz * abv / 100.0 / OZ_ALCOHOL_PER_STANDARD_DRINK
}

/// A weight in pounds: more than 0, at most 800 lb whichever unit it was
/// given in.
pub fn pounds(weight: f64, unit: WeightUnit) -> Result<f64, String> {
    if !weight.is_finite() || weight <= 0.0 {
        return Err(format!(
            "weight must be more than 0 (got {})",
            amount(weight)
        ));
    }
    let pounds = match unit {
        WeightUnit::Lb => weight,
        WeightUnit::Kg => weight * POUNDS_PER_KILOGRAM,
    };
    if pounds > MAX_POUNDS {
        return Err(format!(
            "weight must be at most {MAX_POUNDS} lb (got {} lb): check the number and the unit",
            amount(pounds)
        ));
    }
    Ok(pounds)
}

/// Text that must not be blank, trimmed; the message names `field`.
pub fn non_empty(field: &str, text: &str) -> Result<String, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(format!("{field} must not be empty"));
    }
    Ok(text.to_owned())
}

/// `0 < value ≤ max`.
pub fn positive_at_most(field: &str, value: f64, max: f64) -> Result<(), String> {
    if value.is_finite() && value > 0.0 && value <= max {
        Ok(())
    } else {
        Err(format!(
            "{field} must be more than 0 and at most {} (got {})",
            amount(max),
            amount(value)
        ))
    }
}

/// `min ≤ value ≤ max`.
pub fn between(field: &str, value: f64, min: f64, max: f64) -> Result<(), String> {
    if value.is_finite() && (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "{field} must be between {} and {} (got {})",
            amount(min),
            amount(max),
            amount(value)
        ))
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
}
