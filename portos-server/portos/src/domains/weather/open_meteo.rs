//! The Open-Meteo forecast API, current conditions only (`weather.now`).
//! The base URL is configurable (`--weather-url`) so an operator can point
//! at a self-hosted instance, and tests at a local server.

use std::time::Duration;

use serde_json::Value;
use std::sync::Arc;

use portos_server::outbound::{self, OutboundClient, OutboundPolicy};

/// How long one weather request may take, connection included.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Larger answers are refused: a current-weather answer is a few hundred bytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// Current conditions at one place.
#[derive(Clone, Debug, PartialEq)]
pub struct Current {
    pub temperature_f: f64,
    /// WMO weather interpretation code.
    pub weather_code: i64,
}

/// A client for one Open-Meteo base URL, built once at start-up.
#[derive(Clone, Debug)]
pub struct OpenMeteo {
    base_url: String,
    client: OutboundClient,
}

impl OpenMeteo {
    /// A client for `base_url` under `policy`, which is widened by the
    /// base URL the owner configured.
    pub fn new(base_url: &str, policy: &OutboundPolicy) -> Result<OpenMeteo, reqwest::Error> {
        let builder = crate::shared::outbound::client_builder()
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            .user_agent(concat!("portos/", env!("CARGO_PKG_VERSION")));
        let client = OutboundClient::new(builder, Arc::new(policy.also_allowing_url(base_url)))?;
        Ok(OpenMeteo {
            base_url: base_url.trim_end_matches('/').to_owned(),
            client,
        })
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The current temperature (°F) and weather code at `lat`, `lon`, or a
    /// sentence saying why there is none.
    pub async fn current(&self, lat: f64, lon: f64) -> Result<Current, String> {
        let mut url = reqwest::Url::parse(&format!("{}/v1/forecast", self.base_url))
            .map_err(|error| format!("The weather URL {} is not valid: {error}", self.base_url))?;
        url.query_pairs_mut()
            .append_pair("latitude", &lat.to_string())
            .append_pair("longitude", &lon.to_string())
            .append_pair("current", "temperature_2m,weather_code")
            .append_pair("temperature_unit", "fahrenheit");

        let request = self.client.get(url.as_str()).map_err(|error| {
            format!(
                "The weather service at {} cannot be reached from this server: {error}",
                self.base_url
            )
        })?;
        let response = self
            .client
            .send(request)
            .await
            .map_err(|error| self.unreachable(&error))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|error| self.unreachable(&error))?;
        if body.len() > MAX_ANSWER_BYTES {
            return Err(format!(
                "The weather service at {} sent an answer too large to be current weather.",
                self.base_url
            ));
        }
        let answer: Option<Value> = serde_json::from_slice(&body).ok();
        if !status.is_success() {
            // Open-Meteo explains refusals as `{"error": true, "reason": "..."}`.
            let reason = answer
                .as_ref()
                .and_then(|answer| answer.get("reason"))
                .and_then(Value::as_str)
                .map(|reason| format!(": {reason}"))
                .unwrap_or_default();
            return Err(format!(
                "The weather service at {} answered HTTP {}{reason}.",
                self.base_url,
                status.as_u16()
            ));
        }
        let Some(answer) = answer else {
            return Err(format!(
                "The weather service at {} did not answer with JSON.",
                self.base_url
            ));
        };
        parse_current(&answer).ok_or_else(|| {
            format!(
                "The weather service at {} answered without the current temperature and weather code.",
                self.base_url
            )
        })
    }

    fn unreachable(&self, error: &reqwest::Error) -> String {
        if let Some(refused) = outbound::refusal(error) {
            return format!(
                "The weather service at {} cannot be reached from this server: {refused}",
                self.base_url
            );
        }
        if error.is_timeout() {
            return format!(
                "The weather service at {} did not answer within {} seconds.",
                self.base_url,
                TIMEOUT.as_secs()
            );
        }
        // reqwest's own message is generic; the cause (refused, DNS…) is in
        // its sources.
        let mut reason = error.to_string();
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            reason.push_str(": ");
            reason.push_str(&cause.to_string());
            source = std::error::Error::source(cause);
        }
        format!(
            "The weather service at {} is unreachable ({reason}).",
            self.base_url
        )
    }
}

