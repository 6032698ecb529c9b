//! Issue 42, item 1: retargets onto IK-layout targets (`fixtures/kaykit.glb`, KayKit's rig
//! without shoulders and with its IK controls on the root; `fixtures/quaternius_ik.glb`,
//! Quaternius's feet on the root bone), measured on the written file and independently of the
//! report: both files read back, normalized and mapped, their joints sampled at the output's
//! frames, and each segment between two profile bones of one chain mapped on both sides compared
//! as a direction in its own character's body frame (the heading of its thighs' line), every
//! frame. Before, the target's upper arm took the source's shoulder's change (KayKit has no
//! shoulders: 70° off on Xbot's walk) and a thumb without its metacarpal its metacarpal's
//! (23°), and CMU's arm, whose shoulder is longer than Mixamo's, blended its shoulder into the
//! upper arm (40°). Sources: the mixamo fixture, CMU's BVH and Isaac Gym's CMU FBX (shared
//! assets, skipped when absent).
//!
//! The legs are bounded with the leg IK on (the default) as with the FK pass alone (`--no-ik`):
//! a leg whose thigh and shin are not in the source's proportions (KayKit's thigh 1.5 times its
//! shin, Quaternius's 0.65, Mixamo's 1.0) cannot put its foot where the source's goes, scaled,
//! with the source's knee and thigh directions, and the IK pass's budget
//! (`retarget.ik_max_leg_deg`, 2°) keeps the directions: the foot goes toward its goal only as
//! far as the budget allows. Without the budget (`--ik-max-leg-deg 180`) Xbot's run put
//! KayKit's shin 52° off. What the budget costs the feet (the report's end-effector error, % of
//! the target's height) is printed beside it.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::{Quat, Vec3};
use skelnorm::mapping::{map_skeleton, BoneMap, MapOptions};
use skelnorm::model::{Model, Pose};
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::{Profile, ProfileBoneId};
use std::path::Path;

/// A file read back (any format), normalized, with the map of its first skeleton.
struct Side {
    model: Model,
    map: BoneMap,
}

fn load(path: &Path) -> Side {
    let profile = Profile::humanoid();
    let mut doc = skelnorm::io::read(path, &skelnorm::io::ReadOptions::default()).unwrap();
    normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
    let map = map_skeleton(&doc.model.skeletons[0], profile, &MapOptions::default());
    Side {
        model: doc.model,
        map,
    }
}

/// Each profile bone's joint (skeleton space) at each time of `clip`, `None` where unmapped.
fn joints(side: &Side, clip: &str, times: &[f32]) -> Vec<Vec<Option<Vec3>>> {
    let skel = &side.model.skeletons[0];
    let clip = side.model.clips.iter().find(|c| c.name == clip).unwrap();
    let below = skel.base.inverse();
    let profile = Profile::humanoid();
    times
        .iter()
        .map(|&t| {
            let world = Pose::sample(skel, clip, t).world(skel);
            profile
                .ids()
                .map(|p| {
                    let b = side.map.get(p)?;
                    Some(below.transform_point3(world[b.index()].w_axis.truncate()))
                })
                .collect()
        })
        .collect()
}

/// The segments measured: each profile bone mapped on both sides, from its nearest profile
/// ancestor mapped on both sides, where one profile chain holds both.
fn segments(a: &Side, b: &Side) -> Vec<(ProfileBoneId, ProfileBoneId)> {
    let profile = Profile::humanoid();
    let both = |p: ProfileBoneId| a.map.get(p).is_some() && b.map.get(p).is_some();
    let mut out = Vec::new();
    for p in profile.ids().filter(|&p| both(p)) {
        let mut up = profile.bone(p).parent;
        while let Some(u) = up.filter(|&u| !both(u)) {
            up = profile.bone(u).parent;
        }
        let Some(u) = up else { continue };
        if profile
            .chains
            .iter()
            .any(|c| c.bones.contains(&u) && c.bones.contains(&p))
        {
            out.push((u, p));
        }
    }
    out
}

/// The turn that takes a frame's thighs' line (left less right) to +X about +Y.
fn body(at: &[Option<Vec3>]) -> Quat {
    let profile = Profile::humanoid();
    let joint = |n: &str| at[profile.find(n).unwrap().index()].unwrap();
    let l = joint("LeftUpperLeg") - joint("RightUpperLeg");
    Quat::from_rotation_y(-(-l.z).atan2(l.x))
}

