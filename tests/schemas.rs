//! Issue 17: one versioned JSON model for every command. The published schema
//! (`schemas/report.schema.json`) is the one the library derives from its report types, and the
//! `--json` output of every command (inspect, map, normalize, retarget, convert, batch, validate,
//! report merge), on success and on failure, on fixtures and on the shared real files, validates
//! against it, says `"schema": "skelnorm/2"`, and has counts that add up.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};

fn published() -> Value {
    let path = common::root().join("schemas/report.schema.json");
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

#[test]
fn the_published_schema_is_the_one_the_library_derives() {
    assert!(
        published() == skelnorm::report::json_schema(),
        "schemas/report.schema.json is out of date: regenerate it with \
         `cargo run -- config --json-schema > schemas/report.schema.json`"
    );
    let out = common::skelnorm(&["config", "--json-schema"]);
    assert_eq!(out.status.code(), Some(0));
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        printed,
        published(),
        "`config --json-schema` prints the schema"
    );
}

/// The schema rejects what it should: it is not a schema that takes anything.
#[test]
fn the_schema_rejects_reports_of_another_shape() {
    let v = jsonschema::validator_for(&published()).unwrap();
    let good = serde_json::json!({
        "schema": "skelnorm/2", "command": "validate", "inputs": [],
        "summary": {"files": 0, "ok": 0, "warnings": 0, "failed": 0, "refused": 0, "skipped": 0,
                    "warning_count": 0, "codes": {}, "total_ms": 0.0, "wall_ms": 0.0},
        "files": []
    });
    assert!(v.is_valid(&good), "{:?}", v.iter_errors(&good).next());
    let mut other_version = good.clone();
    other_version["schema"] = "skelnorm/0".into();
    let mut unknown_field = good.clone();
    unknown_field["summary"]["warnings_total"] = 3.into();
    let mut string_warning = good.clone();
    string_warning["files"] = serde_json::json!([{
        "input": "a.glb", "status": "warnings", "time_ms": 1.0,
        "warnings": ["no_tail: `Armature`: LeftToe has no child"]
    }]);
    let mut unknown_code = string_warning.clone();
    unknown_code["files"][0]["warnings"] =
        serde_json::json!([{"code": "not_a_code", "message": "?"}]);
    for (what, bad) in [
        ("another version", other_version),
        ("an unknown field", unknown_field),
        ("a warning as a string", string_warning),
        ("an unknown warning code", unknown_code),
    ] {
        assert!(!v.is_valid(&bad), "the schema accepts {what}");
    }
}

