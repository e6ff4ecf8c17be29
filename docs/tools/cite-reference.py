#!/usr/bin/env python3
"""Point the repository's citations of the outside spec at docs/reference.md.

Code comments and documents used to cite the upstream behaviour reference
by section number (`BEHAVIOUR §1.6`, or just `§1.6`) and the tool contract
by section name (`contract "Endpoint map"`). Those documents are not in the
repository; docs/reference.md states the same rules under stable names.

    python3 docs/tools/cite-reference.py          rewrite, then check
    python3 docs/tools/cite-reference.py --check  check only (exit 1 on a problem)

Rewriting (idempotent: a rewritten file has nothing left to rewrite):

* outside Markdown, each section cited becomes `docs/reference.md#<anchor>`
  (`BEHAVIOUR §1.5, §1.6` → `docs/reference.md#fingerprint,
  docs/reference.md#idempotency`), so a search for one section's anchor
  finds every place that relies on it;
* in Markdown, each section becomes a link, `[Idempotency](reference.md#idempotency)`,
  relative to the document;
* a range (`§5.4–5.5`) names every section in it; `§12` (porting notes,
  folded into the sections it is cited with) is dropped from a citation
  and refused alone; `RFC 5545 §3.3.10` and the like are left alone;
* a comment or paragraph line that grows past 80 characters (or past its
  old length, if longer) pushes its last words onto the next line of the
  same paragraph (or a new one), so lines stay readable. Snapshot files,
  Markdown table rows and the doc comments of types deriving JsonSchema
  are never rewrapped: schemars keeps those line breaks in the schema
  descriptions of the served documents.

Only text is touched: every citation is in a comment, a document, or a
snapshot of a document built from doc comments (the OpenAPI descriptions
schemars and `#[portos_route]` take from `///` comments). The script lists
the schema doc comments it changed, since their text is served.

Checking: no citation of the outside spec is left, every
`reference.md#anchor` in the repository names a heading of
docs/reference.md (GitHub's anchor of it), and every `file.md#anchor` link
in docs/reference.md names a heading of that file.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REFERENCE = "docs/reference.md"
SELF = "docs/tools/cite-reference.py"

# Section → the heading of docs/reference.md that states its rules.
SECTIONS = {
    "0.1": "Scope counts",
    "1": "Calls",
    "1.1": "Call envelope",
    "1.2": "Name resolution",
    "1.3": "Call pipeline",
    "1.4": "Result envelope",
    "1.5": "Fingerprint",
    "1.6": "Idempotency",
    "1.7": "Idempotency-Key",
    "1.8": "HTTP authority",
    "2": "Catalog",
    "2.1": "Catalog query",
    "2.2": "ETag",
    "2.3": "Native catalog",
    "2.4": "Provider formats",
    "2.5": "MCP annotations",
    "2.6": "Intent filtering",
    "2.7": "Tool families",
    "2.8": "User actions",
    "3": "Semantic adapters",
    "4": "Authority",
    "4.1": "Authority",
    "4.2": "Capability keys",
    "4.3": "Grant storage",
    "4.4": "Authentication gate",
    "5": "Agent Tools",
    "5.1": "MCP settings",
    "5.2": "Manifest",
    "5.3": "MCP transport",
    "5.4": "Context tools",
    "5.5": "Context items",
    "5.6": "MCP results",
    "5.7": "MCP request ids",
    "5.8": "MCP gating",
    "6": "Persistent Mind",
    "6.1": "Mind inventory",
    "6.2": "Turn budgets",
    "6.3": "Task creation",
    "7": "Saved recipes",
    "7.1": "Recipe definition",
    "7.2": "Recipe storage",
    "7.3": "Recipe catalog",
    "7.4": "Recipe execution",
    "7.5": "Fail-closed rules",
    "8": "Forge issues",
    "9": "Route inventory",
    "9.1": "Route graph",
    "9.2": "Route catalog",
    "9.3": "OpenAPI",
    "9.4": "Tool resource",
    "9.5": "Event inventory",
}
# API_TOOL_CONTRACT.md's sections, cited by name.
CONTRACT_SECTIONS = {"Endpoint map": "Endpoints"}

TEXT_SUFFIXES = (".rs", ".md", ".toml", ".yml", ".yaml", ".snap", ".sh", ".txt", ".mjs", ".js", ".lua")
WIDTH = 80

# `BEHAVIOUR §1.5`, `§1.5`, `§5.4–5.5`, `§2`; not `RFC 5545 §3.3.10`.
TOKEN = re.compile(
    r"(?P<spec>BEHAVIOUR )?§(?P<a>\d+)(?:\.(?P<b>\d+))?(?P<deeper>\.\d+)?"
    r"(?:[–-](?P<c>\d+)(?:\.(?P<d>\d+))?)?"
)
OTHER_SPEC = re.compile(r"(?<![\w-])(?:RFC|ISO|IEEE|ECMA)[ -]?\d+[: ]*$")
DROPPED = re.compile(r"(?:, |/| / | and )(?:BEHAVIOUR )?§12\b")
CONTRACT = re.compile(r'(?:the )?contract "(?P<name>[^"]+)"')
CITATION = re.compile(r"reference\.md#([A-Za-z0-9_-]+)")
LIST_MARK = re.compile(r"(?:[*-]|\d+\.) ")


def slug(heading):
    """GitHub's anchor of a heading."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors_of(path):
    found = {}
    fence = False
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            if fence:
                continue
            m = re.match(r"#{1,6} (.*)", line)
            if m:
                base = slug(m.group(1))
                n = found.get(base, 0)
                found[base] = n + 1
                if n:
                    found[f"{base}-{n}"] = 1
    return set(found)


