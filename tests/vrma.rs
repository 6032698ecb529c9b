//! `retarget` onto a VRM character written as a VRM animation (`-o CLIP.vrma`, issue 40): a VRM
//! player (three-vrm 3.5.5 with three-vrm-animation 3.5.5, as their examples load and play)
//! poses the character as skelnorm's own retarget of the same clip does (the character's raw
//! bones keyed, played by three.js without the VRM update, turned as three-vrm turns VRM 0.x),
//! on every `.vrm` of the fixtures and `../shared/assets`; the Khronos validator finds no error
//! in the `.vrma`. And the CLI's rules about `.vrm`, `.vrma` and `--animation-only`.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Hands, feet, head and forearms within this of the reference, relative to the hips, as a
/// fraction of the hips' rest height (issue 40).
const WITHIN: f64 = 0.1;
/// The clips compared move those bones at least this far from their rest (relative to the
/// hips, fraction of the hips' height): a VRM animation that left the character at rest fails.
const MOVES: f64 = 0.1;
/// Where in each clip the poses are compared, fractions of its duration.
const FRACTIONS: [f64; 6] = [0.0, 0.15, 0.35, 0.5, 0.75, 0.95];

/// Every `.vrm` character: the fixtures' and the real assets'.
fn characters() -> Vec<PathBuf> {
    let vrm = |p: &PathBuf| p.extension().is_some_and(|e| e == "vrm");
    let mut v: Vec<PathBuf> = common::fixtures().into_iter().filter(vrm).collect();
    v.extend(common::assets().unwrap_or_default().into_iter().filter(vrm));
    v
}

/// The clips retargeted: (source, the one clip to take, when it has several).
fn sources() -> Vec<(PathBuf, Option<&'static str>)> {
    let mixamo = common::root().join("fixtures/mixamo.glb");
    let mut v = vec![(mixamo.clone(), Some("walk")), (mixamo, Some("wave"))];
    for rel in ["vrm/test.vrma", "bvh/cmu_131_03_maxfriendly.bvh"] {
        if let Some(p) = common::asset(rel) {
            v.push((p, None));
        }
    }
    v
}

