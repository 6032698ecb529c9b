//! Issue 21: a character retargeted onto itself gets its own motion back. RobotExpressive's
//! clips (its `Foot.L`/`Foot.R` are IK targets on the root bone, moved where the shins do not
//! reach) retargeted robot → robot: every joint of every frame within 1e-4 of its height of the
//! source's, with the core passes alone and with planting and the floor.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::Vec3;
use skelnorm::model::{Pose, Skeleton};
use skelnorm::retarget::{FloorOp, Op, PlantOp, RetargetOptions, Retargeter};

use common::{normalized, rig};

/// Joint positions of `pose` on `skel`, skeleton space.
fn joints(skel: &Skeleton, pose: &Pose) -> Vec<Vec3> {
    let below = skel.base.inverse();
    pose.world(skel)
        .iter()
        .map(|m| below.transform_point3(m.w_axis.truncate()))
        .collect()
}

#[test]
fn robot_onto_itself_gives_its_clips_back() {
    let Some([robot]) = common::require(["threejs/RobotExpressive.glb"]) else {
        return;
    };
    let n = normalized(&robot);
    let r = rig(&n);
    let skel = r.skeleton;
    let height = skel.stature();
    let stacks = [
        ("core", RetargetOptions::default()),
        (
            "plant+floor",
            RetargetOptions {
                ops: vec![Op::Plant(PlantOp::default()), Op::Floor(FloorOp::default())],
                ..RetargetOptions::default()
            },
        ),
    ];
    let mut worst_all = 0.0f32;
    for (name, options) in &stacks {
        for clip in &n.model.clips {
            let mut rt = Retargeter::new(&r, &r, options).unwrap();
            let frames = (clip.duration() * 30.0).round() as usize + 1;
            let mut worst = (0.0f32, 0usize, String::new());
            for f in 0..frames {
                let sp = Pose::sample(skel, clip, f as f32 / 30.0);
                let mut tp = Pose::rest(skel);
                rt.retarget(&sp, &mut tp).unwrap();
                let (a, b) = (joints(skel, &sp), joints(skel, &tp));
                for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                    if n.map
                        .profile_bone_of(skelnorm::model::BoneId(i as u32))
                        .is_none()
                    {
                        continue;
                    }
                    let d = x.distance(*y) / height;
                    if d > worst.0 {
                        worst = (d, f, skel.bones[i].name.clone());
                    }
                }
            }
            if std::env::var("SELF_FRAMES").is_ok() {
                let f = worst.1;
                let sp = Pose::sample(skel, clip, f as f32 / 30.0);
                let mut rt = Retargeter::new(&r, &r, options).unwrap();
                for g in 0..=f {
                    let sp = Pose::sample(skel, clip, g as f32 / 30.0);
                    let mut tp = Pose::rest(skel);
                    rt.retarget(&sp, &mut tp).unwrap();
                    if g == f {
                        for (i, (x, y)) in sp.locals.iter().zip(&tp.locals).enumerate() {
                            if x.translation.distance(y.translation) > 1e-4
                                || x.rotation.dot(y.rotation).abs() < 0.99999
                            {
                                eprintln!(
                                    "  local {} src {:?} {:?} dst {:?} {:?}",
                                    skel.bones[i].name,
                                    x.translation,
                                    x.rotation,
                                    y.translation,
                                    y.rotation
                                );
                            }
                        }
                        let (a, b) = (joints(skel, &sp), joints(skel, &tp));
                        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
                            if n.map
                                .profile_bone_of(skelnorm::model::BoneId(i as u32))
                                .is_some()
                            {
                                eprintln!(
                                    "  {} {:?} {:?} {:.4}",
                                    skel.bones[i].name,
                                    x,
                                    y,
                                    x.distance(*y) / height
                                );
                            }
                        }
                    }
                }
                let _ = sp;
            }
            eprintln!(
                "{name} `{}`: worst {:.6} of the height, frame {} `{}`",
                clip.name, worst.0, worst.1, worst.2
            );
            worst_all = worst_all.max(worst.0);
        }
    }
    assert!(worst_all <= 1e-4, "worst {worst_all}");
}