/// Checks one report: valid, versioned, the command named, counts that add up.
fn check(args: &[&str], expect_code: i32, command: &str) -> Value {
    let out = common::skelnorm(args);
    let shown = args.join(" ");
    assert_eq!(
        out.status.code(),
        Some(expect_code),
        "skelnorm {shown}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "skelnorm {shown}: stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    check_report(&report, &shown, command);
    report
}

fn check_report(report: &Value, shown: &str, command: &str) {
    let validator = jsonschema::validator_for(&published()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(report)
        .take(5)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "skelnorm {shown}: {errors:#?}");
    assert_eq!(report["schema"], "skelnorm/2", "{shown}");
    assert_eq!(report["command"], command, "{shown}");
    let files = report["files"].as_array().unwrap();
    let s = &report["summary"];
    let n = |k: &str| s[k].as_u64().unwrap() as usize;
    assert_eq!(n("files"), files.len(), "{shown}: files");
    assert_eq!(
        n("ok") + n("warnings") + n("refused") + n("failed") + n("skipped"),
        files.len(),
        "{shown}: statuses add up"
    );
    let warnings: Vec<&Value> = files
        .iter()
        .flat_map(|f| f["warnings"].as_array().unwrap())
        .collect();
    assert_eq!(n("warning_count"), warnings.len(), "{shown}: warning_count");
    let by_code: u64 = s["codes"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(by_code as usize, warnings.len(), "{shown}: codes add up");
    for f in files {
        let status = f["status"].as_str().unwrap();
        let has = !f["warnings"].as_array().unwrap().is_empty();
        match status {
            "ok" => assert!(!has, "{shown}: `ok` with warnings: {f}"),
            "warnings" => assert!(has, "{shown}: `warnings` without any"),
            "failed" => assert!(f["error"].is_string() && f["failure"].is_string()),
            "refused" => assert!(f["error"].is_string() && f["failure"] == "refused"),
            _ => {}
        }
    }
}

fn fixture(name: &str) -> String {
    common::root()
        .join("fixtures")
        .join(name)
        .display()
        .to_string()
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Every single-file command over every fixture and every shared real input.
#[test]
fn every_single_file_command_prints_a_valid_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs: Vec<PathBuf> = common::fixtures();
    inputs.extend(common::input_assets().unwrap_or_default());
    for (i, input) in inputs.iter().enumerate() {
        let input = s(input);
        let r = check(&["inspect", &input, "--json"], 0, "inspect");
        assert!(r["files"][0]["inspect"]["skeletons"].is_array(), "{input}");
        // map: 0 for a humanoid, 3 for anything else (partial, or no skeleton).
        let out = common::skelnorm(&["map", &input, "--json"]);
        let code = out.status.code().unwrap();
        assert!(code == 0 || code == 3, "map {input}: exit {code}");
        let r = check(&["map", &input, "--json"], code, "map");
        if code == 3 {
            assert_eq!(r["files"][0]["status"], "refused", "map {input}");
        } else {
            assert!(r["files"][0]["map"].is_array(), "map {input}");
        }
        let out_glb = s(&dir.path().join(format!("{i}.glb")));
        let out = common::skelnorm(&["normalize", &input, "-o", &out_glb, "--json"]);
        let code = out.status.code().unwrap();
        let r = check(
            &["normalize", &input, "-o", &out_glb, "--json"],
            code,
            "normalize",
        );
        match code {
            0 => assert!(r["files"][0]["normalize"]["skeletons"].is_array()),
            2 | 3 => assert_eq!(
                r["files"][0]["failure"],
                if code == 3 { "refused" } else { "usage" }
            ),
            _ => panic!("normalize {input}: exit {code}"),
        }
        let converted = s(&dir.path().join(format!("{i}.gltf")));
        let r = check(&["convert", &input, &converted, "--json"], 0, "convert");
        assert_eq!(r["files"][0]["convert"]["to"], "gltf");
    }
}

#[test]
fn retarget_reports_carry_the_plan_the_clips_and_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let (src, tgt) = (fixture("mixamo.glb"), fixture("long_legs.glb"));
    let out = s(&dir.path().join("out.glb"));
    let report_file = dir.path().join("report.json");
    // The target has a `walk` already: refused on request, a usage failure, reported.
    let r = check(
        &[
            "retarget",
            "--source",
            &src,
            "--target",
            &tgt,
            "-o",
            &out,
            "--json",
            "--on-clash",
            "refuse",
        ],
        2,
        "retarget",
    );
    assert!(r["files"][0]["error"]
        .as_str()
        .unwrap()
        .contains("--suffix"));
    let r = check(
        &[
            "retarget",
            "--source",
            &src,
            "--target",
            &tgt,
            "-o",
            &out,
            "--suffix",
            " (mixamo)",
            "--json",
            "--report",
            &s(&report_file),
        ],
        0,
        "retarget",
    );
    // By default the new `walk` is renamed, and the report (valid against the schema) names the
    // target's clip it clashed with.
    let renamed = check(
        &[
            "retarget", "--source", &src, "--target", &tgt, "-o", &out, "--json",
        ],
        0,
        "retarget",
    );
    let clip = &renamed["files"][0]["retarget"]["clips"][0];
    assert_eq!(clip["clashed_with"], "walk", "{clip}");
    let f = &r["files"][0];
    assert_eq!(f["input"], src.as_str());
    assert_eq!(f["target"], tgt.as_str());
    assert!(!f["retarget"]["clips"].as_array().unwrap().is_empty());
    let from_file: Value = serde_json::from_slice(&std::fs::read(&report_file).unwrap()).unwrap();
    assert_eq!(
        from_file["files"][0]["retarget"], f["retarget"],
        "--report holds the same"
    );
    // A clip the source does not have: a usage failure, reported.
    let r = check(
        &[
            "retarget", "--source", &src, "--target", &tgt, "-o", &out, "--clip", "nope", "--json",
        ],
        2,
        "retarget",
    );
    assert_eq!(r["files"][0]["failure"], "usage");
    // A BVH output.
    let bvh = s(&dir.path().join("out.bvh"));
    let r = check(
        &[
            "retarget", "--source", &src, "--target", &tgt, "-o", &bvh, "--clip", "walk",
            "--suffix", "2", "--json",
        ],
        0,
        "retarget",
    );
    assert_eq!(r["files"][0]["output"], bvh.as_str());
}

#[test]
fn failures_print_a_report_too() {
    let dir = tempfile::tempdir().unwrap();
    let missing = s(&dir.path().join("missing.glb"));
    let out = s(&dir.path().join("out.glb"));
    for (args, code, command, kind) in [
        (vec!["inspect", &missing, "--json"], 1, "inspect", "file"),
        (vec!["map", &missing, "--json"], 1, "map", "file"),
        (
            vec!["normalize", &missing, "-o", &out, "--json"],
            1,
            "normalize",
            "file",
        ),
        (
            vec!["convert", &missing, &out, "--json"],
            1,
            "convert",
            "file",
        ),
        (vec!["validate", &missing, "--json"], 1, "validate", "file"),
    ] {
        let r = check(&args, code, command);
        assert_eq!(r["files"][0]["status"], "failed");
        assert_eq!(r["files"][0]["failure"], kind);
        assert!(
            r["files"][0]["error"]
                .as_str()
                .unwrap()
                .contains("missing.glb"),
            "the error names the file: {r}"
        );
    }
    // Refused: a quadruped is no humanoid (exit 3).
    if let Some(fox) = common::asset("khronos/Fox.glb") {
        let r = check(
            &["normalize", &s(&fox), "-o", &out, "--json"],
            3,
            "normalize",
        );
        assert_eq!(r["files"][0]["failure"], "refused");
    }
    // Nothing to do: a folder with no supported file (exit 4): the other files are listed.
    let empty = dir.path().join("nothing");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "hello").unwrap();
    std::fs::write(empty.join("chair.obj"), "v 0 0 0\n").unwrap();
    let r = check(&["validate", &s(&empty), "--json"], 4, "validate");
    let files = r["files"].as_array().unwrap();
    assert_eq!(
        files.len(),
        1,
        "the .obj is listed, the companion .txt is not: {r}"
    );
    assert_eq!(files[0]["status"], "skipped");
    assert!(files[0]["input"].as_str().unwrap().ends_with("chair.obj"));
    // Skipped: the output exists and --existing skip.
    std::fs::write(&out, b"x").unwrap();
    let r = check(
        &[
            "normalize",
            &fixture("mixamo.glb"),
            "-o",
            &out,
            "--existing",
            "skip",
            "--json",
        ],
        0,
        "normalize",
    );
    assert_eq!(r["files"][0]["status"], "skipped");
}

