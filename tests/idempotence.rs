//! Issue 16: normalizing a normalized file changes nothing (byte for byte), and the same input
//! gives the same bytes on every run and with any number of jobs: on every fixture and every
//! real file in ../shared/assets (glTF, VRM, VRMA, FBX, BVH).
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::Path;

fn normalize(input: &Path, output: &Path) {
    let out = common::skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Normalizes `input` into `output`; false when it is refused as no humanoid (exit 3).
fn try_normalize(input: &Path, output: &Path) -> bool {
    let out = common::skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
    ]);
    if out.status.code() == Some(3) {
        return false;
    }
    assert!(
        out.status.success(),
        "{}: {}",
        input.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    true
}

#[test]
fn normalizing_a_normalized_file_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for file in common::all_inputs() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let (once, twice) = (dir.path().join("1.glb"), dir.path().join("2.glb"));
        if !try_normalize(&file, &once) {
            continue; // not a humanoid (the quadruped, the foxes, RiggedSimple, SimpleSkin)
        }
        normalize(&once, &twice);
        assert!(
            std::fs::read(&once).unwrap() == std::fs::read(&twice).unwrap(),
            "{name}: the second normalization changed the file"
        );
        checked += 1;
    }
    assert!(checked >= 11, "only {checked} files normalized");
}

#[test]
fn the_same_input_gives_the_same_bytes_on_every_run_and_with_any_jobs() {
    let dir = tempfile::tempdir().unwrap();
    for file in common::all_inputs() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let (a, b) = (dir.path().join("a.glb"), dir.path().join("b.glb"));
        if !try_normalize(&file, &a) {
            continue; // not a humanoid
        }
        normalize(&file, &b);
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{name}: two runs differ"
        );
    }
    // --jobs 1 and --jobs 2 over the fixtures and the real assets: the same files, the same
    // bytes.
    let mut folders = vec![common::root().join("fixtures")];
    if let Some(first) = common::input_assets().and_then(|a| a.first().cloned()) {
        folders.push(first.parent().unwrap().parent().unwrap().to_path_buf());
    }
    for (k, folder) in folders.iter().enumerate() {
        let runs: Vec<_> = ["1", "2"]
            .iter()
            .map(|jobs| {
                let out = dir.path().join(format!("{k}_jobs{jobs}"));
                let run = common::skelnorm(&[
                    "batch",
                    folder.to_str().unwrap(),
                    "-o",
                    out.to_str().unwrap(),
                    "-q",
                    "--jobs",
                    jobs,
                ]);
                // Non-humanoids (the quadruped, the foxes) are refused: exit 3.
                assert_eq!(run.status.code(), Some(3), "{}", folder.display());
                out
            })
            .collect();
        let (one, two) = (files_under(&runs[0]), files_under(&runs[1]));
        assert!(
            one.len() >= 10,
            "{}: only {} outputs",
            folder.display(),
            one.len()
        );
        assert_eq!(
            one.keys().collect::<Vec<_>>(),
            two.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &one {
            assert!(
                two[name] == *bytes,
                "{}: --jobs 1 and --jobs 2 differ",
                name.display()
            );
        }
    }
}

/// Every file below `dir` (relative path → bytes), reports left out (they hold times).
fn files_under(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, Vec<u8>> {
    let mut files = common::file_bytes(dir);
    files.retain(|p, _| p.extension().is_some_and(|x| x != "json" && x != "html"));
    files
}
