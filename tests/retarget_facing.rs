//! Issue 40: a normalized VRM 0.x character faces −Z in its file (its clients turn it 180°), so
//! the runtime retargeter, given two separately normalized skeletons that face opposite ways in
//! their files, turns the source's motion to face as the target does (`Plan::source_turn_deg`).
//! The result is the pipeline's: the same source normalized to face as the target does, with no
//! turn. Every frame of mixamo's walk onto the VRM 0.x fixture, joint positions within 1e-5 of the
//! height; and the hips walk the way the target faces.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::mapping::{map_skeleton, MapOptions};
use skelnorm::model::Pose;
use skelnorm::pipeline::{normalize, NormalizeOptions};
use skelnorm::profile::Profile;
use skelnorm::retarget::{RetargetOptions, Retargeter};

#[test]
fn a_source_facing_the_other_way_is_turned_to_face_as_the_target() {
    let root = common::root().join("fixtures");
    let source = common::normalized(&root.join("mixamo.glb"));
    let target = common::normalized(&root.join("vrm0.vrm"));
    // The pipeline's way: the source normalized as the target's clients show a scene.
    let profile = Profile::humanoid();
    let mut doc = skelnorm::gltf_io::read(&root.join("mixamo.glb")).unwrap();
    doc.model.view_turn = target.model.view_turn;
    normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
    let map = map_skeleton(&doc.model.skeletons[0], profile, &MapOptions::default());
    let turned = common::Normalized {
        model: doc.model,
        map,
    };
    let options = RetargetOptions::default();
    let t = common::rig(&target);
    let mut a = Retargeter::new(&common::rig(&source), &t, &options).unwrap();
    let mut b = Retargeter::new(&common::rig(&turned), &t, &options).unwrap();
    assert_eq!(a.plan().source_turn_deg, 180.0);
    assert_eq!(b.plan().source_turn_deg, 0.0);
    let ts = &target.model.skeletons[0];
    let h = ts.height();
    let (mut pa, mut pb) = (Pose::rest(ts), Pose::rest(ts));
    let clip = &source.model.clips[0];
    let clip_b = &turned.model.clips[0];
    let frames = (clip.duration() * 30.0) as usize + 1;
    let mut worst = 0.0f32;
    let hips = t.map.get(profile.find("Hips").unwrap()).unwrap().index();
    let (mut first, mut last) = (None, None);
    for f in 0..frames {
        let time = f as f32 / 30.0;
        a.retarget(
            &Pose::sample(&source.model.skeletons[0], clip, time),
            &mut pa,
        )
        .unwrap();
        b.retarget(
            &Pose::sample(&turned.model.skeletons[0], clip_b, time),
            &mut pb,
        )
        .unwrap();
        let (wa, wb) = (pa.world(ts), pb.world(ts));
        for (x, y) in wa.iter().zip(&wb) {
            worst = worst.max(x.w_axis.truncate().distance(y.w_axis.truncate()) / h);
        }
        let p = wa[hips].w_axis.truncate();
        first.get_or_insert(p);
        last = Some(p);
    }
    println!("{frames} frames, worst joint {worst:e} of the height");
    assert!(
        worst <= 1e-5,
        "runtime and pipeline differ by {worst} of the height"
    );
    // The walk goes forward for the target: toward −Z in its file.
    let walked = last.unwrap() - first.unwrap();
    println!("hips moved {walked}");
    assert!(
        walked.z < -0.1 * h,
        "the hips moved {walked}: not toward −Z, where the VRM 0.x target faces in its file"
    );
}
