//! Issue 20: one resolver from flags and settings files to options. The same settings file has the
//! same effect in `normalize`, `retarget` and `batch` (and `validate`): a bone map it names is
//! honoured by each, a bone map that does not exist is a usage error (exit 2) in each, and a
//! relative path in a settings file starts at the settings file's folder.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use common::skelnorm;
use std::path::Path;

/// Writes `settings.ron` into `dir`, and a bone map beside it that leaves the left little
/// finger unmapped (its bones keep their names where they would take profile names).
fn settings_with_bone_map(dir: &Path, bone_map: &str) -> std::path::PathBuf {
    std::fs::write(
        dir.join("pinky.ron"),
        r#"(profile: "humanoid", bones: {}, unmapped: ["LeftLittleProximal", "LeftLittleIntermediate", "LeftLittleDistal"])"#,
    )
    .unwrap();
    let settings = dir.join("settings.ron");
    std::fs::write(&settings, format!("(map: (bone_map: Some({bone_map:?})))")).unwrap();
    settings
}

/// The node names of a written file.
fn names(file: &Path) -> Vec<String> {
    let doc = skelnorm::gltf_io::read(file).unwrap();
    doc.model
        .skeletons
        .iter()
        .flat_map(|s| s.bones.iter().map(|b| b.name.clone()))
        .collect()
}

/// What each command wrote with `--settings settings`: the normalized file's bone names for
/// normalize, retarget (the target is written normalized) and batch; and the exit codes.
/// One command's run: its name, exit code, stderr and the bone names of what it wrote.
type Run = (&'static str, Option<i32>, String, Option<Vec<String>>);

fn run_all(dir: &Path, settings: &Path) -> Vec<Run> {
    let mixamo = common::root().join("fixtures/mixamo.glb");
    let (m, s) = (mixamo.to_str().unwrap(), settings.to_str().unwrap());
    let out = |name: &str| dir.join(name);
    let input = dir.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(&mixamo, input.join("mixamo.glb")).unwrap();
    let runs: Vec<(&'static str, Vec<String>, std::path::PathBuf)> = vec![
        (
            "normalize",
            vec![
                "normalize".into(),
                m.into(),
                "-o".into(),
                out("n.glb").display().to_string(),
            ],
            out("n.glb"),
        ),
        (
            "retarget",
            vec![
                "retarget".into(),
                "--source".into(),
                m.into(),
                "--target".into(),
                m.into(),
                "--suffix".into(),
                " again".into(),
                // The normalized target, whose names show what the bone map did.
                "--normalized".into(),
                "-o".into(),
                out("r.glb").display().to_string(),
            ],
            out("r.glb"),
        ),
        (
            "batch",
            vec![
                "batch".into(),
                input.display().to_string(),
                "-o".into(),
                out("b").display().to_string(),
                "-q".into(),
                "--existing".into(),
                "overwrite".into(),
            ],
            out("b/mixamo.glb"),
        ),
        (
            "validate",
            vec!["validate".into(), input.display().to_string(), "-q".into()],
            dir.join("no output"),
        ),
    ];
    runs.into_iter()
        .map(|(name, mut args, written)| {
            let _ = std::fs::remove_file(&written);
            args.extend(["--settings".to_string(), s.to_string()]);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            let run = skelnorm(&refs);
            let err = String::from_utf8_lossy(&run.stderr).to_string();
            (
                name,
                run.status.code(),
                err,
                written.is_file().then(|| names(&written)),
            )
        })
        .collect()
}

#[test]
fn a_settings_files_bone_map_is_honoured_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    // A relative path, from another working directory: it starts at the settings file's folder.
    let settings = settings_with_bone_map(dir.path(), "pinky.ron");
    for (command, code, err, written) in run_all(dir.path(), &settings) {
        assert_eq!(code, Some(0), "{command}: {err}");
        if command == "validate" {
            continue;
        }
        let written = written.unwrap_or_else(|| panic!("{command} wrote nothing"));
        assert!(
            written.iter().any(|n| n == "mixamorig:LeftHandPinky1")
                && !written.iter().any(|n| n == "LeftLittleProximal"),
            "{command}: the bone map's unmapped finger was renamed: {written:?}"
        );
        assert!(
            written.iter().any(|n| n == "LeftIndexProximal"),
            "{command}: the other bones take profile names: {written:?}"
        );
    }
}

#[test]
fn a_settings_file_naming_a_missing_bone_map_is_a_usage_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_with_bone_map(dir.path(), "no_such_map.ron");
    for (command, code, err, written) in run_all(dir.path(), &settings) {
        assert_eq!(code, Some(2), "{command}: {err}");
        assert!(err.contains("no_such_map.ron"), "{command}: {err}");
        assert!(written.is_none(), "{command} wrote an output");
    }
}

