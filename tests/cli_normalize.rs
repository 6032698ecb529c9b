//! `skelnorm normalize` from the command line (issues 4 and 5): output, report, stage flags, settings, exit codes.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use common::skelnorm;

#[test]
fn normalizes_a_fixture_and_reports_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::root().join("fixtures/mixamo.glb");
    let before = std::fs::read(&input).unwrap();
    let out = dir.path().join("out.glb");
    let report = dir.path().join("report.json");
    let run = skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(
        text.contains("folded the nodes above it (scale 0.01"),
        "{text}"
    );
    assert!(text.contains("skin: max error"), "{text}");
    assert_eq!(
        std::fs::read(&input).unwrap(),
        before,
        "the input is never modified"
    );
    let r = common::file_stage(
        &serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap(),
        "normalize",
    );
    let s = &r["skeletons"][0];
    assert_eq!(
        s["mapping"]["bones"]["LeftUpperArm"]["source"],
        "mixamorig:LeftArm"
    );
    let bones = s["rest"]["bones"].as_array().unwrap();
    let arm = bones
        .iter()
        .find(|b| b["bone"] == "mixamorig:LeftArm")
        .unwrap();
    assert!(
        arm["silhouette_deg"].as_f64().unwrap() > 30.0,
        "the A-pose arm turned: {arm}"
    );
    assert!(s["measured"]["skin"]["max_error"].as_f64().unwrap() <= 1e-5);
    assert!(s["measured"]["rest"]["max_tail_deg"].as_f64().unwrap() <= 0.01);
    assert_eq!(s["measured"]["rest"]["faces_plus_z"], true);
    assert_eq!(s["rest"]["base"]["folded"], true);
    // The output reads back and is a normalized skeleton.
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    assert!(doc.model.skeletons[0]
        .base
        .abs_diff_eq(glam::Mat4::IDENTITY, 1e-6));
}

#[test]
fn flags_reach_the_options() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::root().join("fixtures/vrm0.vrm");
    let out = dir.path().join("out.vrm");
    let run = skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-silhouette",
        "--no-facing",
        "--motion-scale",
        "--json",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r = common::file_stage(&serde_json::from_slice(&run.stdout).unwrap(), "normalize");
    let rest = &r["skeletons"][0]["rest"];
    assert_eq!(rest["facing_turn_deg"], 0.0);
    assert!(rest["bones"]
        .as_array()
        .unwrap()
        .iter()
        .all(|b| b["silhouette_deg"] == 0.0));
    let h = rest["motion_scale"].as_f64().unwrap();
    assert!((h - 1.0).abs() < 0.05, "hips height {h}");
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    assert!(doc
        .model
        .clips
        .iter()
        .all(|c| c.motion_scale == Some(h as f32)));
}

#[test]
fn refuses_what_is_not_a_humanoid_and_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.glb");
    let quad = common::root().join("fixtures/quadruped.glb");
    let run = skelnorm(&[
        "normalize",
        quad.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&run.stderr).contains("lacks LeftUpperArm"));
    assert!(!out.exists(), "no output for a refused file");
    let mixamo = common::root().join("fixtures/mixamo.glb");
    let run = skelnorm(&[
        "normalize",
        mixamo.to_str().unwrap(),
        "-o",
        dir.path().join("x.txt").to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let run = skelnorm(&[
        "normalize",
        mixamo.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--silhouette-skip",
        "Tail",
    ]);
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("rest.silhouette_skip = `Tail`") && err.contains("no such bone"),
        "{err}"
    );
    let run = skelnorm(&[
        "normalize",
        mixamo.to_str().unwrap(),
        "-o",
        mixamo.to_str().unwrap(),
    ]);
    // Issue 17: a usage error (2), as in `convert` and `retarget`, no longer 1.
    assert_eq!(run.status.code(), Some(2), "never overwrites its input");
}