/// batch and validate over fixtures and the shared files, shards merged: one report shape.
#[test]
fn batch_validate_and_merge_print_valid_reports() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = s(&common::root().join("fixtures"));
    // The quadruped fixture is refused (exit 3), the others pass.
    let r = check(&["validate", &fixtures, "--json", "-q"], 3, "validate");
    assert!(r["summary"]["files"].as_u64().unwrap() >= 10);
    assert_eq!(
        (&r["summary"]["refused"], &r["summary"]["failed"]),
        (&1.into(), &0.into()),
        "{}",
        r["summary"]
    );
    if let Some(assets) = common::assets() {
        let shared = s(&common::root().join("../shared/assets"));
        let out = common::skelnorm(&["validate", &shared, "--json", "-q"]);
        let code = out.status.code().unwrap();
        let r = check(&["validate", &shared, "--json", "-q"], code, "validate");
        let warnings = r["summary"]["warning_count"].as_u64().unwrap();
        assert!(warnings > 0, "the real files have warnings to report");
        let with_skeleton = r["files"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["warnings"].as_array().unwrap())
            .filter(|w| w["skeleton"].is_string())
            .count();
        assert!(with_skeleton > 0, "stage warnings name their skeleton");
        eprintln!("{} shared files: {warnings} warnings", assets.len());
    } else {
        eprintln!("skipped the shared files: ../shared/assets is absent");
    }
    let mut shards = Vec::new();
    for k in 0..2 {
        let out_dir = s(&dir.path().join(format!("out{k}")));
        let report = dir.path().join(format!("shard{k}.json"));
        let shard = format!("{k}/2");
        let args = [
            "batch",
            &fixtures,
            "-o",
            &out_dir,
            "--shard",
            &shard,
            "--report",
            &s(&report),
            "--json",
            "-q",
        ];
        // The shard that holds the quadruped fixture exits 3 (refused), the other 0.
        let code = common::skelnorm(&args).status.code().unwrap();
        assert!(code == 0 || code == 3, "batch shard {shard}: exit {code}");
        check(&args, code, "batch");
        let from_file: Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        check_report(&from_file, "batch --report", "batch");
        shards.push(s(&report));
    }
    // batch --retarget-to: each file's clips onto one character; its reports name the target.
    let onto = fixture("long_legs.glb");
    let out_dir = s(&dir.path().join("retargeted"));
    let args = [
        "batch",
        &fixtures,
        "-o",
        &out_dir,
        "--retarget-to",
        &onto,
        "--json",
        "-q",
    ];
    let code = common::skelnorm(&args).status.code().unwrap();
    assert!(code == 0 || code == 3, "batch --retarget-to: exit {code}");
    let r = check(&args, code, "batch");
    let retargeted: Vec<&Value> = r["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["retarget"].is_object())
        .collect();
    assert!(retargeted.len() >= 5, "{}", r["summary"]);
    assert!(retargeted.iter().all(|f| f["target"] == onto.as_str()));
    let merged = s(&dir.path().join("all.json"));
    let r = check(
        &[
            "report", "merge", &shards[0], &shards[1], "-o", &merged, "--json",
        ],
        0,
        "merge",
    );
    assert!(r["summary"]["files"].as_u64().unwrap() >= 10);
    assert_eq!(
        r["summary"]["refused"], 1,
        "the quadruped, in one shard or the other"
    );
    // A report of another version is refused.
    let mut old: Value = serde_json::from_slice(&std::fs::read(&shards[0]).unwrap()).unwrap();
    old["schema"] = "skelnorm/0".into();
    let old_file = dir.path().join("old.json");
    std::fs::write(&old_file, old.to_string()).unwrap();
    let out = common::skelnorm(&["report", "merge", &s(&old_file), "-o", &merged]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("skelnorm/0"));
}

