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

use common::retarget_stage as retarget;

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into()
}

/// Chain directions (the FK pass, `--no-ik`): paired bones within 0.5° where both chains have
/// as many bones (the legs pair bone for bone on every target since the source's leg is read
/// only down to where the target's ends); no bone-length drift. Chain ends of unequal chains
/// are in [`check_issue_6_bounds`].
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

/// Issue 6's bounds on one target: chain ends within 2° where the chains' bone counts differ
/// (`--no-ik`); with leg IK placing the feet exactly (`ik_blend` 1, `--ik-max-leg-deg 180`),
/// feet within 1% of the target's height of the scaled source; with the defaults (the legs'
/// budget, 2°, which moves a foot toward its goal only as far as the thigh and shin stay near
/// the source's: the feet's cost printed), foot skate within 5% of the source's (math.md: in
/// leg lengths over the source's contacts; only printed for [`CMU_SKATE_NOT_MET`] with
/// [`Skate::Unlisted`]).
fn check_issue_6_bounds(bvh: &Path, target: &Path, extra: &[&str], skate: Skate) {
    let who = name(target);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(format!("all_{who}"));
    let mut args = extra.to_vec();
    args.push("--no-ik");
    let r = retarget(bvh, target, &out, &args);
    for c in r["clips"][0]["measured"]["chains"].as_array().unwrap() {
        if c["bones_deg"].is_null() {
            if let Some(d) = c["end_deg"].as_f64() {
                assert!(d <= 2.0, "{who}: {c}");
            }
        }
    }
    let mut args = extra.to_vec();
    args.extend(["--ik-max-leg-deg", "180"]);
    let r = retarget(bvh, target, &out, &args);
    let feet = |r: &serde_json::Value, bound: Option<f64>| {
        let mut feet = 0;
        for e in r["clips"][0]["measured"]["effectors"].as_array().unwrap() {
            if e["ik"] == true {
                let err = e["max_error"].as_f64().unwrap();
                eprintln!(
                    "CMU → {who}{}: {} within {:.3}% of the height",
                    if bound.is_some() {
                        " (ik_max_leg_deg 180)"
                    } else {
                        ""
                    },
                    e["bone"],
                    err * 100.0
                );
                assert!(bound.is_none_or(|b| err <= b), "{who}: {e}");
                feet += 1;
            }
        }
        assert_eq!(feet, 2, "{who}: both feet placed by IK");
    };
    feet(&r, Some(0.01));
    let r = retarget(bvh, target, &out, extra);
    feet(&r, None);
    let m = &r["clips"][0]["measured"];
    for s in m["skate"].as_array().unwrap() {
        let src = s["source"].as_f64().unwrap();
        let kept = s["target"].as_f64().unwrap();
        eprintln!(
            "CMU → {who}: {} skate {:.3}% → {:.3}% of leg length per frame over the source's contacts",
            s["bone"],
            src * 100.0,
            kept * 100.0
        );
        let listed = CMU_SKATE_NOT_MET.contains(&(who.as_str(), s["bone"].as_str().unwrap()));
        match skate {
            Skate::Both => assert!(kept <= 1.05 * src, "{who}: {s}"),
            Skate::Unlisted if !listed => assert!(kept <= 1.05 * src, "{who}: {s}"),
            Skate::Unlisted => {}
        }
    }
}

/// Which foot skate [`check_issue_6_bounds`] bounds.
#[derive(Clone, Copy)]
enum Skate {
    /// math.md's: without planting, within 5% of the source's (in leg lengths, over the
    /// source's contacts).
    Both,
    /// The same but for the feet of [`CMU_SKATE_NOT_MET`] (printed).
    Unlisted,
}

