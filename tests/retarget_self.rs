//! Issue 21: a character retargeted onto itself gets its own motion back. RobotExpressive's
//! clips retargeted robot → robot (its `Foot.L`/`Foot.R` are IK targets on the root bone that
//! its clips move where the shins do not reach, and its thighs hang from `Body` beside `Hips`),
//! with the core passes alone: every mapped joint of every frame within 1e-4 of its height of
//! the source's (4.1% at the shins to 13.9% at `Punch`'s right foot before the feet kept the
//! source's move). Planting and the floor (alone and together) are logged, not bounded: the floor
//! lifts the robot's standing feet by 0.24% of its height already on `Idle`'s first frame, and
//! planting holds feet the robot's clips let drift (`Walking`: the right shin 1.5% off).
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::Vec3;
use skelnorm::model::{BoneId, Pose, Skeleton};
use skelnorm::retarget::{FloorOp, Op, PlantOp, RetargetOptions, Retargeter};

/// RobotExpressive normalized as the CLI's retarget normalizes it, with the map normalizing
/// found (on the bones as authored: `Foot.L`/`Foot.R` on the root map as the feet).
fn robot(path: &std::path::Path) -> common::Normalized {
    use skelnorm::pipeline::{normalize, NormalizeOptions};
    let profile = skelnorm::profile::Profile::humanoid();
    let mut doc = skelnorm::gltf_io::read(path).unwrap();
    let report = normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
    let first = &report.skeletons[0];
    assert!(first.skipped.is_none());
    common::Normalized {
        map: first.bone_map.clone(),
        model: doc.model,
    }
}

/// Joint positions of `pose` on `skel`, skeleton space.
fn joints(skel: &Skeleton, pose: &Pose) -> Vec<Vec3> {
    let below = skel.base.inverse();
    pose.world(skel)
        .iter()
        .map(|m| below.transform_point3(m.w_axis.truncate()))
        .collect()
}

/// Whether `bone` is `above` or hangs below it.
fn below(skel: &Skeleton, bone: usize, above: usize) -> bool {
    let mut at = Some(BoneId(bone as u32));
    while let Some(b) = at {
        if b.index() == above {
            return true;
        }
        at = skel.bones[b.index()].parent;
    }
    false
}

/// Every mapped joint, every frame, with the core passes (the op stacks logged); except the joints at or below a bone whose
/// translation the clip animates and the retarget does not carry (the retarget moves the hips,
/// the root and the bones that hang apart; `Death`, `Jump` and `Punch` also move `Head` or the
/// shoulders away from their joints, which no retarget transfers: a known gap, logged).
#[test]
fn robot_onto_itself_gives_its_clips_back() {
    let Some([file]) = common::require(["threejs/RobotExpressive.glb"]) else {
        return;
    };
    let n = robot(&file);
    let r = common::rig(&n);
    let feet = ["LeftFoot", "RightFoot"].map(|f| n.map.by_name(r.profile, f));
    assert!(feet.iter().all(Option::is_some), "the feet are mapped");
    let skel = r.skeleton;
    let height = skel.stature();
    let stacks = [
        ("core", RetargetOptions::default()),
        (
            "plant",
            RetargetOptions {
                ops: vec![Op::Plant(PlantOp::default())],
                ..RetargetOptions::default()
            },
        ),
        (
            "floor",
            RetargetOptions {
                ops: vec![Op::Floor(FloorOp::default())],
                ..RetargetOptions::default()
            },
        ),
        (
            "plant+floor",
            RetargetOptions {
                ops: vec![Op::Plant(PlantOp::default()), Op::Floor(FloorOp::default())],
                ..RetargetOptions::default()
            },
        ),
    ];
    let mapped: Vec<usize> = (0..skel.bones.len())
        .filter(|&i| n.map.profile_bone_of(BoneId(i as u32)).is_some())
        .collect();
    let mut checked = 0;
    for (name, options) in &stacks {
        for clip in &n.model.clips {
            let mut rt = Retargeter::new(&r, &r, options).unwrap();
            let translated: Vec<usize> = rt.recorded().1.iter().map(|b| b.index()).collect();
            let frames = (clip.duration() * 30.0).round() as usize + 1;
            let poses: Vec<Pose> = (0..frames)
                .map(|f| Pose::sample(skel, clip, f as f32 / 30.0))
                .collect();
            // Mapped bones the clip moves from their rest place that the retarget does not move.
            let moved: Vec<usize> = mapped
                .iter()
                .copied()
                .filter(|i| !translated.contains(i))
                .filter(|&i| {
                    poses.iter().any(|p| {
                        p.locals[i]
                            .translation
                            .distance(skel.bones[i].rest.translation)
                            > 1e-5 * height
                    })
                })
                .collect();
            let (mut worst, mut gap) = ((0.0f32, 0, ""), 0.0f32);
            for (f, sp) in poses.iter().enumerate() {
                let mut tp = Pose::rest(skel);
                rt.retarget(sp, &mut tp).unwrap();
                let (a, b) = (joints(skel, sp), joints(skel, &tp));
                for &i in &mapped {
                    let d = a[i].distance(b[i]) / height;
                    if moved.iter().any(|&m| below(skel, i, m)) {
                        gap = gap.max(d);
                    } else if d > worst.0 {
                        worst = (d, f, skel.bones[i].name.as_str());
                    }
                }
            }
            let names: Vec<&str> = moved.iter().map(|&i| skel.bones[i].name.as_str()).collect();
            eprintln!(
                "{name} `{}`: worst {:.2e} of the height (frame {} `{}`); below the bones it translates {names:?}: {gap:.4}",
                clip.name, worst.0, worst.1, worst.2
            );
            if *name == "core" {
                assert!(worst.0 <= 1e-4, "{name} `{}`: {worst:?}", clip.name);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, stacks.len() * n.model.clips.len());
    assert!(n.model.clips.len() >= 14, "{} clips", n.model.clips.len());
}
