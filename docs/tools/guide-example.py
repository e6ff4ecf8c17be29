#!/usr/bin/env python3
"""Build and run the complete server of docs/build-your-own-server.md from
the page's own text, as a reader who copies it would.

Every fenced block whose info string names a file (```` ```rust file=src/lib.rs ````)
is written to that path in a fresh crate outside the repository, beside a
link named `portos` to this repository (the page's Cargo.toml reaches the
framework as `../portos/...`). Then:

    cargo test                 the page's test, in process
    cargo run -- --dump-routes the binary, listing the page's route

    python3 docs/tools/guide-example.py            extract, build, test, run
    python3 docs/tools/guide-example.py --extract DIR
                                                   only write the crate under DIR

The crate takes this repository's Cargo.lock (so it resolves the versions
CI tested), its pinned toolchain (rust-toolchain.toml: outside the
repository rustup would pick its default one), its development profile
(PROFILE below) and its target directory (CARGO_TARGET_DIR, default
`target/`), so the dependencies the workspace built are not built again:
any of the three differing makes every dependency a new build, which on CI
doubled the target directory's size.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "build-your-own-server.md"
FENCE = re.compile(r"^```(\w+) file=(\S+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
# What the binary must list: the page's own route.
ROUTE = "/api/books"
# The workspace's `[profile.dev]` (Cargo.toml), which a crate outside it
# does not inherit.
PROFILE = [
    'profile.dev.debug="line-tables-only"',
    'profile.dev.package."*".opt-level=1',
    'profile.dev.package."*".debug=false',
]


def files(page: str) -> dict[str, str]:
    """The page's files by relative path, each exactly as written there."""
    found: dict[str, str] = {}
    for match in FENCE.finditer(page):
        path = match.group(2)
        if path.startswith("/") or ".." in Path(path).parts:
            sys.exit(f"guide-example: `{path}` is not a path inside the crate")
        if path in found:
            sys.exit(f"guide-example: `{path}` is written twice on the page")
        found[path] = match.group(3)
    if "Cargo.toml" not in found:
        sys.exit(f"guide-example: no ```toml file=Cargo.toml block in {PAGE}")
    return found


def extract(root: Path) -> Path:
    """Writes the crate under `root` beside a `portos` link to this repository."""
    crate = root / "bookshelf"
    for path, text in files(PAGE.read_text()).items():
        target = crate / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    (root / "portos").symlink_to(REPO, target_is_directory=True)
    shutil.copy(REPO / "Cargo.lock", crate / "Cargo.lock")
    shutil.copy(REPO / "rust-toolchain.toml", crate / "rust-toolchain.toml")
    return crate


def run(command: list[str], crate: Path, echo: bool = True) -> str:
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(REPO / "target"))
    print("guide-example:", " ".join(command), flush=True)
    done = subprocess.run(command, cwd=crate, env=env, stdout=subprocess.PIPE, text=True)
    if echo or done.returncode != 0:
        sys.stdout.write(done.stdout)
    if done.returncode != 0:
        sys.exit(f"guide-example: `{' '.join(command)}` failed ({done.returncode})")
    return done.stdout


def main() -> None:
    if sys.argv[1:2] == ["--extract"] and len(sys.argv) == 3:
        root = Path(sys.argv[2])
        root.mkdir(parents=True, exist_ok=True)
        print(extract(root))
        return
    if len(sys.argv) != 1:
        sys.exit(__doc__)
    # Outside the repository: inside it, Cargo would take the crate for an
    # undeclared member of the repository's workspace.
    with tempfile.TemporaryDirectory(prefix="guide-example-") as root:
        crate = extract(Path(root))
        profile = [arg for setting in PROFILE for arg in ("--config", setting)]
        run(["cargo", *profile, "test"], crate)
        routes = run(
            ["cargo", *profile, "run", "--quiet", "--", "--dump-routes"], crate, echo=False
        )
        if ROUTE not in routes:
            sys.exit(f"guide-example: the binary does not list {ROUTE}")
        print("guide-example: the page's server builds, passes its test and lists its route")


if __name__ == "__main__":
    main()