/// Issue 16: retargeting takes a bone map per side (`--source-bone-map`, `--target-bone-map`, the
/// settings' `map.source_bone_map` and `map.target_bone_map`, and `batch --target-bone-map`).
#[test]
fn retarget_takes_a_bone_map_per_side() {
    let dir = tempfile::tempdir().unwrap();
    settings_with_bone_map(dir.path(), "pinky.ron");
    let pinky = dir.path().join("pinky.ron");
    let mixamo = common::root().join("fixtures/mixamo.glb");
    let (m, p) = (mixamo.to_str().unwrap(), pinky.to_str().unwrap());
    let out = dir.path().join("r.glb");
    let retarget = |extra: &[&str]| {
        let o = out.to_str().unwrap();
        let mut args = vec![
            "retarget",
            "--source",
            m,
            "--target",
            m,
            "--suffix",
            " again",
            "--json",
            "-o",
            o,
            "--normalized",
        ];
        args.extend_from_slice(extra);
        let run = skelnorm(&args);
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let report = common::file_stage(&serde_json::from_slice(&run.stdout).unwrap(), "retarget");
        (names(&out), report)
    };
    let unmatched = |report: &serde_json::Value| -> Vec<String> {
        report["plan"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["code"] == "chain_unmatched")
            .map(|w| w["chain"].as_str().unwrap().to_string())
            .collect()
    };
    // On the target only: its little finger keeps its name; the chain has nothing to drive.
    let (written, report) = retarget(&["--target-bone-map", p]);
    assert!(
        written.iter().any(|n| n == "mixamorig:LeftHandPinky1"),
        "{written:?}"
    );
    assert!(!unmatched(&report).contains(&"LeftLittle".to_string()));
    // On the source only: the target's finger is renamed, and no source chain drives it.
    let (written, report) = retarget(&["--source-bone-map", p]);
    assert!(
        written.iter().any(|n| n == "LeftLittleProximal"),
        "{written:?}"
    );
    assert!(
        unmatched(&report).contains(&"LeftLittle".to_string()),
        "{:?}",
        unmatched(&report)
    );
    // The same through a settings file, its path relative to the file.
    let settings = dir.path().join("sides.ron");
    std::fs::write(&settings, r#"(map: (target_bone_map: Some("pinky.ron")))"#).unwrap();
    let (written, _) = retarget(&["--settings", settings.to_str().unwrap()]);
    assert!(
        written.iter().any(|n| n == "mixamorig:LeftHandPinky1"),
        "{written:?}"
    );
    // And batch --retarget-to with --target-bone-map.
    let input = dir.path().join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(&mixamo, input.join("a.glb")).unwrap();
    let batch_out = dir.path().join("b");
    let run = skelnorm(&[
        "batch",
        input.to_str().unwrap(),
        "-o",
        batch_out.to_str().unwrap(),
        "-q",
        "--retarget-to",
        m,
        "--target-bone-map",
        p,
    ]);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let written = names(&batch_out.join("a.glb"));
    assert!(
        written.iter().any(|n| n == "mixamorig:LeftHandPinky1"),
        "{written:?}"
    );
}

/// A value out of range in a settings file: a usage error naming the file, the key and the value.
#[test]
fn value_errors_name_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let mixamo = common::root().join("fixtures/mixamo.glb");
    let out = dir.path().join("o.glb");
    for (text, key) in [
        ("(retarget: (fps: -3.0))", "retarget.fps = -3"),
        (
            "(retarget: (horizontal_scale: inf))",
            "retarget.horizontal_scale = inf",
        ),
        (
            "(retarget: (ik_max_leg_deg: 200.0))",
            "retarget.ik_max_leg_deg = 200",
        ),
        (
            "(retarget: (chains: {\"LeftLeg\": (ik_blend: 7.0)}))",
            "retarget.chains.LeftLeg.ik_blend = 7",
        ),
        (
            "(retarget: (pose: (source: {\"Tail\": (0.0, 0.0, 45.0)})))",
            "retarget.pose.source = `Tail`",
        ),
        (
            "(rest: (silhouette_threshold_deg: 400.0))",
            "rest.silhouette_threshold_deg = 400",
        ),
        ("(tracks: (tolerance: -1.0))", "tracks.tolerance = -1"),
        (
            "(rename: (skeleton_name: Some(\" \")))",
            "rename.skeleton_name = \" \"",
        ),
    ] {
        let file = dir.path().join("bad.ron");
        std::fs::write(&file, text).unwrap();
        let run = skelnorm(&[
            "normalize",
            mixamo.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--settings",
            file.to_str().unwrap(),
        ]);
        let err = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{text}: {err}");
        assert!(
            err.contains(&format!("{}: {key}", file.display())),
            "{text}: the message names the file and `{key}`: {err}"
        );
        assert!(!out.exists(), "{text}: wrote an output");
    }
}
