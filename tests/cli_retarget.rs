//! `skelnorm retarget` from the command line (issue 6): the real assets (test.vrma onto
//! RobotExpressive, ModularMen_Casual and sphere.vrm), output validity, report, options, errors.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use common::skelnorm;
use std::path::Path;

fn retarget(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let mut all = vec!["retarget"];
    all.extend_from_slice(args);
    all.push("--json");
    let run = skelnorm(&all);
    let json = match serde_json::from_slice::<serde_json::Value>(&run.stdout) {
        Ok(r) if r["files"][0]["retarget"].is_object() => common::file_stage(&r, "retarget"),
        _ => serde_json::Value::Null,
    };
    (
        run.status.code(),
        json,
        String::from_utf8_lossy(&run.stderr).into(),
    )
}

/// The issue's real-asset test: outputs have no more validator errors than the target file,
/// and the measured figures meet the bounds where they apply (bone directions where chains have
/// equal bone counts, chain ends otherwise, feet under leg IK, no bone-length drift).
#[test]
fn vrma_onto_real_characters() {
    let Some([vrma]) = common::require(["vrm/test.vrma"]) else {
        return;
    };
    let targets = common::require_any(&[
        "threejs/RobotExpressive.glb",
        "quaternius/ModularMen_Casual.glb",
        "vrm/sphere.vrm",
    ]);
    let dir = tempfile::tempdir().unwrap();
    for target in targets {
        let name = target.file_name().unwrap().to_string_lossy().to_string();
        let out = dir.path().join(&name);
        let (code, r, err) = retarget(&[
            "--source",
            vrma.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--suffix",
            " (vrma)",
        ]);
        assert_eq!(code, Some(0), "{name}: {err}");
        let clip = &r["clips"][0];
        assert_eq!(clip["clip"], "animation0 (vrma)");
        let m = &clip["measured"];
        eprintln!("test.vrma → {name}: {}", serde_json::to_string(m).unwrap());
        for c in m["chains"].as_array().unwrap() {
            match c["bones_deg"].as_f64() {
                Some(d) => assert!(d <= 0.5, "{name}: {c}"),
                // A chain with nothing to compare (a head) has no figure, not a 0.
                None => match c["end_deg"].as_f64() {
                    Some(d) => assert!(d <= 2.0, "{name}: {c}"),
                    None => assert_eq!(c["measured"], false, "{name}: {c}"),
                },
            }
        }
        for e in m["effectors"].as_array().unwrap() {
            let ik = r["plan"]["chains"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["ik_end"] == e["bone"]);
            if ik {
                assert!(e["max_error"].as_f64().unwrap() <= 0.01, "{name}: {e}");
            }
        }
        for s in m["skate"].as_array().unwrap() {
            let (src, tgt) = (s["source"].as_f64().unwrap(), s["target"].as_f64().unwrap());
            if src <= 0.01 {
                assert!(tgt <= src + 0.001, "{name}: {s}");
            }
        }
        assert!(m["length_drift"].as_f64().unwrap() <= 1e-5, "{name}");
        // The output is the target with one more clip, as valid as the target was.
        let doc = skelnorm::gltf_io::read(&out).unwrap();
        let before = skelnorm::gltf_io::read(&target).unwrap();
        assert_eq!(
            doc.model.clips.len(),
            before.model.clips.len() + 1,
            "{name}"
        );
        // The meshes are the target's (accessors renumber when unused ones go): same
        // primitives, same vertex positions.
        let (ma, mb) = (
            before.json()["meshes"].as_array().unwrap(),
            doc.json()["meshes"].as_array().unwrap(),
        );
        assert_eq!(ma.len(), mb.len(), "{name}: meshes");
        for (x, y) in ma.iter().zip(mb) {
            assert_eq!(x["name"], y["name"]);
            for (p, q) in x["primitives"]
                .as_array()
                .unwrap()
                .iter()
                .zip(y["primitives"].as_array().unwrap())
            {
                let pos = |d: &skelnorm::gltf_io::Document, prim: &serde_json::Value| {
                    d.accessor_floats(prim["attributes"]["POSITION"].as_u64().unwrap() as usize)
                        .unwrap()
                };
                assert_eq!(pos(&before, p), pos(&doc, q), "{name}: vertex positions");
            }
        }
        if let (Some(a), Some(b)) = (
            common::validator_errors(&target),
            common::validator_errors(&out),
        ) {
            assert!(b <= a, "{name}: {b} validator errors (target {a})");
        }
    }
}

