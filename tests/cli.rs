//! The command line: exit codes, error messages, and output to a closed pipe.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn exit_codes() {
    assert_eq!(common::skelnorm(&["--help"]).status.code(), Some(0));
    assert_eq!(common::skelnorm(&["--version"]).status.code(), Some(0));
    assert_eq!(common::skelnorm(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(common::skelnorm(&["inspect"]).status.code(), Some(2));
    let missing = common::skelnorm(&["inspect", "no/such/file.glb"]);
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.starts_with("skelnorm: no/such/file.glb: "), "{err}");
    let folder = common::skelnorm(&["inspect", common::root().join("fixtures").to_str().unwrap()]);
    assert_eq!(folder.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&folder.stderr).contains("it is a folder"));
}

#[test]
fn a_closed_pipe_is_not_a_panic() {
    // Regression: `skelnorm inspect x | head -1` panicked with "failed printing to stdout".
    for json in [false, true] {
        let mut args = vec!["inspect"];
        if json {
            args.push("--json");
        }
        let file = common::root().join("fixtures/ue_zup.glb");
        args.push(file.to_str().unwrap());
        let mut child = Command::new(env!("CARGO_BIN_EXE_skelnorm"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // then drop: the pipe closes
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn inspect_json_reports_the_glance() {
    let file = common::root().join("fixtures/mixamo.glb");
    let out = common::skelnorm(&["inspect", "--json", file.to_str().unwrap()]);
    let v = common::file_stage(&serde_json::from_slice(&out.stdout).unwrap(), "inspect");
    let g = &v["skeletons"][0]["glance"];
    assert_eq!(
        (g["offset_units"].as_str(), g["pose"].as_str()),
        (Some("cm"), Some("A-pose"))
    );
    assert_eq!(v["skeletons"][0]["naming"], "Mixamo");
    assert_eq!(v["clips"].as_array().unwrap().len(), 3);
}

/// Run by the test below (ignored otherwise): an outside check asked for twice with no outside
/// tools installed.
#[test]
#[ignore = "run by plain_cargo_test_says_once_which_outside_checks_did_not_run"]
fn an_outside_check_without_its_tool() {
    let f = common::root().join("fixtures/mixamo.glb");
    assert!(common::three_check(&f, &f).is_none());
    assert!(common::three_check(&f, &f).is_none());
}

/// A plain `cargo test` (output captured, no outside tools) still says which outside checks did
/// not run: once per test binary, past libtest's capture.
#[test]
fn plain_cargo_test_says_once_which_outside_checks_did_not_run() {
    let exe = std::env::current_exe().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(exe)
        .args(["--ignored", "--exact", "an_outside_check_without_its_tool"])
        .env("SKELNORM_TOOLS", empty.path())
        .env_remove("SKELNORM_REQUIRE_TOOLS")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err.matches("skipped: three.js vertex check").count(),
        1,
        "stderr: {err}"
    );
}