def tracked_files():
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.decode()
    return [p for p in out.split("\0") if p.endswith(TEXT_SUFFIXES) and p not in (REFERENCE, SELF)]


def sections_of(m):
    """The sections a token names, or an error text."""
    if m.group("deeper"):
        return None, "a third level (" + m.group(0) + ")"
    a, b, c, d = (m.group(k) for k in "abcd")
    if c is None:
        keys = [a if b is None else f"{a}.{b}"]
    elif b is not None and d is not None and c == a:
        keys = [f"{a}.{n}" for n in range(int(b), int(d) + 1)]
    elif b is not None and d is None:
        keys = [f"{a}.{n}" for n in range(int(b), int(c) + 1)]
    else:
        return None, "a range across sections (" + m.group(0) + ")"
    missing = [k for k in keys if k not in SECTIONS]
    if missing:
        return None, "no such section §" + ", §".join(missing)
    headings = []
    for k in keys:
        if SECTIONS[k] not in headings:
            headings.append(SECTIONS[k])
    return headings, None


def cite(headings, md_target):
    if md_target is None:
        return ", ".join("docs/reference.md#" + slug(h) for h in headings)
    links = [f"[{h}]({md_target}#{slug(h)})" for h in headings]
    return " and ".join(links) if len(links) == 2 else ", ".join(links)


def split_prefix(line, markdown):
    """(prefix of this line, prefix its continuation lines have, text)."""
    if markdown:
        m = re.match(r"(\s*)(.*)", line)
        prefix, text = m.group(1), m.group(2)
    else:
        m = re.match(r"(\s*(?://[/!]?|#)\s*)(.*)", line)
        if not m:
            return None
        prefix, text = m.group(1), m.group(2)
    mark = LIST_MARK.match(text)
    cont = prefix + " " * len(mark.group(0)) if mark else prefix
    return prefix, cont, text


def is_plain_text(text, markdown):
    if not text.strip() or text.startswith(("```", "|", "#", "<", "---")) or LIST_MARK.match(text):
        return False
    return not (markdown and text.startswith(">"))


def reflow(lines, i, limit, markdown):
    """Push words past `limit` from line i onto the following lines."""
    while len(lines[i]) > limit:
        parts = split_prefix(lines[i], markdown)
        if parts is None:
            return
        prefix, cont, _ = parts
        head = len(prefix) + 8
        # Never inside a Markdown link or a code span: each stays on one line.
        links = [m.span() for m in re.finditer(r"\[[^\]]*\]\([^)]*\)|`[^`]*`", lines[i])]
        spaces = [
            k
            for k in range(head, min(limit, len(lines[i]) - 1) + 1)
            if lines[i][k] == " " and not any(a < k < b for a, b in links)
        ]
        if not spaces:
            return
        cut = spaces[-1]
        moved = lines[i][cut + 1 :]
        lines[i] = lines[i][:cut].rstrip()
        nxt = i + 1
        following = split_prefix(lines[nxt], markdown) if nxt < len(lines) else None
        if following and following[0] == cont and is_plain_text(following[2], markdown):
            limit = max(WIDTH, len(lines[nxt]))
            lines[nxt] = cont + moved + " " + following[2]
        else:
            limit = WIDTH
            lines.insert(nxt, cont + moved)
        i = nxt


ITEM = re.compile(
    r"\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|const\s+|unsafe\s+)*"
    r"(?:fn|struct|enum|const|static|type|impl|trait|mod|union|macro_rules!|use)\b"
)
TYPE_ITEM = re.compile(r"\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum)\b")


def attributes_above(lines, i):
    """The attribute text just above line i (doc comments skipped)."""
    text = []
    k = i - 1
    while k >= 0 and (lines[k].strip().startswith(("#[", "///", ")]", ")")) or lines[k].strip().endswith(",")):
        text.append(lines[k])
        k -= 1
    return "\n".join(text)


def schemars_doc(lines, i):
    """Whether the `///` line i documents a type deriving JsonSchema, or a
    field or variant of one: schemars keeps its line breaks in the schema's
    description, which served documents (and their snapshots) show."""
    j = i
    while j < len(lines) and lines[j].strip().startswith("///"):
        j += 1
    attrs = []
    depth = 0
    while j < len(lines) and (depth > 0 or lines[j].strip().startswith("#[")):
        depth += lines[j].count("[") - lines[j].count("]")
        attrs.append(lines[j])
        j += 1
    if "JsonSchema" in "\n".join(attrs):
        return True
    if j >= len(lines) or ITEM.match(lines[j]):
        return False
    for k in range(i - 1, -1, -1):
        if TYPE_ITEM.match(lines[k]):
            return "JsonSchema" in attributes_above(lines, k)
        if lines[k].startswith("}"):
            return False
    return False