/// Worst and mean direction error, degrees, of each segment: `(from, to, worst, mean)`.
fn direction_errors(
    source: &Side,
    source_clip: &str,
    output: &Side,
    clip: &str,
) -> Vec<(String, String, f32, f32)> {
    let segs = segments(source, output);
    segment_errors(source, source_clip, output, clip, segs, body)
}

/// [`direction_errors`] of the segments `segs` (from, to), each side's directions turned by
/// `frame` of its joints at that frame ([`body`], or none: skeleton space).
fn segment_errors(
    source: &Side,
    source_clip: &str,
    output: &Side,
    clip: &str,
    segs: Vec<(ProfileBoneId, ProfileBoneId)>,
    frame: fn(&[Option<Vec3>]) -> Quat,
) -> Vec<(String, String, f32, f32)> {
    let duration = output
        .model
        .clips
        .iter()
        .find(|c| c.name == clip)
        .unwrap()
        .duration();
    let frames = (duration * 30.0).round() as usize + 1;
    let times: Vec<f32> = (0..frames)
        .map(|i| (i as f32 / 30.0).min(duration))
        .collect();
    let (s, t) = (
        joints(source, source_clip, &times),
        joints(output, clip, &times),
    );
    let profile = Profile::humanoid();
    segs.into_iter()
        .map(|(u, p)| {
            let angles: Vec<f32> = s
                .iter()
                .zip(&t)
                .map(|(fs, ft)| {
                    let dir = |f: &[Option<Vec3>]| {
                        (frame(f) * (f[p.index()].unwrap() - f[u.index()].unwrap())).normalize()
                    };
                    dir(fs).dot(dir(ft)).clamp(-1.0, 1.0).acos().to_degrees()
                })
                .collect();
            let worst = angles.iter().copied().fold(0.0, f32::max);
            let mean = angles.iter().sum::<f32>() / angles.len() as f32;
            (
                profile.bone(u).name.clone(),
                profile.bone(p).name.clone(),
                worst,
                mean,
            )
        })
        .collect()
}

fn is_leg(bone: &str) -> bool {
    ["UpperLeg", "LowerLeg", "Foot", "Toes"]
        .iter()
        .any(|k| bone.contains(k))
}