fn retarget(source: &Path, clip: Option<&str>, target: &Path, out: &Path, extra: &[&str]) {
    let mut args = vec![
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--no-check",
    ];
    if let Some(c) = clip {
        args.extend(["--clip", c]);
    }
    args.extend(extra);
    let o = common::skelnorm(&args);
    assert!(
        o.status.success(),
        "retarget {} → {} → {}: {}",
        source.display(),
        target.display(),
        out.display(),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// The folder of `.tools` (node_modules), as the other outside checks find it.
fn tools() -> PathBuf {
    std::env::var_os("SKELNORM_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join(".tools"))
}

/// `tests/tools/three_vrma.mjs` on `jobs`, or `None` (with a message; a failure under
/// `SKELNORM_REQUIRE_TOOLS=1`) when three-vrm or three-vrm-animation is not installed.
fn three_vrma(jobs: &serde_json::Value, dir: &Path) -> Option<serde_json::Value> {
    let modules = tools().join("node_modules");
    let needed = ["three", "@pixiv/three-vrm", "@pixiv/three-vrm-animation"];
    if let Some(m) = needed.iter().find(|m| !modules.join(m).is_dir()) {
        let what = format!("three-vrm check: {m} missing in {}", modules.display());
        if std::env::var_os("SKELNORM_REQUIRE_TOOLS").is_some() {
            panic!("required tool missing: {what}");
        }
        common::say_once(&format!("skipped: {what}"));
        return None;
    }
    let file = dir.join("jobs.json");
    std::fs::write(&file, jobs.to_string()).unwrap();
    // An ES module resolves its imports from its own folder: run a copy beside node_modules.
    let script = tools().join("three_vrma.mjs");
    std::fs::copy(common::root().join("tests/tools/three_vrma.mjs"), &script).unwrap();
    let out = Command::new("node")
        .arg(&script)
        .arg(&file)
        .output()
        .expect("run node");
    let text = String::from_utf8_lossy(&out.stdout);
    Some(serde_json::from_str(text.trim()).unwrap_or_else(|_| {
        panic!(
            "three_vrma.mjs gave no JSON: {text} {}",
            String::from_utf8_lossy(&out.stderr)
        )
    }))
}

#[test]
fn a_vrm_player_poses_the_character_as_skelnorm_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut jobs = Vec::new();
    let mut pairs = Vec::new();
    for target in characters() {
        for (source, clip) in sources() {
            let name = format!(
                "{}-{}-{}",
                target.file_stem().unwrap().to_string_lossy(),
                source.file_stem().unwrap().to_string_lossy(),
                clip.unwrap_or("all")
            );
            let vrma = dir.path().join(format!("{name}.vrma"));
            let reference = dir.path().join(format!("{name}.glb"));
            retarget(&source, clip, &target, &vrma, &["--animation-only"]);
            retarget(&source, clip, &target, &reference, &["--animation-only"]);
            if let Some(errors) = common::validator_errors(&vrma) {
                assert_eq!(errors, 0, "{}: validator errors", vrma.display());
            }
            jobs.push(serde_json::json!({
                "vrm": target, "vrma": vrma, "reference": reference, "fractions": FRACTIONS,
            }));
            pairs.push(name);
        }
    }
    assert!(jobs.len() >= 2, "the fixtures alone give two pairs");
    let Some(seen) = three_vrma(&serde_json::Value::Array(jobs), dir.path()) else {
        return;
    };
    let seen = seen.as_array().unwrap();
    assert_eq!(seen.len(), pairs.len());
    let mut versions = std::collections::BTreeSet::new();
    for (pair, r) in pairs.iter().zip(seen) {
        let (error, moves, hips) = (
            r["max_error"].as_f64().unwrap(),
            r["max_motion"].as_f64().unwrap(),
            r["hips_error"].as_f64().unwrap(),
        );
        eprintln!(
            "{pair} (VRM {}): within {error:.2e} of the hips height (at {}), hips within \
             {hips:.2e}, moves {moves:.2}",
            r["meta_version"], r["where"]
        );
        assert_eq!(r["bones"].as_array().unwrap().len(), 7, "{pair}: {r}");
        assert!(moves > MOVES, "{pair}: the clip barely moves: {r}");
        assert!(error < WITHIN, "{pair}: {r}");
        // The hips themselves go where the keyed raw bones take them (the translation track).
        assert!(hips < WITHIN, "{pair}: {r}");
        versions.insert(r["meta_version"].as_str().unwrap().to_string());
    }
    // The fixture is VRM 0.x; the real assets add VRM 1.0.
    assert!(versions.contains("0"), "{versions:?}");
}

#[test]
fn a_vrma_needs_a_vrm_target_and_one_clip() {
    let dir = tempfile::tempdir().unwrap();
    let f = |n: &str| common::root().join("fixtures").join(n);
    let out = dir.path().join("walk.vrma");
    let run = |target: &str, extra: &[&str]| {
        let (source, target) = (f("mixamo.glb"), f(target));
        let mut args = vec![
            "retarget",
            "--source",
            source.to_str().unwrap(),
            "--target",
            target.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend(extra);
        common::skelnorm(&args)
    };
    // Three clips, one animation.
    let o = run("vrm0.vrm", &[]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&o.stderr).contains("choose it with --clip"));
    assert!(!out.exists());
    // No VRM humanoid.
    let o = run("blender.glb", &["--clip", "walk"]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("declares no VRM humanoid"), "{err}");
    assert!(!out.exists());
    // The normalized target is no VRM character as players load it.
    let o = run("vrm0.vrm", &["--clip", "walk", "--normalized"]);
    assert_eq!(o.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&o.stderr).contains("drop --normalized"));
    // One clip onto the VRM: written, with or without --animation-only, read back as a VRMA.
    for extra in [
        &["--clip", "walk"][..],
        &["--clip", "walk", "--animation-only"],
    ] {
        let o = run("vrm0.vrm", extra);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let o = common::skelnorm(&["inspect", out.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("VRMC_vrm_animation"), "{text}");
        assert!(text.contains("`walk`"), "{text}");
        std::fs::remove_file(&out).unwrap();
    }
}
