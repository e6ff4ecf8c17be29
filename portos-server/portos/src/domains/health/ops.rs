//! The health logs' operations, shared by the tools and the REST routes:
//! log an entry (checked by the model's rules first), answer it with the
//! day's running total, summarize today, list a day, delete an entry.

use portos_server::clock::UserClock;
use portos_server::store::{Store, StoreError};

use super::model::{
    self, AVERAGE_DAYS, DayEntries, Drink, LogDrinkArgs, LogNicotineArgs, LogWeightArgs,
    LogWorkoutArgs, MAX_DRINKS, MAX_MG_PER_UNIT, MAX_NICOTINE_UNITS, MAX_OZ, MAX_WORKOUT_MINUTES,
    Nicotine, Weight, WeightUnit, Workout,
};
use super::store;
use crate::shared::local_date;

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

/// Logs a drink today and answers it with the day's standard drinks.
pub async fn log_drink(
    store: &Store,
    clock: &UserClock,
    args: &LogDrinkArgs,
) -> Result<Logged<Drink>, LogError> {
    let name = model::non_empty("name", &args.name).map_err(LogError::Invalid)?;
    let count = args.count.unwrap_or(1.0);
    model::positive_at_most("count", count, MAX_DRINKS).map_err(LogError::Invalid)?;
    let (preset_oz, preset_abv) = model::drink_preset(&name);
    let oz = args.oz.unwrap_or(preset_oz);
    model::positive_at_most("oz", oz, MAX_OZ).map_err(LogError::Invalid)?;
    let abv = args.abv.unwrap_or(preset_abv);
    model::between("abv", abv, 0.0, 100.0).map_err(LogError::Invalid)?;
    let drink = Drink {
        id: new_id(),
        date: local_date::today(clock).to_string(),
        logged_at: jiff::Timestamp::now().to_string(),
        name,
        count,
        oz,
        abv,
        standard_drinks: model::standard_drinks(count, oz, abv),
    };
    Ok(store
        .run(move |connection| {
            store::insert_drink(connection, &drink)?;
            let day_total = store::standard_drinks_between(connection, &drink.date, &drink.date)?;
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
    let product = model::non_empty("product", &args.product).map_err(LogError::Invalid)?;
    let count = args.count.unwrap_or(1.0);
    model::positive_at_most("count", count, MAX_NICOTINE_UNITS).map_err(LogError::Invalid)?;
    let mg_per_unit = args
        .mg_per_unit
        .unwrap_or_else(|| model::nicotine_preset(&product));
    model::between("mgPerUnit", mg_per_unit, 0.0, MAX_MG_PER_UNIT).map_err(LogError::Invalid)?;
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
            store::insert_nicotine(connection, &entry)?;
            let day_total = store::nicotine_mg_between(connection, &entry.date, &entry.date)?;
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
    let pounds = model::pounds(args.weight, unit).map_err(LogError::Invalid)?;
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
            store::insert_weight(connection, &entry)?;
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
    let kind = model::non_empty("type", &args.kind).map_err(LogError::Invalid)?;
    if let Some(minutes) = args.duration_minutes {
        model::positive_at_most("durationMinutes", minutes, MAX_WORKOUT_MINUTES)
            .map_err(LogError::Invalid)?;
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
            store::insert_workout(connection, &entry)?;
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
                standard_drinks: store::standard_drinks_between(connection, &today, &today)?,
                average_standard_drinks: store::standard_drinks_between(connection, &first, &last)?
                    / days,
                nicotine_mg: store::nicotine_mg_between(connection, &today, &today)?,
                average_nicotine_mg: store::nicotine_mg_between(connection, &first, &last)? / days,
                date: today,
            })
        })
        .await
}

/// Every entry of the user-local day `date` (`YYYY-MM-DD`).
pub async fn entries_on(store: &Store, date: String) -> Result<DayEntries, StoreError> {
    store
        .run(move |connection| store::entries_on(connection, &date))
        .await
}

/// Deletes the entry `id` of any kind; `false` when there is none.
pub async fn delete_entry(store: &Store, id: String) -> Result<bool, StoreError> {
    store
        .run(move |connection| store::delete_entry(connection, &id))
        .await
}

fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