#[test]
fn ik_layout_targets_follow_the_source_segment_by_segment() {
    let mut sources = vec![(
        common::root().join("fixtures/mixamo.glb"),
        vec!["walk", "wave"],
    )];
    if let Some([cmu]) = common::require(["bvh/cmu_131_03_maxfriendly.bvh"]) {
        sources.push((cmu, vec!["cmu_131_03_maxfriendly"]));
    }
    // Isaac Gym's CMU 07_01 as FBX: its upper arms were 104° off on KayKit.
    if let Some([fbx]) = common::require(["fbx/cmu_07_01_isaacgym.fbx"]) {
        sources.push((fbx, vec!["07_01|07_01"]));
    }
    let dir = tempfile::tempdir().unwrap();
    let mut measured = 0;
    for target in ["kaykit.glb", "quaternius_ik.glb"] {
        let target = common::root().join("fixtures").join(target);
        for (source_path, clips) in &sources {
            let source = load(source_path);
            for clip in clips {
                for ik in [true, false] {
                    let out = dir.path().join(format!("{clip}_{ik}.glb"));
                    let mut extra = vec!["--clip", clip, "--on-clash", "replace"];
                    if !ik {
                        extra.push("--no-ik");
                    }
                    let stage = common::retarget_stage(source_path, &target, &out, &extra);
                    print_feet(&stage, &format!("{clip} → {} (ik {ik})", target.display()));
                    let output = load(&out);
                    for (from, to, worst, mean) in direction_errors(&source, clip, &output, clip) {
                        let what = format!(
                            "{} `{clip}` → {} ({}): {from} → {to} worst {worst:.2}°, mean {mean:.2}°",
                            source_path.file_name().unwrap().to_string_lossy(),
                            target.file_name().unwrap().to_string_lossy(),
                            if ik { "leg IK" } else { "--no-ik" },
                        );
                        eprintln!("{what}");
                        // The foot's rest direction to its toes is each rig's own (KayKit's
                        // ankle sits high above its toes): a constant offset no turn of the
                        // foot could take out without lifting the toes off the floor.
                        if !to.ends_with("Toes") {
                            assert!(worst <= 3.0, "{what}");
                            measured += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(measured > 40, "{measured} segments bounded");
}

/// CMU's neck is two bones, `lowerneck` and `Neck`: the profile's `Neck` maps the first, `Head`
/// maps `Head`, and the second neck bone lies unmapped inside the segment `Neck` → `Head`. The
/// target's `Neck` took the change of the source's upper neck bone alone, and the segment, which
/// turns with both, was 4.1° off on the mean and 11.7° at worst on ModularMen and
/// RobotExpressive: aimed along the source's segment, it follows it within 2° on the written
/// file (here read back with the Rust reader; the segment spans two profile chains, which
/// [`segments`] does not pair, so it is named).
#[test]
fn a_segment_with_an_unmapped_source_bone_inside_follows_the_source() {
    let Some([cmu, men, robot]) = common::require([
        "bvh/cmu_131_03_maxfriendly.bvh",
        "quaternius/ModularMen_Casual.glb",
        "threejs/RobotExpressive.glb",
    ]) else {
        return;
    };
    let source = load(&cmu);
    let profile = Profile::humanoid();
    // The premise: the source's `Neck` → `Head` holds a bone neither maps.
    let (neck, head) = (profile.find("Neck").unwrap(), profile.find("Head").unwrap());
    let skel = &source.model.skeletons[0];
    let (sn, sh) = (source.map.get(neck).unwrap(), source.map.get(head).unwrap());
    let mid = skel.bones[sh.index()].parent.unwrap();
    assert!(mid != sn && skel.bones[mid.index()].parent == Some(sn));
    assert!(source.map.profile_bone_of(mid).is_none());
    let dir = tempfile::tempdir().unwrap();
    let clip = "cmu_131_03_maxfriendly";
    for target in [men, robot] {
        let out = dir.path().join("out.glb");
        common::retarget_stage(&cmu, &target, &out, &[]);
        let output = load(&out);
        let errors = segment_errors(&source, clip, &output, clip, vec![(neck, head)], body);
        let (_, _, worst, mean) = errors[0];
        let what = format!(
            "CMU → {}: Neck → Head worst {worst:.2}°, mean {mean:.2}°",
            target.file_name().unwrap().to_string_lossy()
        );
        eprintln!("{what}");
        assert!(worst <= 2.0, "{what}");
    }
}

/// Quaternius's Male_Casual.fbx held an unmapped bone, `MiddleHand.R`, between its right
/// hand (`Palm.R`) and the bone its right middle finger mapped to (`Fingers.R`), which the right
/// arm's chain read past the hand. Its length stretched the chain's arc length: the hand sat at
/// u = 0.896, the target's hand took the knuckle bone's turn, and `RightHand` →
/// `RightMiddleProximal` was 32.5° off at worst in `Man_Punch` on ModularMen_Casual and
/// RobotExpressive (issue 42; the mechanism is covered on a built rig by the unit tests of
/// `retarget`). Since issue 43 `MiddleHand.R` is the right middle finger's proximal bone, as
/// `MiddleHand.L` is the left's (the thumb `Thumb1.R` hanging from it no longer hides it), so
/// both hands' segments run from the palm to `MiddleHand` and on to `Fingers`, and the thumbs'
/// from `Thumb1` to `Thumb2`: every clip within 2° on the written file, read back, for the arm's
/// segments, both hands and the fingers both sides map. Measured in skeleton space: the source's
/// legs hang beside its hips (an IK layout), so its thighs' line is no body frame (in
/// `Man_Punch` it put every arm segment 15° off on the mean); both sides face +Z and their hips
/// take the same change.
#[test]
fn quaternius_hands_land_on_their_counterparts() {
    let Some([quaternius, men, robot]) = common::require([
        "fbx/quaternius_Male_Casual.fbx",
        "quaternius/ModularMen_Casual.glb",
        "threejs/RobotExpressive.glb",
    ]) else {
        return;
    };
    let source = load(&quaternius);
    let profile = Profile::humanoid();
    let find = |n: &str| profile.find(n).unwrap();
    // The premise: both hands map alike, the middle finger's proximal bone right below the hand
    // (no unmapped bone between them).
    let skel = &source.model.skeletons[0];
    for side in ["Left", "Right"] {
        let hand = source.map.get(find(&format!("{side}Hand"))).unwrap();
        let finger = source
            .map
            .get(find(&format!("{side}MiddleProximal")))
            .unwrap();
        assert_eq!(skel.bones[finger.index()].parent, Some(hand), "{side}");
    }
    let segs = [
        ("RightUpperArm", "RightLowerArm"),
        ("RightLowerArm", "RightHand"),
        ("RightHand", "RightMiddleProximal"),
        ("RightMiddleProximal", "RightMiddleIntermediate"),
        ("RightThumbProximal", "RightThumbDistal"),
        ("LeftHand", "LeftMiddleProximal"),
        ("LeftMiddleProximal", "LeftMiddleIntermediate"),
        ("LeftThumbProximal", "LeftThumbDistal"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for target in [men, robot] {
        let out = dir.path().join("out.glb");
        let report = common::retarget_stage(&quaternius, &target, &out, &[]);
        let output = load(&out);
        let clips = report["clips"].as_array().unwrap();
        assert!(clips.len() >= 10, "{} clips", clips.len());
        for c in clips {
            let (sc, tc) = (
                c["source_clip"].as_str().unwrap(),
                c["clip"].as_str().unwrap(),
            );
            let pairs = segs.iter().map(|(a, b)| (find(a), find(b))).collect();
            let errors = segment_errors(&source, sc, &output, tc, pairs, |_| Quat::IDENTITY);
            for (from, to, worst, mean) in errors {
                let what = format!(
                    "Male_Casual → {}, {sc}: {from} → {to} worst {worst:.2}°, mean {mean:.2}°",
                    target.file_name().unwrap().to_string_lossy()
                );
                if from.starts_with("Right") && !from.contains("Arm") {
                    eprintln!("{what}");
                }
                assert!(worst <= 2.0, "{what}");
            }
        }
    }
}

/// The feet's end-effector error the report gives (the target's foot from the source's, scaled
/// by the legs' ratio, worst over the frames, % of the target's height): what the legs' budget
/// costs.
fn print_feet(stage: &serde_json::Value, what: &str) {
    for e in stage["clips"][0]["measured"]["effectors"]
        .as_array()
        .unwrap()
    {
        if e["ik"] == true {
            eprintln!(
                "{what}: {} within {:.2}% of the height of the scaled source's",
                e["bone"],
                e["max_error"].as_f64().unwrap() * 100.0
            );
        }
    }
}

/// How far beyond the legs' budget the measure may read a segment, degrees: the budget is met
/// within 0.01° (`kept_goal`'s tolerance) in the retargeter's own frame, and this read-back
/// samples the written clip again, in each character's body frame.
const MEASURE_SLACK_DEG: f32 = 0.05;

/// The legs' budget on the human pairs whose proportions differ (CMU's thigh:shin against
/// ModularMen_Casual's; the mixamo fixture's against RobotExpressive's), read back from the
/// written file: with the leg IK on (the default) every leg segment but the foot's to its toes
/// within the budget (2°) plus [`MEASURE_SLACK_DEG`] of the source's, every frame; without the
/// budget (`--ik-max-leg-deg 180`) they were 15.5° and 4.4° off. The feet's cost is printed.
/// Skips the pairs whose files are absent.
#[test]
fn the_leg_ik_keeps_the_legs_within_their_budget() {
    let mut pairs = Vec::new();
    if let Some([cmu, men]) = common::require([
        "bvh/cmu_131_03_maxfriendly.bvh",
        "quaternius/ModularMen_Casual.glb",
    ]) {
        pairs.push((cmu, men, "cmu_131_03_maxfriendly"));
    }
    if let Some([robot]) = common::require(["threejs/RobotExpressive.glb"]) {
        pairs.push((common::root().join("fixtures/mixamo.glb"), robot, "walk"));
    }
    let dir = tempfile::tempdir().unwrap();
    for (source_path, target, clip) in &pairs {
        let out = dir.path().join("out.glb");
        let extra = ["--clip", clip, "--on-clash", "replace"];
        let stage = common::retarget_stage(source_path, target, &out, &extra);
        let what = format!(
            "{} `{clip}` → {}",
            source_path.file_name().unwrap().to_string_lossy(),
            target.file_name().unwrap().to_string_lossy(),
        );
        print_feet(&stage, &what);
        let (source, output) = (load(source_path), load(&out));
        let mut legs = 0;
        for (from, to, worst, mean) in direction_errors(&source, clip, &output, clip) {
            eprintln!("{what}: {from} → {to} worst {worst:.3}°, mean {mean:.3}°");
            if is_leg(&to) && !to.ends_with("Toes") {
                assert!(
                    worst <= 2.0 + MEASURE_SLACK_DEG,
                    "{what}: {from} → {to} {worst}°"
                );
                legs += 1;
            }
        }
        assert_eq!(legs, 4, "{what}: thigh and shin of both legs measured");
    }
}

/// The report says what it did not compare: the mixamo fixture's shoulder, above where KayKit's
/// shoulder-less arm starts, is `before_start`, not `detached` (it hangs where it should).
#[test]
fn the_report_names_the_source_bones_above_the_targets_start() {
    let dir = tempfile::tempdir().unwrap();
    let stage = common::retarget_stage(
        &common::root().join("fixtures/mixamo.glb"),
        &common::root().join("fixtures/kaykit.glb"),
        &dir.path().join("out.glb"),
        &["--clip", "walk"],
    );
    let chains = stage["clips"][0]["measured"]["chains"].as_array().unwrap();
    let arm = chains.iter().find(|c| c["chain"] == "LeftArm").unwrap();
    let source = &arm["source_mapping"];
    assert_eq!(source["before_start"], serde_json::json!(["LeftShoulder"]));
    assert!(source.get("detached").is_none(), "{source}");
    assert_eq!(source["mapped"], 4);
    let plan = stage["plan"]["chains"].as_array().unwrap();
    let arm = plan.iter().find(|c| c["chain"] == "LeftArm").unwrap();
    assert_eq!(arm["source_bones"], arm["target_bones"]);
}

/// Issue 42: an IK-layout SOURCE. Quaternius's `Male_Casual.fbx` (Blender 2.79's IK rig,
/// baked) hangs `Foot.L`/`Foot.R` on its root bone `Bone`, not below `LowerLeg.L`. The plan read
/// its legs down to the shins only: the target's shin blended the source's thigh into its own
/// and its foot turned as the source's shin (legs 5.7° off on `Walk`, 41.8° on `RunningJump`
/// onto ModularMen_Casual; 53.5° onto the mixamo fixture). Now each leg pairs bone by bone, the
/// foot taking its own change, and the shin aims at the source foot's joint: read back from the
/// written file, every segment but the foot's to its toes within the leg IK's budget (2°) plus
/// [`MEASURE_SLACK_DEG`], every clip, onto ModularMen_Casual, RobotExpressive (whose feet hang
/// on its root too: unchanged) and the mixamo fixture; the report's worst segment within the
/// budget and its tolerance. Where the source's feet travel over their contacts (skate of at
/// least 5% of leg length per frame: `Walk`, `Run`, `RunningJump`), the target's skate is
/// within 5% of the source's (math.md); the other clips' are printed: where the source's feet
/// stand, the budget lets the target's, on legs of other proportions, slide up to 0.8% of leg
/// length per frame (`Punch` onto ModularMen_Casual; 0.2% before, when the legs were 12° off
/// and the leg IK could place the feet; `--plant` holds them). Measured in
/// skeleton space (both rigs face +Z), not in the thighs' heading: this source's thighs hang
/// beside its hips, from `Body`, and keep their heading where `Punch` twists the hips, while the
/// target's turn with its hips (Spine → Chest read 1.7° off, the shoulders 22.5°, in that frame).
#[test]
fn an_ik_layout_source_drives_each_leg_bone_by_bone() {
    let Some([quaternius, men, robot]) = common::require([
        "fbx/quaternius_Male_Casual.fbx",
        "quaternius/ModularMen_Casual.glb",
        "threejs/RobotExpressive.glb",
    ]) else {
        return;
    };
    let source = load(&quaternius);
    print_feet_off_the_shins(&source);
    let dir = tempfile::tempdir().unwrap();
    let mut measured = 0;
    for target in [men, robot, common::root().join("fixtures/mixamo.glb")] {
        let out = dir.path().join("out.glb");
        let stage = common::retarget_stage(&quaternius, &target, &out, &["--on-clash", "replace"]);
        let name = target.file_name().unwrap().to_string_lossy().to_string();
        let plan = stage["plan"]["chains"].as_array().unwrap();
        // Bone by bone: the foot too where the target's hangs below its shin (RobotExpressive's
        // follows its shin, as the source's moves, from the chain's shin); the source has no
        // toes.
        for leg in ["LeftLeg", "RightLeg"] {
            let c = plan.iter().find(|c| c["chain"] == leg).unwrap();
            let (s, t) = (
                c["source_bones"].as_array().unwrap(),
                c["target_bones"].as_array().unwrap(),
            );
            assert_eq!(s[..], t[..s.len()], "{name}: {leg}");
            assert_eq!(s.len(), t.len().min(3), "{name}: {leg}");
        }
        let output = load(&out);
        let clips = stage["clips"].as_array().unwrap();
        assert_eq!(clips.len(), 11, "{name}");
        for c in clips {
            let clip = c["clip"].as_str().unwrap();
            let what = format!("{name} `{clip}`");
            let reported = c["measured"]["segments"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["worst_deg"].as_f64().unwrap())
                .fold(0.0, f64::max);
            assert!(
                reported <= 2.01,
                "{what}: the report's worst segment {reported}°"
            );
            let source_clip = c["source_clip"].as_str().unwrap();
            let segs = segments(&source, &output);
            let errors = segment_errors(&source, source_clip, &output, clip, segs, |_| {
                Quat::IDENTITY
            });
            for (from, to, worst, mean) in errors {
                if to.ends_with("Toes") {
                    continue;
                }
                eprintln!("{what}: {from} → {to} worst {worst:.3}°, mean {mean:.3}°");
                assert!(
                    worst <= 2.0 + MEASURE_SLACK_DEG,
                    "{what}: {from} → {to} {worst}°"
                );
                measured += 1;
            }
            for s in c["measured"]["skate"].as_array().unwrap() {
                let (a, b) = (s["source"].as_f64().unwrap(), s["target"].as_f64().unwrap());
                eprintln!(
                    "{what}: {} skate {:.3}% → {:.3}% of leg length per frame",
                    s["bone"],
                    a * 100.0,
                    b * 100.0
                );
                if a >= 0.05 {
                    assert!(b <= a * 1.05, "{what}: {} skate {a}% → {b}%", s["bone"]);
                }
            }
        }
    }
    assert!(measured > 300, "{measured} segments bounded");
}

/// How far each of `side`'s clips puts its feet from where they would hang below their shins
/// (the shin's tip: the foot's rest place in the shin's rest frame, carried by the shin), worst
/// over the frames at 30 fps, % of the leg length (thigh, shin and foot joints at rest): what
/// the shin's own turn misses of the segment to the foot's joint in an IK layout.
fn print_feet_off_the_shins(side: &Side) {
    let skel = &side.model.skeletons[0];
    let profile = Profile::humanoid();
    let bone = |n: &str| side.map.get(profile.find(n).unwrap()).unwrap().index();
    let rest = skel.rest_world();
    for s in ["Left", "Right"] {
        let (thigh, shin, foot) = (
            bone(&format!("{s}UpperLeg")),
            bone(&format!("{s}LowerLeg")),
            bone(&format!("{s}Foot")),
        );
        let at = |m: &glam::Mat4| m.w_axis.truncate();
        let leg =
            at(&rest[thigh]).distance(at(&rest[shin])) + at(&rest[shin]).distance(at(&rest[foot]));
        let below = rest[shin].inverse().transform_point3(at(&rest[foot]));
        for clip in &side.model.clips {
            let frames = (clip.duration() * 30.0).round() as usize + 1;
            let worst = (0..frames)
                .map(|f| {
                    let world = Pose::sample(skel, clip, (f as f32 / 30.0).min(clip.duration()))
                        .world(skel);
                    world[shin]
                        .transform_point3(below)
                        .distance(at(&world[foot]))
                })
                .fold(0.0f32, f32::max);
            eprintln!(
                "source `{}`: {s}Foot off its shin's tip by up to {:.2}% of the leg length",
                clip.name,
                worst / leg * 100.0
            );
        }
    }
}
