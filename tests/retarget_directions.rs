//! Issue 42, item 3: the reported direction errors agree with an independent recomputation from
//! the files. `tests/tools/three_directions.mjs` loads the source and the WRITTEN output in
//! three.js, plays both clips and takes each reported segment's angle per frame from the world
//! positions of its joints (the nodes the `map` command names for each profile bone); every
//! segment's mean and worst must be within 0.1° of the report's, on fixture and shared pairs,
//! with and without `--plant --floor`.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Profile bone → the glTF node index of the bone `map` maps to it, in `file`'s first skeleton
/// (names looked up in the file's own JSON: the first skin joint of that name, since a file may
/// name a mesh node as a bone, as RobotExpressive's `Head` and `Torso`).
fn nodes_by_profile(map_of: &Path, file: &Path) -> BTreeMap<String, u64> {
    let run = common::skelnorm(&["map", map_of.to_str().unwrap(), "--json", "--allow-partial"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let report: Value = serde_json::from_slice(&run.stdout).unwrap();
    let bones = &report["files"][0]["map"][0]["bones"];
    let (gltf, _) = common::split_glb(&std::fs::read(file).unwrap());
    let nodes = gltf["nodes"].as_array().unwrap();
    let joints: Vec<u64> = (gltf["skins"].as_array().into_iter().flatten())
        .flat_map(|s| s["joints"].as_array().unwrap().iter())
        .map(|j| j.as_u64().unwrap())
        .collect();
    let index = |name: &str| {
        let named = |i: &u64| nodes[*i as usize]["name"] == name;
        joints
            .iter()
            .copied()
            .find(named)
            .or_else(|| (0..nodes.len() as u64).find(named))
            .unwrap_or_else(|| panic!("{}: no node `{name}`", file.display()))
    };
    bones
        .as_object()
        .unwrap()
        .iter()
        .map(|(p, m)| (p.clone(), index(m["source"].as_str().unwrap())))
        .collect()
}

/// Retargets `clip` of `source` onto `target` with `flags`, recomputes the report's segments in
/// three.js from the files and compares; the number of segments compared.
fn agrees(source: &Path, target: &Path, clip: &str, flags: &[&str], dir: &Path) -> Option<usize> {
    let out = dir.join("out.glb");
    let mut extra = vec!["--clip", clip];
    extra.extend_from_slice(flags);
    let stage = common::retarget_stage(source, target, &out, &extra);
    let c = &stage["clips"][0];
    let m = &c["measured"];
    let segments = m["segments"].as_array().unwrap();
    let at = format!(
        "{} `{clip}` → {} {flags:?}",
        source.display(),
        target.display()
    );
    assert!(!segments.is_empty(), "{at}: no segment measured");
    let (sn, tn) = (
        nodes_by_profile(source, source),
        nodes_by_profile(target, &out),
    );
    let side = |n: &BTreeMap<String, u64>, g: &Value| {
        let tails: Vec<u64> = (g["tails"].as_array().unwrap().iter())
            .map(|t| n[t.as_str().unwrap()])
            .collect();
        json!([n[g["bone"].as_str().unwrap()], tails])
    };
    let job = json!({
        "fps": 30,
        "source": {"path": source, "clip": clip},
        "target": {"path": out, "clip": c["clip"]},
        "segments": segments.iter().map(|g| json!({
            "bone": g["bone"], "source": side(&sn, g), "target": side(&tn, g),
        })).collect::<Vec<_>>(),
    });
    let path = dir.join("job.json");
    std::fs::write(&path, job.to_string()).unwrap();
    let three = common::three_directions(&path)?;
    assert_eq!(three["frames"], m["frames"], "{at}: frames");
    let mut worst = (0.0f64, String::new());
    for (g, r) in segments.iter().zip(three["segments"].as_array().unwrap()) {
        let bone = g["bone"].as_str().unwrap();
        for key in ["mean_deg", "worst_deg"] {
            let (ours, theirs) = (g[key].as_f64().unwrap(), r[key].as_f64().unwrap());
            let d = (ours - theirs).abs();
            if d > worst.0 {
                worst = (
                    d,
                    format!("{bone} {key} {ours:.4}° against three.js's {theirs:.4}°"),
                );
            }
            assert!(
                d <= 0.1,
                "{at}: {bone} {key} reported {ours:.4}°, three.js {theirs:.4}°"
            );
        }
    }
    let top = common::worst_segment(segments);
    eprintln!(
        "{at}: {} segments, worst {:.2}° ({}); largest difference from three.js {:.5}° ({})",
        segments.len(),
        top.0,
        top.1,
        worst.0,
        worst.1
    );
    Some(segments.len())
}

/// The pairs: fixtures onto fixtures and onto shared characters, RobotExpressive's own walk
/// onto a human, and Quaternius's IK-layout source onto a human, each with the core passes and
/// with `--plant --floor`.
#[test]
fn reported_directions_agree_with_three_js_on_the_written_files() {
    let fixture = |n: &str| common::root().join("fixtures").join(n);
    let mut pairs: Vec<(PathBuf, PathBuf, &str)> = vec![
        (fixture("mixamo.glb"), fixture("long_legs.glb"), "walk"),
        (fixture("mixamo.glb"), fixture("short_legs.glb"), "wave"),
        (fixture("kaykit.glb"), fixture("mixamo.glb"), "walk"),
    ];
    let men = common::asset("quaternius/ModularMen_Casual.glb");
    let robot = common::asset("threejs/RobotExpressive.glb");
    if let Some(men) = &men {
        pairs.push((fixture("mixamo.glb"), men.clone(), "walk"));
    }
    if let (Some(men), Some(robot)) = (&men, &robot) {
        pairs.push((robot.clone(), men.clone(), "Walking"));
    }
    let dir = tempfile::tempdir().unwrap();
    // An IK-layout source (issue 42): Quaternius's baked FBX, its feet on the root bone, as GLB
    // (three.js reads glTF), onto ModularMen_Casual.
    if let (Some(fbx), Some(men)) = (common::asset("fbx/quaternius_Male_Casual.fbx"), &men) {
        let glb = dir.path().join("quaternius_Male_Casual.glb");
        let run = common::skelnorm(&["convert", fbx.to_str().unwrap(), glb.to_str().unwrap()]);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        pairs.push((glb, men.clone(), "HumanArmature|Man_RunningJump"));
    }
    let mut compared = 0;
    for (s, t, clip) in &pairs {
        for flags in [&[][..], &["--plant", "--floor"][..]] {
            match agrees(s, t, clip, flags, dir.path()) {
                Some(n) => compared += n,
                None => return,
            }
        }
    }
    assert!(compared > 0);
}

/// By hand, on files outside the repository: `SKELNORM_DIRECTIONS="SOURCE TARGET CLIP [FLAG…]"
/// cargo test --test retarget_directions by_hand -- --ignored --nocapture` compares one pair's
/// reported segments with three.js's as above and prints the worst.
#[test]
#[ignore = "by hand: SKELNORM_DIRECTIONS=\"SOURCE TARGET CLIP [FLAG…]\""]
fn by_hand() {
    let spec = std::env::var("SKELNORM_DIRECTIONS").expect("SKELNORM_DIRECTIONS");
    let words: Vec<&str> = spec.split_whitespace().collect();
    let [source, target, clip, flags @ ..] = &words[..] else {
        panic!("SKELNORM_DIRECTIONS: SOURCE TARGET CLIP [FLAG…]");
    };
    let dir = tempfile::tempdir().unwrap();
    let n = agrees(source.as_ref(), target.as_ref(), clip, flags, dir.path());
    assert!(n.is_some(), "three.js is not available (SKELNORM_TOOLS)");
}
