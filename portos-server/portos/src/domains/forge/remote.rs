//! A managed app's work tracker and the forge repository its git remote
//! names (docs/reference.md#forge-issues): `auto` resolves from the remote's
//! host (`github.com` / `github.*` → GitHub, `gitlab.com` / `gitlab.*` →
//! GitLab, anything else → the plan file).

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where an app's work is tracked, as configured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tracker {
    /// Resolved from the git remote's host.
    #[default]
    Auto,
    /// The repository's plan file (no forge).
    Plan,
    Github,
    Gitlab,
    Jira,
}

impl Tracker {
    pub fn as_str(self) -> &'static str {
        match self {
            Tracker::Auto => "auto",
            Tracker::Plan => "plan",
            Tracker::Github => "github",
            Tracker::Gitlab => "gitlab",
            Tracker::Jira => "jira",
        }
    }

    /// The tracker `auto` stands for, given the host of the git remote.
    pub fn resolve(self, remote_host: Option<&str>) -> Tracker {
        match self {
            Tracker::Auto => match remote_host.and_then(Forge::of_host) {
                Some(Forge::Github) => Tracker::Github,
                Some(Forge::Gitlab) => Tracker::Gitlab,
                None => Tracker::Plan,
            },
            other => other,
        }
    }

    /// The forge whose issue list this tracker is, if any.
    pub fn forge(self) -> Option<Forge> {
        match self {
            Tracker::Github => Some(Forge::Github),
            Tracker::Gitlab => Some(Forge::Gitlab),
            Tracker::Auto | Tracker::Plan | Tracker::Jira => None,
        }
    }
}

/// A forge whose issues the Mind can list and file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Forge {
    Github,
    Gitlab,
}

impl Forge {
    pub fn as_str(self) -> &'static str {
        match self {
            Forge::Github => "github",
            Forge::Gitlab => "gitlab",
        }
    }

    /// The forge's name in messages.
    pub fn label(self) -> &'static str {
        match self {
            Forge::Github => "GitHub",
            Forge::Gitlab => "GitLab",
        }
    }

    /// `github.com` and `github.<anything>` (GitHub Enterprise) are GitHub;
    /// `gitlab.com` and `gitlab.<anything>` (self-hosted) are GitLab.
    pub fn of_host(host: &str) -> Option<Forge> {
        let host = host.to_ascii_lowercase();
        if host == "github.com" || host.starts_with("github.") {
            Some(Forge::Github)
        } else if host == "gitlab.com" || host.starts_with("gitlab.") {
            Some(Forge::Gitlab)
        } else {
            None
        }
    }
}

impl fmt::Display for Forge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A repository on a forge: its host and its full path (`owner/name`, or
/// `group/subgroup/name` on GitLab).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repository {
    pub forge: Forge,
    pub host: String,
    pub full_name: String,
}

/// The host and repository path of a git remote URL: `https://host/a/b.git`,
/// `ssh://git@host:22/a/b`, or the scp form `git@host:a/b.git`.
pub fn parse_remote(url: &str) -> Option<(String, String)> {
    let url = url.trim();
    let (host, path) = if let Some((scheme, rest)) = url.split_once("://") {
        if !matches!(scheme, "https" | "http" | "ssh" | "git" | "git+ssh") {
            return None;
        }
        let (authority, path) = rest.split_once('/')?;
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        let host = host.split(':').next()?;
        (host, path)
    } else {
        // scp-like: [user@]host:path, with no slash before the colon.
        let (authority, path) = url.split_once(':')?;
        if authority.contains('/') {
            return None;
        }
        let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        (host, path)
    };
    let path = path.trim_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let segments: Vec<&str> = path.split('/').collect();
    let valid = segments.len() >= 2
        && segments.iter().all(|segment| {
            !segment.is_empty()
                && segment != &"."
                && segment != &".."
                && segment
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        });
    if host.is_empty() || !valid {
        return None;
    }
    Some((host.to_ascii_lowercase(), segments.join("/")))
}

/// The forge repository of a remote, when the tracker resolves to a forge
/// and the remote is on that forge.
pub fn repository(tracker: Tracker, remote_url: Option<&str>) -> Option<Repository> {
    let (host, full_name) = remote_url.and_then(parse_remote)?;
    let forge = tracker.resolve(Some(&host)).forge()?;
    // A GitHub tracker over a GitLab remote (or the reverse) has no issue
    // list the Mind can reach.
    if Forge::of_host(&host).is_some_and(|on| on != forge) {
        return None;
    }
    if forge == Forge::Github && full_name.split('/').count() != 2 {
        return None;
    }
    Some(Repository {
        forge,
        host,
        full_name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_in_every_form() {
        for (url, host, path) in [
            ("https://github.com/acme/app.git", "github.com", "acme/app"),
            ("https://github.com/acme/app", "github.com", "acme/app"),
            ("git@github.com:acme/app.git", "github.com", "acme/app"),
            (
                "ssh://git@gitlab.example.org:2222/group/sub/app.git",
                "gitlab.example.org",
                "group/sub/app",
            ),
            (
                "https://token@GitLab.com/group/app/",
                "gitlab.com",
                "group/app",
            ),
        ] {
            assert_eq!(
                parse_remote(url),
                Some((host.to_owned(), path.to_owned())),
                "{url}"
            );
        }
        for bad in [
            "",
            "/srv/repo",
            "file:///srv/repo.git",
            "https://github.com/acme",
            "git@github.com:../x",
            "https://github.com/a b/c",
        ] {
            assert_eq!(parse_remote(bad), None, "{bad}");
        }
    }

    #[test]
    fn auto_resolves_from_the_host() {
        assert_eq!(Tracker::Auto.resolve(Some("github.com")), Tracker::Github);
        assert_eq!(
            Tracker::Auto.resolve(Some("github.acme.corp")),
            Tracker::Github
        );
        assert_eq!(Tracker::Auto.resolve(Some("gitlab.com")), Tracker::Gitlab);
        assert_eq!(
            Tracker::Auto.resolve(Some("gitlab.acme.corp")),
            Tracker::Gitlab
        );
        assert_eq!(Tracker::Auto.resolve(Some("codeberg.org")), Tracker::Plan);
        assert_eq!(Tracker::Auto.resolve(None), Tracker::Plan);
        assert_eq!(Tracker::Jira.resolve(Some("github.com")), Tracker::Jira);
    }

    #[test]
    fn a_forge_tracker_needs_a_remote_on_that_forge() {
        let on_github = Some("git@github.com:acme/app.git");
        assert_eq!(
            repository(Tracker::Auto, on_github).map(|r| (r.forge, r.full_name)),
            Some((Forge::Github, "acme/app".to_owned()))
        );
        assert!(repository(Tracker::Gitlab, on_github).is_none());
        assert!(repository(Tracker::Plan, on_github).is_none());
        assert!(repository(Tracker::Jira, on_github).is_none());
        assert!(repository(Tracker::Github, None).is_none());
        // A self-hosted forge on a host the auto rule does not know.
        assert_eq!(
            repository(Tracker::Gitlab, Some("https://git.acme.corp/team/app.git")).map(|r| r.host),
            Some("git.acme.corp".to_owned())
        );
    }
}