#[test]
fn options_errors_and_names() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = |f: &str| common::root().join("fixtures").join(f);
    let (src, dst) = (fixture("mixamo.glb"), fixture("ue_zup.glb"));
    let out = dir.path().join("out.glb");
    let args = |extra: &[&str]| {
        let mut v = vec![
            "--source",
            src.to_str().unwrap(),
            "--target",
            dst.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        v.extend_from_slice(extra);
        v.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let call = |extra: &[&str]| {
        let a = args(extra);
        let refs: Vec<&str> = a.iter().map(String::as_str).collect();
        retarget(&refs)
    };
    // The target already has `walk`: by default the target's clip stays and the new one is
    // renamed, and the report says which clip it clashed with.
    let (code, r, err) = call(&["--clip", "walk"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["clips"][0]["clip"], "walk (retargeted)");
    assert_eq!(r["clips"][0]["clashed_with"], "walk");
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    let names: Vec<&str> = doc.model.clips.iter().map(|c| c.name.as_str()).collect();
    assert!(
        names.contains(&"walk") && names.contains(&"walk (retargeted)"),
        "{names:?}"
    );
    // Replaced on request: one `walk`, the new one.
    let (code, r, err) = call(&["--clip", "walk", "--on-clash", "replace"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        (&r["clips"][0]["clip"], &r["clips"][0]["replaced"]),
        (&"walk".into(), &"walk".into())
    );
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    assert_eq!(
        doc.model
            .clips
            .iter()
            .filter(|c| c.name.eq_ignore_ascii_case("walk"))
            .count(),
        1
    );
    // Refused on request: the names must be made different.
    let (code, _, err) = call(&["--clip", "walk", "--on-clash", "refuse"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("already has a clip `walk`") && err.contains("--suffix"),
        "{err}"
    );
    let (code, r, err) = call(&["--clip", "walk", "--prefix", "mixamo "]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["clips"].as_array().unwrap().len(), 1);
    assert_eq!(r["clips"][0]["clip"], "mixamo walk");
    let doc = skelnorm::gltf_io::read(&out).unwrap();
    assert!(doc.model.clips.iter().any(|c| c.name == "mixamo walk"));
    // An unknown clip lists the ones there are.
    let (code, _, err) = call(&["--clip", "run"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no clip `run`") && err.contains("walk"),
        "{err}"
    );
    // Settings reach the options; a bad chain name is a usage error naming it.
    let settings = dir.path().join("s.ron");
    std::fs::write(
        &settings,
        r#"(retarget: (chains: {"LeftArmm": (mode: none)}))"#,
    )
    .unwrap();
    let (code, _, err) = call(&["--suffix", "2", "--settings", settings.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("LeftArmm"), "{err}");
    // A pose file with a misspelt key names the file.
    let pose = dir.path().join("p.ron");
    std::fs::write(&pose, "(sourse: {})").unwrap();
    let (code, _, err) = call(&["--suffix", "2", "--pose", pose.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("p.ron:1:") && err.contains("sourse"), "{err}");
    // A quadruped target does not fit: exit 3.
    let (code, _, _) = retarget(&[
        "--source",
        src.to_str().unwrap(),
        "--target",
        fixture("quadruped.glb").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(3));
    // The inputs are never touched; the output is not the target.
    let (code, _, _) = retarget(&[
        "--source",
        src.to_str().unwrap(),
        "--target",
        dst.to_str().unwrap(),
        "-o",
        dst.to_str().unwrap(),
        "--suffix",
        "2",
    ]);
    // Issue 17: a usage error (2), as in `normalize` and `convert`, no longer 1.
    assert_eq!(code, Some(2));
    assert!(Path::new(&dst).is_file());
}

/// Issue 14: RobotExpressive is an IK layout (legs hanging from `Body` beside `Hips`, feet on
/// the root bone). Its legs are driven with IK down to feet that follow them: the feet carry
/// translation keys that move, and they land within 2% of the height of where the scaled
/// source's feet go.
#[test]
fn ik_layout_feet_follow_the_source() {
    let Some([vrma, robot]) = common::require(["vrm/test.vrma", "threejs/RobotExpressive.glb"])
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("robot.glb");
    let (code, r, err) = retarget(&[
        "--source",
        vrma.to_str().unwrap(),
        "--target",
        robot.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--suffix",
        " (vrma)",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let chains = r["plan"]["chains"].as_array().unwrap();
    for side in ["Left", "Right"] {
        let leg = chains
            .iter()
            .find(|c| c["chain"] == format!("{side}Leg"))
            .expect("leg chain");
        assert_eq!(leg["ik_end"], format!("{side}Foot"), "{leg}");
    }
    let codes: Vec<&str> = r["plan"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["code"].as_str())
        .collect();
    assert_eq!(
        codes.iter().filter(|c| **c == "detached").count(),
        2,
        "{codes:?}"
    );
    assert!(!codes.contains(&"ik_unavailable"), "{codes:?}");
    let m = &r["clips"][0]["measured"];
    for foot in ["LeftFoot", "RightFoot"] {
        let e = m["effectors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["bone"] == foot)
            .expect("foot measured");
        assert!(e["max_error"].as_f64().unwrap() <= 0.02, "{e}");
    }
    // On a walk, the feet are driven: they move, and at every frame each foot is where its
    // shin puts it (as at rest), not left at its rest place on the root.
    let mixamo = common::root().join("fixtures/mixamo.glb");
    let walk_out = dir.path().join("walk.glb");
    let (code, _, err) = retarget(&[
        "--source",
        mixamo.to_str().unwrap(),
        "--target",
        robot.to_str().unwrap(),
        "-o",
        walk_out.to_str().unwrap(),
        // Profile names: the feet and shins are found by them.
        "--normalized",
        "--clip",
        "walk",
        "--suffix",
        " (mixamo)",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let doc = skelnorm::gltf_io::read(&walk_out).unwrap();
    let clip = doc
        .model
        .clips
        .iter()
        .find(|c| c.name == "walk (mixamo)")
        .expect("clip");
    let sk = doc.model.skeleton(clip.skeleton);
    let h = sk.height();
    let id = |n: &str| sk.bones.iter().position(|b| b.name == n).expect(n);
    let rest = sk.rest_world();
    let at = |m: &glam::Mat4| m.w_axis.truncate();
    for side in ["Left", "Right"] {
        let (shin, foot) = (id(&format!("{side}LowerLeg")), id(&format!("{side}Foot")));
        let offset = rest[shin].inverse().transform_point3(at(&rest[foot]));
        let (mut far, mut first) = (0.0f32, None);
        let frames = 30;
        for k in 0..=frames {
            let t = clip.duration() * k as f32 / frames as f32;
            let world = skelnorm::model::Pose::sample(sk, clip, t).world(sk);
            let p = at(&world[foot]);
            let gap = world[shin].transform_point3(offset).distance(p);
            assert!(
                gap <= 1e-3 * h,
                "{side}Foot is {gap} off its shin's end at {t} s"
            );
            far = far.max(first.get_or_insert(p).distance(p));
        }
        assert!(far > 0.02 * h, "{side}Foot does not move: {far}");
    }
}

/// Runs `retarget` for its text summary (no `--json`): exit code, stdout, stderr.
fn retarget_text(args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["retarget"];
    all.extend_from_slice(args);
    let run = skelnorm(&all);
    (
        run.status.code(),
        String::from_utf8_lossy(&run.stdout).into(),
        String::from_utf8_lossy(&run.stderr).into(),
    )
}

/// Issue 16: feet that one side does not map have no foot figures: `n/a` with the reason in the
/// text and `null` with a `reason` in JSON, never `0.00%`. The other side's own skate is still
/// measured.
#[test]
fn unmapped_feet_are_na_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = |f: &str| common::root().join("fixtures").join(f);
    let (src, dst) = (fixture("mixamo.glb"), fixture("long_legs.glb"));
    let no_feet = dir.path().join("no_feet.ron");
    std::fs::write(
        &no_feet,
        r#"(unmapped: ["LeftFoot", "RightFoot", "LeftToes", "RightToes"])"#,
    )
    .unwrap();
    let out = dir.path().join("out.glb");
    for (flag, side) in [
        ("--target-bone-map", "target"),
        ("--source-bone-map", "source"),
    ] {
        let args = [
            "--source",
            src.to_str().unwrap(),
            "--target",
            dst.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--clip",
            "walk",
            "--suffix",
            " (no feet)",
            flag,
            no_feet.to_str().unwrap(),
        ];
        let (code, text, err) = retarget_text(&args);
        assert_eq!(code, Some(0), "{err}");
        let line = text.lines().find(|l| l.starts_with("clip `walk`")).unwrap();
        assert!(
            line.contains(&format!(
                "feet n/a (LeftFoot, RightFoot not mapped in the {side})"
            )),
            "{line}"
        );
        let skate = if side == "target" {
            "→ n/a (not mapped in the target)"
        } else {
            "LeftFoot n/a (not mapped in the source)"
        };
        assert!(line.contains(skate), "{line}");
        assert!(
            !line.contains("0.00%") && !line.contains("0.000%"),
            "{line}"
        );
        let (code, r, err) = retarget(&args);
        assert_eq!(code, Some(0), "{err}");
        let m = &r["clips"][0]["measured"];
        let reason = format!("not_mapped_in_{side}");
        for (k, foot) in ["LeftFoot", "RightFoot"].iter().enumerate() {
            let e = &m["effectors"][2 + k];
            assert_eq!(e["bone"], *foot, "{m}");
            assert!(e["max_error"].is_null(), "{e}");
            assert_eq!(e["reason"], reason.as_str(), "{e}");
            let s = &m["skate"][k];
            assert!(s[side].is_null(), "{s}");
            assert_eq!(s["reason"], reason.as_str(), "{s}");
            // The source's feet are there: their skate is measured. The target's are measured
            // over the source's contacts only (math.md), so without the source's feet not at all.
            if side == "target" {
                assert!(s["source"].as_f64().is_some(), "{s}");
            } else {
                assert!(s["target"].is_null() && s["contact_pairs"] == 0, "{s}");
            }
        }
        // The hands are mapped on both sides: measured.
        assert!(m["effectors"][0]["max_error"].as_f64().is_some(), "{m}");
    }
}

/// Issue 16: the summary line names the chain with the worst end and how much of it each side
/// maps (a chain mapped in part compares different bones), in the text and in JSON.
#[test]
fn the_summary_names_the_worst_chain_end() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = |f: &str| common::root().join("fixtures").join(f);
    let (src, dst) = (fixture("mixamo.glb"), fixture("long_legs.glb"));
    let map = dir.path().join("map.ron");
    std::fs::write(&map, r#"(unmapped: ["RightLittleDistal"])"#).unwrap();
    let out = dir.path().join("out.glb");
    let args = [
        "--source",
        src.to_str().unwrap(),
        "--target",
        dst.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--clip",
        "wave",
        "--suffix",
        " (4 fingers)",
        "--target-bone-map",
        map.to_str().unwrap(),
    ];
    let (code, text, err) = retarget_text(&args);
    assert_eq!(code, Some(0), "{err}");
    let line = text.lines().find(|l| l.starts_with("clip `wave`")).unwrap();
    let (code, r, err) = retarget(&args);
    assert_eq!(code, Some(0), "{err}");
    // Issue 15: the little finger that ends one bone early is compared bone for bone with the
    // source's first two (before, its middle bone took and was compared with the source's
    // distal end, and was the worst end by far).
    let little = r["clips"][0]["measured"]["chains"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["chain"] == "RightLittle")
        .unwrap();
    assert_eq!(little["bones"], serde_json::json!([2, 2]), "{little}");
    assert!(little["end_deg"].as_f64().unwrap() <= 0.01, "{little}");
    assert_eq!(
        little["source_mapping"]["past_end"],
        serde_json::json!(["RightLittleDistal"])
    );
    let worst = &r["clips"][0]["measured"]["worst_end"];
    let end = worst["end_deg"].as_f64().unwrap();
    let (chain, mapping) = (
        worst["chain"].as_str().unwrap(),
        worst["mapping"].as_str().unwrap(),
    );
    assert!(
        line.contains(&format!("ends {end:.2}° ({chain}: {mapping})")),
        "{line}"
    );
    // It is the largest end of every chain.
    for c in r["clips"][0]["measured"]["chains"].as_array().unwrap() {
        assert!(c["end_deg"].as_f64().is_none_or(|e| e <= end), "{c}");
    }
    // Real files: CMU's mocap onto RobotExpressive, whose legs end at the shin (its feet hang
    // from the root): the legs compare the robot's thigh and shin with the source's, bone for
    // bone; the source's foot and toes lie past the robot's leg.
    let (Some(bvh), Some(robot)) = (
        common::asset("bvh/cmu_131_03_maxfriendly.bvh"),
        common::asset("threejs/RobotExpressive.glb"),
    ) else {
        return;
    };
    let (code, text, err) = retarget_text(&[
        "--source",
        bvh.to_str().unwrap(),
        "--target",
        robot.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let line = text.lines().find(|l| l.starts_with("clip ")).unwrap();
    eprintln!("{line}");
    let worst = line.split(" (").nth(1).unwrap_or("");
    assert!(
        !worst.contains("Leg: ")
            || (worst.contains("Foot detached")
                && worst.contains("Foot, ")
                && worst.contains("past the target's end")),
        "{line}"
    );
    // The legs pair bone for bone there: the direction figure is measured, not n/a.
    assert!(!line.contains("directions n/a"), "{line}");
}
