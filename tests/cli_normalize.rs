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

/// Issue 20: the settings are resolved, and the skeletons mapped, while the file's clips are
/// read; settings that fail still win over a file that fails, as when they were resolved first:
/// a missing file, one that is not glTF (both fail before their skeletons are read), and one
/// whose key times decrease (found reading the clips, after the skeletons), with few keys and
/// with enough to be read on two threads.
#[test]
fn settings_errors_win_over_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("s.ron");
    std::fs::write(&settings, "(rest: (fix_silhouete: false))").unwrap();
    let (mut json, mut bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/mixamo.glb")).unwrap());
    let input = json["animations"][0]["samplers"][0]["input"]
        .as_u64()
        .unwrap() as usize;
    let view =
        &json["bufferViews"][json["accessors"][input]["bufferView"].as_u64().unwrap() as usize];
    let at = (view["byteOffset"].as_u64().unwrap_or(0)
        + json["accessors"][input]["byteOffset"].as_u64().unwrap_or(0)) as usize
        + 4;
    bin[at..at + 4].copy_from_slice(&(-5.0f32).to_le_bytes());
    let few = dir.path().join("few.glb");
    std::fs::write(&few, common::join_glb(&json, &bin)).unwrap();
    // The animations four times over: more than 16,384 keys in all.
    let animations = json["animations"].as_array().unwrap();
    let four: Vec<serde_json::Value> = (0..4).flat_map(|_| animations.clone()).collect();
    json["animations"] = four.into();
    let many = dir.path().join("many.glb");
    std::fs::write(&many, common::join_glb(&json, &bin)).unwrap();
    let not_gltf = dir.path().join("not.glb");
    std::fs::write(&not_gltf, b"not a glTF file at all").unwrap();
    let missing = dir.path().join("missing.glb");
    let out = dir.path().join("out.glb");
    for (input, damage) in [
        (&missing, "missing.glb"),
        (&not_gltf, "not a glTF"),
        (&few, "not finite and increasing"),
        (&many, "not finite and increasing"),
    ] {
        let run = |settings: Option<&std::path::Path>| {
            let mut args = vec!["normalize", input.to_str().unwrap(), "-o"];
            args.push(out.to_str().unwrap());
            if let Some(s) = settings {
                args.extend(["--settings", s.to_str().unwrap()]);
            }
            let run = skelnorm(&args);
            let err = String::from_utf8_lossy(&run.stderr).into_owned();
            (run.status.code(), err)
        };
        let (code, err) = run(None);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains(damage), "{err}");
        let (code, err) = run(Some(&settings));
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("fix_silhouete") && !err.contains(damage),
            "{err}"
        );
        assert!(!out.exists());
    }
}

/// A texture whose image comes from `EXT_texture_webp` (no `source` of its own, as the extension
/// specifies) gets no false `gltf_invalid` warning, and the output keeps it.
#[test]
fn a_webp_texture_is_not_reported_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/mixamo.glb")).unwrap());
    json["extensionsUsed"] = serde_json::json!(["EXT_texture_webp"]);
    json["images"] = serde_json::json!([{"uri": "skin.webp"}]);
    json["textures"] = serde_json::json!([{"extensions": {"EXT_texture_webp": {"source": 0}}}]);
    let input = dir.path().join("webp.glb");
    std::fs::write(&input, common::join_glb(&json, &bin)).unwrap();
    // A 1×1 lossless WebP.
    std::fs::write(
        dir.path().join("skin.webp"),
        b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00",
    )
    .unwrap();
    let out = dir.path().join("out.glb");
    let run = common::skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let warnings = report["files"][0]["warnings"].to_string();
    assert!(!warnings.contains("gltf_invalid"), "{warnings}");
    let (written, _) = common::split_glb(&std::fs::read(&out).unwrap());
    assert_eq!(
        written["textures"][0]["extensions"]["EXT_texture_webp"]["source"], 0,
        "{}",
        written["textures"]
    );
}

/// Issue 43, item 2: a bone whose rest mirrors and that cannot be folded (vertices weighted on
/// it, a bone below it) no longer refuses the file: `mixamo.glb` with its left index finger's
/// middle joint scaled (−1, 1, 1), as a mirroring tool leaves a bone, normalizes with warning
/// `mirror_kept` naming the bone, and three.js plays the output as the input.
#[test]
fn a_mirrored_weighted_bone_is_kept_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let (mut json, bin) =
        common::split_glb(&std::fs::read(common::root().join("fixtures/mixamo.glb")).unwrap());
    let name = "mixamorig:LeftHandIndex2";
    let node = json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == name)
        .unwrap();
    assert!(json["nodes"][node]["children"]
        .as_array()
        .is_some_and(|c| !c.is_empty()));
    json["nodes"][node]["scale"] = serde_json::json!([-1.0, 1.0, 1.0]);
    let input = dir.path().join("mirrored.glb");
    std::fs::write(&input, common::join_glb(&json, &bin)).unwrap();
    let out = dir.path().join("out.glb");
    let run = common::skelnorm(&[
        "normalize",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let kept: Vec<&serde_json::Value> = report["files"][0]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["code"] == "mirror_kept")
        .collect();
    assert_eq!(kept.len(), 1, "{}", report["files"][0]["warnings"]);
    assert_eq!(kept[0]["bones"], serde_json::json!([name]), "{}", kept[0]);
    let message = kept[0]["message"].as_str().unwrap();
    assert!(message.contains("something hangs from it"), "{message}");
    if let Some(err) = common::three_check(&input, &out) {
        assert!(
            err <= 1e-5,
            "three.js vertices moved by {err:e} of the size"
        );
    }
}
