//! The README and `docs/` stay true to the tree: the README stays short and names every
//! tool and every folder of `src/`, CI runs the test command the README gives, and every
//! link between the documents (file and heading) resolves. Pure file reads: no tmux.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The part of `text` from the heading line `heading` to the next heading of the same or a
/// higher level.
fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(&format!("\n{heading}\n"))
        .unwrap_or_else(|| panic!("no heading {heading:?}"));
    let level = heading.split(' ').next().unwrap_or("##");
    let body = &text[start + heading.len() + 2..];
    let end = body
        .lines()
        .scan(0, |at, l| {
            let here = *at;
            *at += l.len() + 1;
            Some((here, l))
        })
        .find(|(_, l)| {
            let hashes = l.len() - l.trim_start_matches('#').len();
            hashes > 0 && hashes <= level.len() && l[hashes..].starts_with(' ')
        })
        .map_or(body.len(), |(at, _)| at);
    &body[..end]
}

/// The names of `names` that `text` does not write as code (`` `name` ``).
fn unnamed<'a>(names: &'a [String], text: &str) -> Vec<&'a String> {
    names
        .iter()
        .filter(|n| !text.contains(&format!("`{n}`")))
        .collect()
}

#[test]
fn the_readme_is_read_in_five_minutes() {
    let lines = read("README.md").lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines (at most 250: move reference to docs/)"
    );
}

#[test]
fn the_readme_names_every_tool() {
    let readme = read("README.md");
    let glance = section(&readme, "## The tools at a glance");
    let mut names: Vec<String> = tmuxwire::mcp::tools::catalog()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.push("list_hosts".into());
    let missing = unnamed(&names, glance);
    assert!(
        missing.is_empty(),
        "README.md's tools at a glance miss {missing:?}"
    );
}

/// Every directory under `src/`, as `src/a/b/`.
fn src_folders(dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    for p in entries {
        let rel = p.strip_prefix(ROOT).expect("under the root");
        out.push(format!("{}/", rel.display()));
        src_folders(&p, out);
    }
}

/// The README's section `heading` from the first `marker` in it on.
fn readme_after(heading: &str, marker: &str) -> String {
    let readme = read("README.md");
    let part = section(&readme, heading);
    let (_, rest) = part
        .split_once(marker)
        .unwrap_or_else(|| panic!("README.md: no {marker:?} under {heading:?}"));
    rest.to_string()
}

/// The first ```sh block of `text`.
fn first_block(text: &str) -> &str {
    text.split_once("```sh\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map_or("", |(block, _)| block)
}

#[test]
fn the_readme_says_where_to_start_reading_in_every_folder() {
    let list = readme_after("## How it works", "**Where to start reading**");
    let mut folders = Vec::new();
    src_folders(&Path::new(ROOT).join("src"), &mut folders);
    let missing = unnamed(&folders, &list);
    assert!(
        missing.is_empty(),
        "README.md's 'Where to start reading' names no {missing:?}: add a line for each"
    );
}

/// The README's test command is the only line of the code block that follows "Run the
/// tests"; `.ci/run` must run it (after its environment settings).
#[test]
fn ci_runs_the_test_command_the_readme_gives() {
    let block = first_block(&readme_after("## Quick start", "Run the tests")).to_string();
    let commands: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        commands.len(),
        1,
        "one command runs the tests: {commands:?}"
    );
    let command = commands[0].split('#').next().unwrap_or("").trim();
    let ci = read(".ci/run");
    let runs = ci.lines().any(|l| {
        let code = l.split('#').next().unwrap_or("");
        code.split(" || ").any(|part| {
            let part = part.trim();
            part == command || part.ends_with(&format!(" {command}"))
        })
    });
    assert!(
        runs,
        ".ci/run never runs the README's test command {command:?}"
    );
    // The first commands are the set-up and the main job.
    let quick = readme_after("## Quick start", "");
    let first = first_block(&quick);
    assert!(
        first.contains("tmuxwire mcp"),
        "the first block runs the main job: {first}"
    );
}

/// GitHub's anchor for a heading: lower case, punctuation dropped but `-` and `_`, spaces
/// as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a Markdown text outside its code blocks.
fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |l| {
        if l.starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

/// The anchors of a Markdown file's headings (outside code blocks), with GitHub's `-1`,
/// `-2` for repeats.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen = HashSet::new();
    for l in prose_lines(text).filter(|l| l.starts_with('#')) {
        let title = l.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let base = slug(title);
        let mut s = base.clone();
        let mut n = 0;
        while seen.contains(&s) {
            n += 1;
            s = format!("{base}-{n}");
        }
        seen.insert(s);
    }
    seen
}

/// The relative link targets `](…)` of a Markdown text, outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for l in prose_lines(text) {
        let mut rest = l;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_string());
            }
            rest = &rest[end..];
        }
    }
    out
}

#[test]
fn every_link_between_the_documents_resolves() {
    let mut docs = vec![PathBuf::from("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(ROOT).expect("under the root").to_path_buf())
        .collect();
    more.sort();
    docs.extend(more);
    let mut broken = Vec::new();
    for doc in &docs {
        let text = read(&doc.to_string_lossy());
        for link in links(&text) {
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap_or(Path::new("")).join(file)
            };
            let path = Path::new(ROOT).join(&target);
            if !path.exists() {
                broken.push(format!("{}: {link} (no file)", doc.display()));
                continue;
            }
            if !anchor.is_empty() {
                let target_text = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&target_text).contains(anchor) {
                    broken.push(format!("{}: {link} (no such heading)", doc.display()));
                }
            }
        }
        if text.contains("../shared") {
            broken.push(format!(
                "{}: a path into ../shared, which users do not have",
                doc.display()
            ));
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(
        slug(" Against libtmux-mcp (mcpbench)"),
        "against-libtmux-mcp-mcpbench"
    );
    assert_eq!(slug(" `capture_pane`"), "capture_pane");
    let a = anchors("# A\n## B\n```\n# not\n```\n## B\n");
    assert!(a.contains("a") && a.contains("b") && a.contains("b-1") && !a.contains("not"));
    assert_eq!(
        links("[x](a.md#b) [y](https://e.org) `](c)`"),
        ["a.md#b", "c"]
    );
}