/// The feet whose skate (math.md: in leg lengths over the source's contacts, without planting)
/// is over 5% above the source's: RobotExpressive's feet, 2.011% and 1.042% against 0.940% and
/// 0.322% with the leg IK's budget (the default; 1.912% and 1.094% with the feet placed exactly,
/// `--ik-max-leg-deg 180`, which the figures below are of). ModularMen_Casual's right foot,
/// 0.339% against the source's 0.322% (1.054×) placed exactly, is within with the budget
/// (0.297%). Why (issue 42, measured per frame): the root pass moves the pelvis exactly as the source's,
/// scaled (0.000 leg lengths off), and the IK pass puts each foot exactly where the effector
/// measure wants it (0.000%): the target pelvis, plus the source foot's place below its pelvis
/// scaled, plus the difference `D` of the two stances (the target's rest foot below its
/// pelvis less the source's, scaled) turned with the hips' heading. Over the source's contacts
/// the hips turn 3.17° a frame (left foot) and 1.80° (right), and `D` is 0.328 of the robot's
/// leg length sideways (its hip joints 0.414 leg lengths from its pelvis, CMU's 0.086): the
/// turn of `D` alone moves a planted foot 1.81% and 1.03% of the leg length a frame; with `D`
/// held still the feet would skate exactly the source's 0.940% and 0.322%. ModularMen's `D`
/// is 0.042 leg lengths (0.23% and 0.13% a frame). Turning `D` with anything steadier over a
/// contact than the hips' heading leaves the effector measure, which turns each side's rest
/// stance with its hips' heading: with the feet's own heading (CMU's feet point 20° from its
/// hips at the median frame, 47° and 126° at the 95th percentile) the robot's feet would be
/// 9.6% and 21.6% of its height off at the 95th percentile (bound 1%), and the left would
/// still skate 1.897% (the foot pivots over its contacts). So the core passes cannot meet
/// both: holding the foot is planting's (tests/retarget_planted.rs).
const CMU_SKATE_NOT_MET: &[(&str, &str)] = &[
    ("RobotExpressive.glb", "LeftFoot"),
    ("RobotExpressive.glb", "RightFoot"),
];

/// Every issue-6 bound on the human targets, ModularMen_Casual and the mixamo fixture, but the
/// skate of the feet of [`CMU_SKATE_NOT_MET`] (printed).
#[test]
fn cmu_meets_every_issue_6_bound_on_human_targets() {
    let Some((bvh, targets)) = pairs() else {
        return;
    };
    for (target, extra) in targets
        .iter()
        .filter(|(t, _)| !name(t).starts_with("Robot"))
    {
        check_issue_6_bounds(&bvh, target, extra, Skate::Unlisted);
    }
}

/// Every issue-6 bound on RobotExpressive but the feet's skate (printed; [`CMU_SKATE_NOT_MET`]): feet
/// placed exactly within 1% of its height (0.000%: its hips tilt back where its straight legs do
/// not reach, 0.761% and 1.091% without; 7.6% and 7.2% with the legs' budget, which keeps the
/// legs within 2° where they were 35° off), spine end 0° (CMU's upper chest measured by its
/// turn), chain ends within 2°, no bone-length drift.
#[test]
fn cmu_meets_issue_6_bounds_on_the_robot_but_skate() {
    let Some((bvh, targets)) = pairs() else {
        return;
    };
    for (target, extra) in targets.iter().filter(|(t, _)| name(t).starts_with("Robot")) {
        check_issue_6_bounds(&bvh, target, extra, Skate::Unlisted);
    }
}

/// Not met (issue 42, math.md's measure: in leg lengths over the source's contacts): the feet of
/// [`CMU_SKATE_NOT_MET`]. The robot's feet skate 2.011% and 1.042% of its leg length per frame
/// against the source's 0.940% (left) and 0.322% (right) with the leg IK's budget (1.912% and
/// 1.094% placed exactly): the core passes turn its wide stance with the hips' heading, so a
/// foot planted in the source moves on the robot (figures and why the core passes cannot do
/// otherwise and keep the feet within 1%: [`CMU_SKATE_NOT_MET`]; planting brings them to
/// 1.083% and 0.221%: tests/retarget_planted.rs).
#[test]
#[ignore = "issue 42: CMU → RobotExpressive feet 2.14× and 3.24× the source's skate: the stance's difference turns with the hips"]
fn cmu_meets_every_issue_6_bound_on_every_target() {
    let Some((bvh, targets)) = pairs() else {
        return;
    };
    for (target, extra) in &targets {
        check_issue_6_bounds(&bvh, target, extra, Skate::Both);
    }
}
