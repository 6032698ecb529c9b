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

/// Every fixture and real input file (the real ones when ../shared is there).
fn inputs() -> Vec<std::path::PathBuf> {
    let mut files = common::fixtures();
    files.extend(common::input_assets().unwrap_or_default());
    files
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
    for file in inputs() {
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
    for file in inputs() {
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
    let fixtures = common::root().join("fixtures");
    let runs: Vec<_> = ["1", "2"]
        .iter()
        .map(|jobs| {
            let out = dir.path().join(format!("jobs{jobs}"));
            let run = common::skelnorm(&[
                "batch",
                fixtures.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "-q",
                "--jobs",
                jobs,
            ]);
            assert!(run.status.code().is_some_and(|c| c <= 1));
            out
        })
        .collect();
    for file in common::fixtures() {
        let name = file.file_name().unwrap();
        let (one, two) = (runs[0].join(name), runs[1].join(name));
        if one.exists() || two.exists() {
            assert!(
                std::fs::read(&one).unwrap() == std::fs::read(&two).unwrap(),
                "{}: --jobs 1 and --jobs 2 differ",
                name.to_string_lossy()
            );
        }
    }
}