/// `current.temperature_2m` and `current.weather_code` of a forecast answer.
fn parse_current(answer: &Value) -> Option<Current> {
    let current = answer.get("current")?;
    let temperature_f = current.get("temperature_2m")?.as_f64()?;
    let code = current.get("weather_code")?;
    // Integral either way; some encoders write `3.0`.
    let weather_code = code.as_i64().or_else(|| {
        code.as_f64()
            .filter(|c| c.fract() == 0.0 && c.abs() < 1e6)
            .map(|c| c as i64)
    })?;
    Some(Current {
        temperature_f,
        weather_code,
    })
}

/// The WMO weather interpretation code in words (the table Open-Meteo documents).
pub fn conditions(code: i64) -> String {
    let words = match code {
        0 => "clear sky",
        1 => "mainly clear",
        2 => "partly cloudy",
        3 => "overcast",
        45 => "fog",
        48 => "depositing rime fog",
        51 => "light drizzle",
        53 => "moderate drizzle",
        55 => "dense drizzle",
        56 => "light freezing drizzle",
        57 => "dense freezing drizzle",
        61 => "slight rain",
        63 => "moderate rain",
        65 => "heavy rain",
        66 => "light freezing rain",
        67 => "heavy freezing rain",
        71 => "slight snow fall",
        73 => "moderate snow fall",
        75 => "heavy snow fall",
        77 => "snow grains",
        80 => "slight rain showers",
        81 => "moderate rain showers",
        82 => "violent rain showers",
        85 => "slight snow showers",
        86 => "heavy snow showers",
        95 => "thunderstorm",
        96 => "thunderstorm with slight hail",
        99 => "thunderstorm with heavy hail",
        other => return format!("unknown conditions (code {other})"),
    };
    words.to_owned()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn the_configured_service_is_allowed_and_a_redirect_elsewhere_is_not() {
        use axum::http::{StatusCode, header};
        use axum::response::IntoResponse;

        // A stand-in that sends every request to a private address.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let router = axum::Router::new().fallback(|| async {
            (
                StatusCode::FOUND,
                [(header::LOCATION, "http://10.0.0.1/v1/forecast")],
            )
                .into_response()
        });
        tokio::spawn(async move {
            let _ = axum::serve(listener, router).await;
        });
        // Nothing but what the owner configured is allowed.
        let nothing = OutboundPolicy::only("none").expect("valid");
        let weather = OpenMeteo::new(&format!("http://{address}"), &nothing).expect("client");
        let error = weather
            .current(48.85, 2.35)
            .await
            .expect_err("the redirect is refused");
        assert!(
            error.contains("cannot be reached from this server")
                && error.contains("10.0.0.0/8: private (RFC 1918)"),
            "{error}"
        );
    }

    #[test]
    fn reads_the_current_block() {
        let answer = json!({"current": {"time": "2026-01-01T10:00", "temperature_2m": 58.6, "weather_code": 3.0}});
        assert_eq!(
            parse_current(&answer),
            Some(Current {
                temperature_f: 58.6,
                weather_code: 3
            })
        );
        assert_eq!(
            parse_current(&json!({"current": {"temperature_2m": 1}})),
            None
        );
        assert_eq!(parse_current(&json!({"current_weather": {}})), None);
    }

    #[test]
    fn words_for_codes() {
        assert_eq!(conditions(0), "clear sky");
        assert_eq!(conditions(95), "thunderstorm");
        assert_eq!(conditions(42), "unknown conditions (code 42)");
    }
}
