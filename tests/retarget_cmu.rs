//! Issue 15: CMU's motion capture (`bvh/cmu_131_03_maxfriendly.bvh`: hips above zero-length hip
//! joints, a rest with splayed legs and hanging arms, CMU length units) retargeted onto
//! RobotExpressive (legs that stop at the shin, feet on the root), the mixamo fixture and
//! ModularMen_Casual (legs without toes), measured against issue 6's bounds. Skips with a message
//! when `../shared/assets` is absent.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use std::path::{Path, PathBuf};

/// A target and the extra arguments its run needs.
type Target = (PathBuf, Vec<&'static str>);

/// The source and the targets present, each with the extra arguments its run needs (a suffix
/// for the mixamo fixture, as in the issue's figures).
fn pairs() -> Option<(PathBuf, Vec<Target>)> {
    let [bvh] = common::require(["bvh/cmu_131_03_maxfriendly.bvh"])?;
    let mut targets: Vec<Target> = common::require_any(&[
        "threejs/RobotExpressive.glb",
        "quaternius/ModularMen_Casual.glb",
    ])
    .into_iter()
    .map(|t| (t, Vec::new()))
    .collect();
    targets.push((
        common::root().join("fixtures/mixamo.glb"),
        vec!["--suffix", "x"],
    ));
    Some((bvh, targets))
}

/// `skelnorm retarget … --json`: the retarget stage of the report and the one clip's measures.
fn retarget(source: &Path, target: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "retarget",
        "--source",
        source.to_str().unwrap(),
        "--target",
        target.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--json",
    ];
    args.extend_from_slice(extra);
    let run = common::skelnorm(&args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    common::file_stage(&r, "retarget")
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into()
}

/// Chain directions (the FK pass, `--no-ik`): paired bones within 0.5° where both chains have
/// as many bones (the legs pair bone for bone on every target since the source's leg is read
/// only down to where the target's ends); no bone-length drift. Chain ends of unequal chains
/// are in [`cmu_meets_every_issue_6_bound`].
#[test]
fn cmu_directions_meet_issue_6_bounds() {
    let Some((bvh, targets)) = pairs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (target, extra) in &targets {
        let who = name(target);
        let out = dir.path().join(format!("fk_{who}"));
        let mut args = extra.clone();
        args.push("--no-ik");
        let r = retarget(&bvh, target, &out, &args);
        let m = &r["clips"][0]["measured"];
        for c in m["chains"].as_array().unwrap() {
            eprintln!(
                "CMU → {who} (--no-ik): {} bones {} end {} ({})",
                c["chain"], c["bones_deg"], c["end_deg"], c["bones"]
            );
            if let Some(d) = c["bones_deg"].as_f64() {
                assert!(d <= 0.5, "{who}: {c}");
            }
        }
        let legs = m["chains"].as_array().unwrap().iter().filter(|c| {
            c["chain"].as_str().unwrap().ends_with("Leg") && c["bones_deg"].is_number()
        });
        assert_eq!(legs.count(), 2, "{who}: the legs pair bone for bone");
        assert!(m["length_drift"].as_f64().unwrap() <= 1e-5, "{who}");
    }
}

/// With leg IK (the default): no bone-length drift, no more validator errors than the target,
/// and three.js plays the new clip posing the mesh as the normalized output does.
#[test]
fn cmu_with_leg_ik_keeps_bone_lengths_validity_and_plays() {
    let Some((bvh, targets)) = pairs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (target, extra) in &targets {
        let who = name(target);
        let out = dir.path().join(format!("ik_{who}"));
        let r = retarget(&bvh, target, &out, extra);
        let m = &r["clips"][0]["measured"];
        eprintln!("CMU → {who}: {}", serde_json::to_string(m).unwrap());
        assert!(m["length_drift"].as_f64().unwrap() <= 1e-5, "{who}");
        if let (Some(a), Some(b)) = (
            common::validator_errors(target),
            common::validator_errors(&out),
        ) {
            assert!(b <= a, "{who}: {b} validator errors (target {a})");
        }
        // The same clip written into the normalized target plays the same in three.js. The
        // measure takes matrix elements (rotation parts unscaled): RobotExpressive, whose nodes
        // carry non-uniform scales, differs by 1.4e-4 there (0.008°), the others by less.
        let normalized = dir.path().join(format!("norm_{who}"));
        let mut args = extra.clone();
        args.push("--normalized");
        retarget(&bvh, target, &normalized, &args);
        if let Some(e) = common::three_check(&normalized, &out) {
            assert!(e <= 5e-4, "{who}: three.js plays the output {e} away");
        }
    }
}

/// Every issue-6 bound: chain ends within 2° where the chains' bone counts differ (`--no-ik`);
/// with leg IK, feet within 1% of the target's height of the scaled source and foot skate
/// within the source's + 0.1% of the height per frame. Not met yet (issue 15), for two causes
/// this change does not fix:
/// - the hips-height ratio takes CMU's hips above y = 0 at its rest, where its straightened
///   legs stand 5 cm below 0 and 11 cm below the floor its clip stands on, and the leg IK goal
///   (the source's reach scaled by the limb-length ratio) disagrees with the hips-scaled
///   measure where the ratios or the hips' place above the legs differ: feet 2.2–5.7% of the
///   height, the robot's right foot skating 0.78% per frame against the source's 0.31%;
/// - CMU's upper chest is a zero-length bone (the neck and collars sit on its joint), so the
///   end of its spine has no direction of its own and RobotExpressive's two-bone spine end is
///   compared with the segment below it: 9.35°.
#[test]
#[ignore = "issue 15: feet 2.2–5.7% of height, robot skate, robot spine end 9.35°; see the doc"]
fn cmu_meets_every_issue_6_bound() {
    let Some((bvh, targets)) = pairs() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (target, extra) in &targets {
        let who = name(target);
        let out = dir.path().join(format!("all_{who}"));
        let mut args = extra.clone();
        args.push("--no-ik");
        let r = retarget(&bvh, target, &out, &args);
        for c in r["clips"][0]["measured"]["chains"].as_array().unwrap() {
            if c["bones_deg"].is_null() {
                if let Some(d) = c["end_deg"].as_f64() {
                    assert!(d <= 2.0, "{who}: {c}");
                }
            }
        }
        let r = retarget(&bvh, target, &out, extra);
        let m = &r["clips"][0]["measured"];
        for e in m["effectors"].as_array().unwrap() {
            if e["ik"] == true {
                assert!(e["max_error"].as_f64().unwrap() <= 0.01, "{who}: {e}");
            }
        }
        for s in m["skate"].as_array().unwrap() {
            let (src, tgt) = (s["source"].as_f64().unwrap(), s["target"].as_f64().unwrap());
            assert!(tgt <= src + 0.001, "{who}: {s}");
        }
    }
}
