//! The homelab's own configuration beside the runtime's: the site name, from
//! `--site-name`, `HOMELAB_SITE_NAME` or the TOML key `site-name`, in that
//! order of precedence.

// The runtime's clap: the derive below names `clap::…`.
use portos_server::clap;
use serde::Deserialize;

/// The site name when none is given.
pub const DEFAULT_SITE_NAME: &str = "homelab";
/// Longest site name, in characters.
pub const MAX_SITE_NAME_CHARS: usize = 80;

/// The homelab's flags (beside the runtime's `--bind`, `--data-dir`, ...).
#[derive(Debug, Default, clap::Args)]
pub struct Flags {
    /// The lab's name, shown in every answer (default "homelab").
    #[arg(long, env = "HOMELAB_SITE_NAME", value_name = "NAME")]
    pub site_name: Option<String>,
}

/// The homelab's keys of the TOML file (`--config`); unknown keys are refused.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileKeys {
    pub site_name: Option<String>,
}

/// The homelab's state: read by its tools and its route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabConfig {
    /// The lab's name (trimmed, 1 to 80 characters).
    pub site_name: String,
}

impl LabConfig {
    /// The flag (or its environment variable) wins over the file; a blank or
    /// over-long name is refused, so a typo is not served silently.
    pub fn resolve(flags: &Flags, file: FileKeys) -> Result<LabConfig, String> {
        let chosen = flags
            .site_name
            .clone()
            .or(file.site_name)
            .unwrap_or_else(|| DEFAULT_SITE_NAME.to_owned());
        let site_name = chosen.trim();
        if site_name.is_empty() {
            return Err(
                "the site name (--site-name, HOMELAB_SITE_NAME, site-name) must not be blank"
                    .to_owned(),
            );
        }
        if site_name.chars().count() > MAX_SITE_NAME_CHARS {
            return Err(format!(
                "the site name must be at most {MAX_SITE_NAME_CHARS} characters"
            ));
        }
        Ok(LabConfig {
            site_name: site_name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(name: Option<&str>) -> Flags {
        Flags {
            site_name: name.map(str::to_owned),
        }
    }

    fn file(name: Option<&str>) -> FileKeys {
        FileKeys {
            site_name: name.map(str::to_owned),
        }
    }

    #[test]
    fn the_flag_wins_over_the_file_and_the_default_comes_last() {
        let resolved = |f, k| LabConfig::resolve(&flags(f), file(k)).map(|lab| lab.site_name);
        assert_eq!(
            resolved(Some(" attic "), Some("garage")),
            Ok("attic".to_owned())
        );
        assert_eq!(resolved(None, Some("garage")), Ok("garage".to_owned()));
        assert_eq!(resolved(None, None), Ok(DEFAULT_SITE_NAME.to_owned()));
    }

    #[test]
    fn blank_and_long_names_are_refused() {
        assert!(LabConfig::resolve(&flags(Some("  ")), file(None)).is_err());
        let long = "x".repeat(MAX_SITE_NAME_CHARS + 1);
        assert!(LabConfig::resolve(&flags(Some(&long)), file(None)).is_err());
    }
}
