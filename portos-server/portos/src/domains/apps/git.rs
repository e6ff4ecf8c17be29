//! The `origin` remote of a repository, read from its git config file (no
//! git binary needed): `<repo>/.git/config`, or for a worktree or submodule
//! whose `.git` is a file, the config of the directory it points to (and
//! of that directory's `commondir`).

use std::path::{Path, PathBuf};

/// The URL of the `origin` remote of the repository at `repo`, if any.
pub fn origin_url(repo: &Path) -> Option<String> {
    let git_dir = git_dir(repo)?;
    let mut candidates = vec![git_dir.join("config")];
    // A linked worktree keeps its remotes in the main repository's config.
    if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
        candidates.insert(0, resolve(&git_dir, common.trim()).join("config"));
    }
    candidates
        .iter()
        .filter_map(|config| std::fs::read_to_string(config).ok())
        .find_map(|text| remote_url(&text, "origin"))
}

/// `<repo>/.git`, or where a `.git` file's `gitdir:` line points.
fn git_dir(repo: &Path) -> Option<PathBuf> {
    let dot_git = repo.join(".git");
    let metadata = std::fs::metadata(&dot_git).ok()?;
    if metadata.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().find_map(|line| line.strip_prefix("gitdir:"))?;
    Some(resolve(repo, target.trim()))
}

fn resolve(base: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// The `url` of `[remote "<name>"]` in a git config text. Section names are
/// case-insensitive, subsection names are not; the last `url` wins, as git
/// reads it; `#` and `;` start comments outside quotes.
pub fn remote_url(config: &str, name: &str) -> Option<String> {
    let mut in_remote = false;
    let mut url = None;
    for raw in config.lines() {
        let line = raw.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or("").trim();
            in_remote = match header.split_once(char::is_whitespace) {
                Some((section, subsection)) => {
                    section.eq_ignore_ascii_case("remote")
                        && subsection.trim().trim_matches('"') == name
                }
                None => false,
            };
            continue;
        }
        if !in_remote {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim().eq_ignore_ascii_case("url") {
            let value = strip_comment(value.trim());
            if !value.is_empty() {
                url = Some(value);
            }
        }
    }
    url
}

fn strip_comment(value: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in value.chars() {
        match c {
            '"' => quoted = !quoted,
            '#' | ';' if !quoted => break,
            _ => out.push(c),
        }
    }
    out.trim().to_owned()
}

/// A remote URL without the user and password an `https://user:token@host`
/// form may carry (the scp form's `git@` user is kept: it is no secret).
pub fn without_credentials(url: &str) -> String {
    if let Some((scheme, rest)) = url.split_once("://") {
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        if let Some((_, host)) = authority.rsplit_once('@') {
            let user_is_git = authority.starts_with("git@") && scheme.contains("ssh");
            if !user_is_git {
                return format!("{scheme}://{host}/{path}");
            }
        }
    }
    url.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"
[core]
	bare = false
[remote "upstream"]
	url = https://github.com/other/app.git
[Remote "origin"]
	url = "git@github.com:acme/app.git" ; the main one
	fetch = +refs/heads/*:refs/remotes/origin/*
[branch "main"]
	remote = origin
"#;

    #[test]
    fn reads_the_origin() {
        assert_eq!(
            remote_url(CONFIG, "origin").as_deref(),
            Some("git@github.com:acme/app.git")
        );
        assert_eq!(
            remote_url(CONFIG, "upstream").as_deref(),
            Some("https://github.com/other/app.git")
        );
        assert_eq!(remote_url(CONFIG, "fork"), None);
    }

    #[test]
    fn from_a_directory_and_a_worktree() {
        let dir = tempfile::tempdir().expect("tempdir");
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git/worktrees/wt")).expect("mkdir");
        std::fs::write(repo.join(".git/config"), CONFIG).expect("config");
        assert_eq!(
            origin_url(&repo).as_deref(),
            Some("git@github.com:acme/app.git")
        );

        let worktree = dir.path().join("wt");
        std::fs::create_dir_all(&worktree).expect("mkdir");
        let linked = repo.join(".git/worktrees/wt");
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", linked.display()),
        )
        .expect("file");
        std::fs::write(linked.join("commondir"), "../..\n").expect("commondir");
        assert_eq!(
            origin_url(&worktree).as_deref(),
            Some("git@github.com:acme/app.git")
        );

        assert_eq!(origin_url(dir.path()), None);
    }

    #[test]
    fn credentials_are_removed() {
        assert_eq!(
            without_credentials("https://user:ghp_x@github.com/acme/app.git"),
            "https://github.com/acme/app.git"
        );
        assert_eq!(
            without_credentials("git@github.com:acme/app.git"),
            "git@github.com:acme/app.git"
        );
        assert_eq!(
            without_credentials("ssh://git@gitlab.com/acme/app.git"),
            "ssh://git@gitlab.com/acme/app.git"
        );
    }
}