#[test]
fn settings_files_sit_between_defaults_and_flags() {
    let dir = tempfile::tempdir().unwrap();
    // `config --dump-defaults` is a settings file that parses back into the defaults.
    let dump = skelnorm(&["config", "--dump-defaults"]);
    assert!(dump.status.success());
    let text = String::from_utf8(dump.stdout).unwrap();
    let parsed = skelnorm::settings::Settings::from_ron(&text, "dump").unwrap();
    assert_eq!(parsed, skelnorm::settings::Settings::default());
    assert!(
        text.contains("// Bones whose direction differs from the profile's"),
        "{text}"
    );
    // The file turns the silhouette fix off; a flag turns facing off on top of it.
    let settings = dir.path().join("s.ron");
    std::fs::write(
        &settings,
        "(rest: (fix_silhouette: false, motion_scale: true))",
    )
    .unwrap();
    let input = common::root().join("fixtures/vrm0.vrm");
    let out = dir.path().join("o.glb");
    let run = skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--settings",
        settings.to_str().unwrap(),
        "--no-facing",
        "--json",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r = common::file_stage(&serde_json::from_slice(&run.stdout).unwrap(), "normalize");
    let rest = &r["skeletons"][0]["rest"];
    assert!(rest["bones"]
        .as_array()
        .unwrap()
        .iter()
        .all(|b| b["silhouette_deg"] == 0.0));
    assert_eq!(rest["facing_turn_deg"], 0.0);
    assert!(rest["motion_scale"].as_f64().is_some());
    // A misspelt key is a usage error naming the key and the file.
    std::fs::write(&settings, "(rest: (fix_silhouete: false))").unwrap();
    let run = skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--settings",
        settings.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("s.ron:1:") && err.contains("fix_silhouete"),
        "{err}"
    );
}

/// Issue 5 on the command line: the report says per clip which tracks went and why, which
/// bones were renamed, and the file sizes; each stage can be switched off by a flag or by the
/// settings file; a misspelt key in the new sections names the key and the file.
#[test]
fn strips_renames_and_reports_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::root().join("fixtures/mixamo.glb");
    let out = dir.path().join("out.glb");
    let normalize = |extra: &[&str]| {
        let mut args = vec![
            "normalize",
            input.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--json",
        ];
        args.extend_from_slice(extra);
        let run = skelnorm(&args);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        common::file_stage(&serde_json::from_slice(&run.stdout).unwrap(), "normalize")
    };
    let r = normalize(&[]);
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    assert_eq!(r["size_before"], size(&input));
    assert_eq!(r["size_after"], size(&out));
    assert!(
        r["size_after"].as_u64() < r["size_before"].as_u64(),
        "192 tracks fewer: smaller"
    );
    let s = &r["skeletons"][0];
    let walk = &s["tracks"]["clips"][0];
    assert_eq!(walk["clip"], "walk");
    let removed = walk["removed"].as_array().unwrap();
    assert_eq!(
        removed.len(),
        64,
        "every bone but the hips loses its rest translation"
    );
    assert!(removed
        .iter()
        .all(|t| t["reason"] == "unimportant_position" && t["channel"] == "translation"));
    assert!(removed.iter().any(|t| t["target"] == "mixamorig:LeftArm"));
    let renamed = s["rename"]["bones"].as_array().unwrap();
    assert!(renamed
        .iter()
        .any(|b| b["from"] == "mixamorig:LeftArm" && b["to"] == "LeftUpperArm"));
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    assert!(doc.model.skeletons[0].find("LeftUpperArm").is_some());

    // Each stage switched off by its flag.
    let r = normalize(&["--no-rest", "--no-strip", "--no-rename"]);
    let s = &r["skeletons"][0];
    assert!(
        s.get("rest").is_none() && s.get("tracks").is_none() && s.get("rename").is_none(),
        "{s}"
    );
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    let same = skelnorm::gltf_io::read(&input).unwrap();
    assert_eq!(doc.model, same.model, "no stage: the model is unchanged");

    // Options by flag: separate unmapped bones, name the skeleton.
    let r = normalize(&[
        "--unmapped-bones",
        "separate",
        "--skeleton-name",
        "GeneralSkeleton",
    ]);
    let s = &r["skeletons"][0];
    assert_eq!(s["tracks"]["companions"][0], "walk.unmapped");
    assert_eq!(s["rename"]["skeleton"]["to"], "GeneralSkeleton");
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    assert_eq!(doc.model.skeletons[0].name, "GeneralSkeleton");
    assert!(doc.model.clips.iter().any(|c| c.name == "walk.unmapped"));

    // The settings file's sections, and a flag over them.
    let settings = dir.path().join("s.ron");
    std::fs::write(
        &settings,
        "(normalize: (rename_bones: false), tracks: (unimportant_positions: false, unmapped_bones: remove))",
    )
    .unwrap();
    let r = normalize(&[
        "--settings",
        settings.to_str().unwrap(),
        "--unmapped-bones",
        "keep",
    ]);
    let s = &r["skeletons"][0];
    assert!(s.get("rename").is_none());
    assert!(
        s["tracks"]["clips"][0]["removed"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{s}"
    );
    std::fs::write(&settings, "(tracks: (unmaped_bones: remove))").unwrap();
    let run = skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--settings",
        settings.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(
        err.contains("s.ron:1:") && err.contains("unmaped_bones"),
        "{err}"
    );
    let run = skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--position-bone",
        "Tail",
    ]);
    assert_eq!(run.status.code(), Some(2));
}