/// Figures are written as the stages compute them: an `f32` as its shortest decimal (`0.85`),
/// never widened to the `f64` nearest it (`0.8500000238418579`).
#[test]
fn figures_are_short_decimals() {
    let out = common::skelnorm(&["map", &fixture("mixamo.glb"), "--json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"confidence\": 0.85"), "{text}");
    assert!(
        !text.contains("0.8500000238418579"),
        "widened f32 in the report"
    );
}

/// Issue 21: `mirror --json` reports the pairs, the plane and the clips, and validates on
/// success and on failure (a clip that does not exist: usage, exit 2).
#[test]
fn mirror_reports_validate() {
    let dir = tempfile::tempdir().unwrap();
    let (input, out) = (fixture("mixamo.glb"), s(&dir.path().join("out.glb")));
    let r = check(&["mirror", &input, "-o", &out, "--json"], 0, "mirror");
    let sk = &r["files"][0]["mirror"]["skeletons"][0];
    assert_eq!(sk["normal"], serde_json::json!([1.0, 0.0, 0.0]));
    assert_eq!(sk["clips"].as_array().unwrap().len(), 3);
    let r = check(
        &["mirror", &input, "-o", &out, "--clip", "run", "--json"],
        2,
        "mirror",
    );
    assert_eq!(r["files"][0]["failure"], "usage");
}
