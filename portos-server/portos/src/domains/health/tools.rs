//! The health tools: log drinks, nicotine, weight, workouts and summarize
//! today (docs/reference.md#semantic-adapters rows 4–8, the voice era's
//! `meatspace_*` tools).

use portos_core::{AdapterError, Shared, portos_tool};
use portos_server::clock::UserClock;
use portos_server::store::Store;
use schemars::JsonSchema;
use serde::Serialize;

use super::model::{LogDrinkArgs, LogNicotineArgs, LogWeightArgs, LogWorkoutArgs};
use super::ops;
use crate::shared::amount::amount;

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DrinkLogged {
    pub ok: bool,
    pub id: String,
    pub date: String,
    pub standard_drinks: f64,
    /// Standard drinks logged so far today.
    pub day_standard_drinks: f64,
    pub summary: String,
}

/// Log an alcoholic drink for today.
#[portos_tool(
    name = "health.log.drink",
    aliases = ["meatspace_log_drink", "health_log_drink"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "meatspace",
)]
pub async fn log_drink(
    args: LogDrinkArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<DrinkLogged, AdapterError> {
    let logged = ops::log_drink(&store, &clock, &args).await?;
    let drink = logged.entry;
    let summary = format!(
        "Logged {} × {} ({} oz, {}% ABV): {:.1} standard drinks. Today's total: {:.1} standard drinks.",
        amount(drink.count),
        drink.name,
        amount(drink.oz),
        amount(drink.abv),
        drink.standard_drinks,
        logged.day_total
    );
    Ok(DrinkLogged {
        ok: true,
        id: drink.id,
        date: drink.date,
        standard_drinks: drink.standard_drinks,
        day_standard_drinks: logged.day_total,
        summary,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NicotineLogged {
    pub ok: bool,
    pub id: String,
    pub date: String,
    pub total_mg: f64,
    /// Milligrams logged so far today.
    pub day_mg: f64,
    pub summary: String,
}

/// Log nicotine use (cigarette, vape, pouch) for today.
#[portos_tool(
    name = "health.log.nicotine",
    aliases = ["meatspace_log_nicotine", "health_log_nicotine"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "meatspace",
)]
pub async fn log_nicotine(
    args: LogNicotineArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<NicotineLogged, AdapterError> {
    let logged = ops::log_nicotine(&store, &clock, &args).await?;
    let entry = logged.entry;
    let summary = format!(
        "Logged {} × {} ({} mg each): {} mg of nicotine. Today's total: {} mg.",
        amount(entry.count),
        entry.product,
        amount(entry.mg_per_unit),
        amount(entry.total_mg),
        amount(logged.day_total)
    );
    Ok(NicotineLogged {
        ok: true,
        id: entry.id,
        date: entry.date,
        total_mg: entry.total_mg,
        day_mg: logged.day_total,
        summary,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HealthToday {
    pub ok: bool,
    pub date: String,
    pub standard_drinks: f64,
    /// Daily average of the 7 days before today.
    pub average_standard_drinks: f64,
    pub nicotine_mg: f64,
    /// Daily average of the 7 days before today.
    pub average_nicotine_mg: f64,
    pub summary: String,
}

/// Summarize today's alcohol and nicotine against the 7-day averages.
#[portos_tool(
    name = "health.today",
    aliases = ["meatspace_summary_today", "health_today"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["readPortos"],
    side_effect = "read",
    intent_group = "meatspace",
)]
pub async fn today(
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<HealthToday, AdapterError> {
    let today = ops::today(&store, &clock).await?;
    let summary = format!(
        "Today: {:.1} standard drinks (7-day average {:.1} a day) and {} mg of nicotine (7-day average {} mg a day).",
        today.standard_drinks,
        today.average_standard_drinks,
        amount(today.nicotine_mg),
        amount(today.average_nicotine_mg)
    );
    Ok(HealthToday {
        ok: true,
        date: today.date,
        standard_drinks: today.standard_drinks,
        average_standard_drinks: today.average_standard_drinks,
        nicotine_mg: today.nicotine_mg,
        average_nicotine_mg: today.average_nicotine_mg,
        summary,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WeightLogged {
    pub ok: bool,
    pub id: String,
    pub date: String,
    pub pounds: f64,
    pub summary: String,
}

/// Log a body weight (pounds or kilograms).
#[portos_tool(
    name = "health.log.weight",
    aliases = ["meatspace_log_weight", "health_log_weight"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "meatspace",
)]
pub async fn log_weight(
    args: LogWeightArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<WeightLogged, AdapterError> {
    let entry = ops::log_weight(&store, &clock, &args).await?;
    let summary = if entry.entered_unit == "kg" {
        format!(
            "Logged weight {} kg ({} lb) for {}.",
            amount(entry.entered_value),
            amount(entry.pounds),
            entry.date
        )
    } else {
        format!(
            "Logged weight {} lb for {}.",
            amount(entry.pounds),
            entry.date
        )
    };
    Ok(WeightLogged {
        ok: true,
        id: entry.id,
        date: entry.date,
        pounds: entry.pounds,
        summary,
    })
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct WorkoutLogged {
    pub ok: bool,
    pub id: String,
    pub date: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub summary: String,
}

/// Log a workout (type, duration, intensity, notes).
#[portos_tool(
    name = "health.log.workout",
    aliases = ["meatspace_log_workout", "health_log_workout"],
    scopes = ["agent", "mind", "ui", "voice"],
    capabilities = ["writePortos"],
    side_effect = "write",
    intent_group = "meatspace",
)]
pub async fn log_workout(
    args: LogWorkoutArgs,
    store: Shared<Store>,
    clock: Shared<UserClock>,
) -> Result<WorkoutLogged, AdapterError> {
    let entry = ops::log_workout(&store, &clock, &args).await?;
    let mut details = Vec::new();
    if let Some(minutes) = entry.duration_minutes {
        details.push(format!("{} min", amount(minutes)));
    }
    if let Some(intensity) = &entry.intensity {
        details.push(intensity.clone());
    }
    let details = if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join(", "))
    };
    let summary = format!(
        "Logged workout: {}{} on {}.",
        entry.kind, details, entry.date
    );
    Ok(WorkoutLogged {
        ok: true,
        id: entry.id,
        date: entry.date,
        kind: entry.kind,
        summary,
    })
}