def rewrite(path, problems, doc_lines):
    full = os.path.join(ROOT, path)
    with open(full, encoding="utf-8") as f:
        original = f.read()
    if "§" not in original and 'contract "' not in original:
        return False
    markdown = path.endswith(".md")
    md_target = os.path.relpath(REFERENCE, os.path.dirname(path) or ".") if markdown else None
    lines = original.split("\n")

    # `(BEHAVIOUR` at a line's end, `§x` on the next: bring the `(` down.
    for i in range(len(lines) - 1):
        m = re.search(r"( ?)(\(?)BEHAVIOUR$", lines[i])
        nxt = split_prefix(lines[i + 1], markdown)
        if m and nxt and nxt[2].startswith("§"):
            lines[i] = lines[i][: m.start()].rstrip()
            lines[i + 1] = nxt[0] + m.group(2) + nxt[2]

    changed_at = []
    for i, line in enumerate(lines):
        old = line
        if markdown and line.startswith("#") and ("§" in line):
            problems.append(f"{path}:{i + 1}: a citation in a heading; edit it by hand")
            continue
        line = DROPPED.sub("", line)

        def contract(m):
            name = CONTRACT_SECTIONS.get(m.group("name"))
            if name is None:
                return m.group(0)
            return cite([name], md_target)

        line = CONTRACT.sub(contract, line)

        def token(m):
            before = line[: m.start()]
            if OTHER_SPEC.search(before):
                return m.group(0)
            headings, error = sections_of(m)
            if error:
                problems.append(f"{path}:{i + 1}: {error}")
                return m.group(0)
            return cite(headings, md_target)

        line = TOKEN.sub(token, line)
        # `// ---- §2.1 the query -----`: keep the rule's length.
        rule = re.match(r"(\s*// ---- .*?) (-{3,})$", line)
        if rule and line != old and len(line) > len(old):
            line = rule.group(1) + " " + "-" * max(3, len(rule.group(2)) - (len(line) - len(old)))
        if line != old:
            lines[i] = line
            changed_at.append((i, len(old)))

    # Rewrap from the bottom up so earlier indexes stay valid.
    kept = []
    if not path.endswith(".snap"):
        for i, old_len in reversed(changed_at):
            text = lines[i]
            if markdown and text.lstrip().startswith("|"):
                continue
            if re.match(r"\s*// ---- ", text):
                continue
            if text.lstrip().startswith("///") and schemars_doc(lines, i):
                kept.append(i)
                continue
            reflow(lines, i, max(WIDTH, old_len), markdown)
    for i in kept:
        doc_lines.append(f"{path}: {lines[i].strip()}")

    text = "\n".join(lines)
    if text != original:
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
        return True
    return False


def check():
    problems = []
    anchors = anchors_of(REFERENCE)
    for heading in set(SECTIONS.values()) | set(CONTRACT_SECTIONS.values()):
        if slug(heading) not in anchors:
            problems.append(f"{REFERENCE}: no heading for `{heading}` (#{slug(heading)})")
    for path in tracked_files():
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        for n, line in enumerate(lines, 1):
            for m in TOKEN.finditer(line):
                if not OTHER_SPEC.search(line[: m.start()]):
                    problems.append(f"{path}:{n}: spec citation left: {m.group(0)}")
            if re.search(r"\bBEHAVIOUR\b", line) or "shared/spec" in line or "API_TOOL_CONTRACT" in line:
                problems.append(f"{path}:{n}: points outside the repository: {line.strip()}")
            for m in CONTRACT.finditer(line):
                problems.append(f"{path}:{n}: contract citation left: {m.group(0)}")
            for anchor in CITATION.findall(line):
                if anchor not in anchors:
                    problems.append(f"{path}:{n}: no heading of {REFERENCE} has the anchor #{anchor}")
    # The reference's own links into the other documents.
    with open(os.path.join(ROOT, REFERENCE), encoding="utf-8") as f:
        reference = f.read()
    for target, anchor in re.findall(r"\]\(([\w./-]+\.md)?#([\w-]+)\)", reference):
        path = os.path.normpath(os.path.join("docs", target)) if target else REFERENCE
        if not os.path.exists(os.path.join(ROOT, path)):
            problems.append(f"{REFERENCE}: links to a missing file {path}")
        elif anchor not in anchors_of(path):
            problems.append(f"{REFERENCE}: {path} has no heading with the anchor #{anchor}")
    return problems


def main():
    problems = []
    if "--check" not in sys.argv[1:]:
        doc_lines = []
        changed = [p for p in tracked_files() if rewrite(p, problems, doc_lines)]
        for path in changed:
            print("rewrote", path)
        if doc_lines:
            print("schema doc comments changed and left unwrapped (the text is in served documents):")
            for line in doc_lines:
                print("  ", line)
    problems += check()
    for problem in problems:
        print("problem:", problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
