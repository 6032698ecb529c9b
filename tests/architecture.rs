//! The dependency direction of `../shared/design/style.md`: each module imports only modules to
//! its left (`model` nothing of ours, `gltf_io` only `model`, stages never `gltf_io`), and only
//! the binary prints.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

use std::collections::BTreeSet;
use std::path::Path;

/// `crate::x` modules named in the `use` lines of every file under `dir`.
fn imports(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let files: Vec<_> = if dir.is_dir() {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.into_path())
            .collect()
    } else {
        vec![dir.with_extension("rs")]
    };
    for file in files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        // A module's unit tests may measure with a module to its right (`rest` tests use `check`).
        .filter(|p| p.file_name().is_none_or(|n| n != "tests.rs"))
    {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines().map(str::trim) {
            for part in line.split("crate::").skip(1) {
                let module: String = part
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if line.starts_with("use ") || line.contains("crate::") {
                    out.insert(module);
                }
            }
        }
    }
    out
}

#[test]
fn modules_import_only_to_their_left() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let allowed: &[(&str, &[&str])] = &[
        ("model", &["model"]),
        ("gltf_io", &["model"]),
        ("bvh_io", &["model"]),
        ("fbx_io", &["model", "gltf_io"]),
        ("io", &["model", "gltf_io", "fbx_io", "bvh_io"]),
        ("bvh_io", &["model"]),
        ("profile", &["model"]),
        ("mapping", &["model", "profile"]),
        ("inspect", &["model", "profile", "mapping"]),
        ("rest", &["model", "profile", "mapping"]),
        ("tracks", &["model", "profile", "mapping", "rest"]),
        ("rename", &["model", "profile", "mapping"]),
        ("retarget", &["model", "profile", "mapping", "rest"]),
        ("mirror", &["model", "profile", "mapping"]),
        (
            "check",
            &["model", "profile", "mapping", "rest", "retarget"],
        ),
        (
            "pipeline",
            &[
                "model", "profile", "mapping", "rest", "tracks", "rename", "retarget", "check",
                "mirror",
            ],
        ),
        (
            "settings",
            &[
                "profile", "mapping", "rest", "tracks", "rename", "retarget", "pipeline",
            ],
        ),
        (
            "report",
            &[
                "model", "gltf_io", "inspect", "pipeline", "mapping", "rest", "tracks", "rename",
                "check",
            ],
        ),
        (
            "jobs",
            &[
                "model", "gltf_io", "bvh_io", "io", "profile", "mapping", "inspect", "mirror",
                "retarget", "check", "pipeline", "report",
            ],
        ),
        (
            "batch",
            &[
                "gltf_io", "io", "jobs", "pipeline", "settings", "report", "mapping", "profile",
                "model",
            ],
        ),
    ];
    for (module, ok) in allowed {
        let used = imports(&src.join(module));
        let bad: Vec<_> = used
            .iter()
            .filter(|m| !ok.contains(&m.as_str()) && *m != module)
            .collect();
        assert!(
            bad.is_empty(),
            "`{module}` imports {bad:?}; it may import only {ok:?}"
        );
    }
}

#[test]
fn library_code_never_prints() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in walkdir::WalkDir::new(&src)
        .into_iter()
        .filter_map(Result::ok)
    {
        let path = entry.path();
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .to_string();
        if rel.starts_with("cli") || rel == "main.rs" || path.extension().is_none_or(|e| e != "rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for bad in ["println!", "eprintln!", "print!(", "dbg!("] {
            assert!(!text.contains(bad), "{rel} uses {bad}: only the CLI prints");
        }
    }
}

/// The names `files` import from `crate::<module>` (the identifiers after `crate::<module>::`,
/// braces expanded; nested paths give their last segment).
fn names_from(files: &[std::path::PathBuf], module: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let prefix = format!("crate::{module}::");
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        for (at, _) in text.match_indices(&prefix) {
            let rest = &text[at + prefix.len()..];
            let path: String = if rest.starts_with('{') {
                rest[1..rest.find('}').unwrap_or(rest.len())].to_string()
            } else {
                rest.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect()
            };
            for item in path.split(',') {
                let last = item.trim().rsplit("::").next().unwrap_or("").trim();
                let name = last.split(" as ").next().unwrap_or("").trim();
                if !name.is_empty() && name != "self" {
                    out.insert(name.to_string());
                }
            }
        }
    }
    out
}

/// Issue 20: stages do not import each other's helpers. A stage may use another stage's data
/// types (a bone map, a plan, options) and its one entry function, never its helper functions
/// or constants; shared math lives in `model`, shared profile rules in `profile`.
#[test]
fn stages_import_only_each_others_types_and_entry_points() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let stages = [
        "mapping", "rest", "tracks", "rename", "retarget", "check", "mirror",
    ];
    let entry: &[(&str, &[&str])] = &[
        ("mapping", &["map_skeleton"]),
        ("retarget", &["retarget_clip"]),
    ];
    for stage in stages {
        let files: Vec<_> = walkdir::WalkDir::new(src.join(stage))
            .into_iter()
            .filter_map(Result::ok)
            .map(|e| e.into_path())
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .filter(|p| {
                p.file_name()
                    .is_none_or(|n| n != "tests.rs" && n != "testing.rs")
            })
            .collect();
        for other in stages.iter().filter(|o| **o != stage) {
            let allowed = entry
                .iter()
                .find(|(m, _)| m == other)
                .map_or(&[][..], |(_, e)| e);
            let helpers: Vec<String> = names_from(&files, other)
                .into_iter()
                .filter(|n| {
                    !n.starts_with(|c: char| c.is_ascii_uppercase())
                        || n.chars().all(|c| !c.is_lowercase())
                })
                .filter(|n| !allowed.contains(&n.as_str()))
                .collect();
            assert!(
                helpers.is_empty(),
                "`{stage}` imports helpers {helpers:?} from `{other}`: move shared code to `model` or `profile`"
            );
        }
    }
}

/// Issue 44: the command line only parses, calls one library job, and prints. It reads and writes
/// no file through `gltf_io` (the jobs do), and each of its files stays short.
#[test]
fn the_command_line_only_parses_calls_and_prints() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    for entry in std::fs::read_dir(&cli).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display();
        assert!(
            !text.contains("gltf_io"),
            "{name} uses gltf_io: call a `jobs` function"
        );
        assert!(
            ![
                "thread::scope",
                "thread::spawn",
                "spawn_scoped",
                "ManuallyDrop"
            ]
            .iter()
            .any(|t| text.contains(t)),
            "{name} starts threads or keeps memory: that belongs in the library"
        );
        let lines = text.lines().count();
        assert!(lines <= 300, "{name} has {lines} lines (300 at most)");
    }
}
