//! Issue 21, the `Mirror` op of the retarget stack: retargeting with it equals retargeting and
//! then `skelnorm mirror` of the result (every joint, every frame, within 1e-5 of the height);
//! mirroring its output again gives the unmirrored retarget back; `alpha` 0 equals the op off
//! exactly; `--mirror` on the command line does the same.
#![allow(
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::Vec3;
use skelnorm::mirror::{Mirror, MirrorOptions};
use skelnorm::model::{Clip, Pose, Skeleton};
use skelnorm::profile::Profile;
use skelnorm::retarget::{retarget_clip, MirrorOp, Op, PlantOp, RetargetOptions, Retargeter};

/// Joint positions of `s` playing `clip` at each of `times`.
fn joints(s: &Skeleton, clip: &Clip, times: &[f32]) -> Vec<Vec<Vec3>> {
    times
        .iter()
        .map(|&t| {
            let p = Pose::sample(s, clip, t);
            p.world(s).iter().map(|m| m.w_axis.truncate()).collect()
        })
        .collect()
}

fn joints_of(s: &Skeleton, p: &Pose) -> Vec<Vec3> {
    p.world(s).iter().map(|m| m.w_axis.truncate()).collect()
}

/// The largest distance between corresponding joints of two frames, divided by `height`.
fn gap(a: &[Vec3], b: &[Vec3], height: f32) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(p, q)| p.distance(*q))
        .fold(0.0, f32::max)
        / height
}

/// [`gap`] over every frame.
fn worst(a: &[Vec<Vec3>], b: &[Vec<Vec3>], height: f32) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| gap(x, y, height))
        .fold(0.0, f32::max)
}

fn with_mirror(alpha: f32) -> RetargetOptions {
    RetargetOptions {
        ops: vec![
            Op::Plant(PlantOp::default()),
            Op::Mirror(MirrorOp {
                alpha,
                ..MirrorOp::default()
            }),
        ],
        ..RetargetOptions::default()
    }
}

fn frame_times(clip: &Clip, fps: f32) -> Vec<f32> {
    let d = clip.duration();
    (0..=(d * fps).ceil() as usize)
        .map(|f| (f as f32 / fps).min(d))
        .collect()
}

#[test]
fn the_mirror_op_equals_retarget_then_the_mirror_stage() {
    let root = common::root().join("fixtures");
    let src = common::normalized(&root.join("mixamo.glb"));
    for target in ["long_legs.glb", "ue_zup.glb", "vrm0.vrm"] {
        let dst = common::normalized(&root.join(target));
        let (s, t) = (common::rig(&src), common::rig(&dst));
        let clip = &src.model.clips[0];
        let plain = RetargetOptions {
            ops: vec![Op::Plant(PlantOp::default())],
            ..RetargetOptions::default()
        };
        let mirrored = retarget_clip(
            &s,
            clip,
            &t,
            skelnorm::model::SkeletonId(0),
            &with_mirror(1.0),
        )
        .unwrap()
        .clip;
        let unmirrored = retarget_clip(&s, clip, &t, skelnorm::model::SkeletonId(0), &plain)
            .unwrap()
            .clip;
        // The stage, on a model holding the unmirrored clip.
        let mut model = dst.model.clone();
        model.clips = vec![unmirrored.clone()];
        skelnorm::mirror::mirror(
            &mut model,
            skelnorm::model::SkeletonId(0),
            &dst.map,
            Profile::humanoid(),
            &MirrorOptions::default(),
        )
        .unwrap();
        let ts = &dst.model.skeletons[0];
        let times = frame_times(&mirrored, 30.0);
        let (a, b) = (
            joints(ts, &mirrored, &times),
            joints(ts, &model.clips[0], &times),
        );
        let h = ts.height();
        let err = worst(&a, &b, h);
        eprintln!("{target}: op vs stage, largest joint difference {err:.2e} of the height");
        assert!(err <= 1e-5, "{target}: {err:e}");
        // And the op did mirror: the clip differs from the unmirrored one.
        let moved = worst(&a, &joints(ts, &unmirrored, &times), h);
        assert!(
            moved > 1e-2,
            "{target}: mirroring moved joints by only {moved:e}"
        );
    }
}

/// The same on the shared real characters (an IK layout whose legs hang from `Body` and whose
/// feet sit on the root, a Quaternius rig, a VRM), with CMU's capture and mixamo's walk as
/// sources; skipped with a message when the assets are absent.
#[test]
fn the_mirror_op_equals_the_mirror_stage_on_real_characters() {
    let targets = common::require_any(&[
        "threejs/RobotExpressive.glb",
        "quaternius/ModularMen_Casual.glb",
        "vrm/sphere.vrm",
    ]);
    let mut sources = vec![common::root().join("fixtures/mixamo.glb")];
    sources.extend(common::require_any(&["bvh/cmu_131_03_maxfriendly.bvh"]));
    for source in &sources {
        let src = any_normalized(source);
        let clip = &src.model.clips[0];
        for target in &targets {
            let dst = common::normalized(target);
            let ts = &dst.model.skeletons[0];
            let (s, t) = (common::rig(&src), common::rig(&dst));
            let id = skelnorm::model::SkeletonId(0);
            let mirrored = retarget_clip(&s, clip, &t, id, &with_mirror(1.0))
                .unwrap()
                .clip;
            let plain = RetargetOptions {
                ops: vec![Op::Plant(PlantOp::default())],
                ..RetargetOptions::default()
            };
            let unmirrored = retarget_clip(&s, clip, &t, id, &plain).unwrap().clip;
            let mut model = dst.model.clone();
            model.clips = vec![unmirrored];
            skelnorm::mirror::mirror(
                &mut model,
                id,
                &dst.map,
                Profile::humanoid(),
                &MirrorOptions::default(),
            )
            .unwrap();
            let times = frame_times(&mirrored, 30.0);
            let err = worst(
                &joints(ts, &mirrored, &times),
                &joints(ts, &model.clips[0], &times),
                ts.height(),
            );
            let name = |p: &std::path::Path| p.file_name().unwrap().to_string_lossy().to_string();
            eprintln!(
                "{} onto {}: op vs stage, largest joint difference {err:.2e} of the height",
                name(source),
                name(target)
            );
            assert!(
                err <= 1e-5,
                "{} onto {}: {err:e}",
                name(source),
                name(target)
            );
        }
    }
}

/// [`common::normalized`] for any format (the CMU source is BVH).
fn any_normalized(path: &std::path::Path) -> common::Normalized {
    use skelnorm::mapping::{map_skeleton, MapOptions};
    use skelnorm::pipeline::{normalize, NormalizeOptions};
    let mut doc = skelnorm::io::read(path, &Default::default()).unwrap();
    normalize(
        &mut doc.model,
        Profile::humanoid(),
        &NormalizeOptions::default(),
    )
    .unwrap();
    let map = map_skeleton(
        &doc.model.skeletons[0],
        Profile::humanoid(),
        &MapOptions::default(),
    );
    common::Normalized {
        model: doc.model,
        map,
    }
}

#[test]
fn mirroring_the_op_output_gives_the_unmirrored_retarget_and_alpha_0_is_off() {
    let root = common::root().join("fixtures");
    let src = common::normalized(&root.join("mixamo.glb"));
    let dst = common::normalized(&root.join("long_legs.glb"));
    let (s, t) = (common::rig(&src), common::rig(&dst));
    let (ss, ts) = (&src.model.skeletons[0], &dst.model.skeletons[0]);
    let plain = RetargetOptions {
        ops: vec![Op::Plant(PlantOp::default())],
        ..RetargetOptions::default()
    };
    let mut on = Retargeter::new(&s, &t, &with_mirror(1.0)).unwrap();
    let mut off = Retargeter::new(&s, &t, &plain).unwrap();
    let mut zero = Retargeter::new(&s, &t, &with_mirror(0.0)).unwrap();
    let mut half = Retargeter::new(&s, &t, &with_mirror(0.5)).unwrap();
    let back = Mirror::new(ts, &dst.map, Profile::humanoid(), &MirrorOptions::default()).unwrap();
    let h = ts.height();
    let (mut a, mut b, mut c, mut d, mut e) = (
        Pose::rest(ts),
        Pose::rest(ts),
        Pose::rest(ts),
        Pose::rest(ts),
        Pose::rest(ts),
    );
    let (mut twice, mut halfway) = (0.0f32, f32::INFINITY);
    for f in 0..40 {
        let p = Pose::sample(ss, &src.model.clips[0], f as f32 / 30.0);
        on.retarget(&p, &mut a).unwrap();
        off.retarget(&p, &mut b).unwrap();
        zero.retarget(&p, &mut c).unwrap();
        half.retarget(&p, &mut e).unwrap();
        assert_eq!(
            c.locals, b.locals,
            "frame {f}: alpha 0 is the op off, exactly"
        );
        back.mirror_pose(&a, &mut d).unwrap();
        twice = twice.max(gap(&joints_of(ts, &d), &joints_of(ts, &b), h));
        // Alpha 0.5 lies strictly between: away from both ends.
        let (ja, jb, je) = (joints_of(ts, &a), joints_of(ts, &b), joints_of(ts, &e));
        let apart = gap(&ja, &jb, h);
        if apart > 1e-2 {
            let from_ends = gap(&je, &ja, h).min(gap(&je, &jb, h));
            halfway = halfway.min(from_ends / apart);
        }
    }
    eprintln!("mirrored twice: largest joint difference {twice:.2e} of the height");
    assert!(twice <= 1e-5, "{twice:e}");
    assert!(halfway > 0.1, "alpha 0.5 is near an end: {halfway}");
}

/// `skelnorm retarget --mirror` writes what `skelnorm retarget` and then `skelnorm mirror` do.
#[test]
fn the_mirror_flag_equals_retarget_then_skelnorm_mirror() {
    let root = common::root().join("fixtures");
    let dir = tempfile::tempdir().unwrap();
    let (src, dst) = (root.join("mixamo.glb"), root.join("long_legs.glb"));
    let (a, b, c) = (
        dir.path().join("a.glb"),
        dir.path().join("b.glb"),
        dir.path().join("c.glb"),
    );
    let stage = common::retarget_stage(
        &src,
        &dst,
        &a,
        &["--normalized", "--mirror", "--suffix", "_m"],
    );
    let ops = &stage["clips"][0]["measured"]["ops"];
    assert!(
        ops["mirror"].is_object(),
        "the report's ops carry the mirror: {ops}"
    );
    common::retarget_stage(&src, &dst, &b, &["--normalized", "--suffix", "_m"]);
    let run = common::skelnorm(&["mirror", b.to_str().unwrap(), "-o", c.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let (ma, mc) = (
        skelnorm::gltf_io::read(&a).unwrap().model,
        skelnorm::gltf_io::read(&c).unwrap().model,
    );
    let name = "walk_m";
    let clip =
        |m: &skelnorm::model::Model| m.clips.iter().find(|c| c.name == name).unwrap().clone();
    let (ca, cc) = (clip(&ma), clip(&mc));
    let s = &ma.skeletons[0];
    let times = frame_times(&ca, 30.0);
    let err = worst(
        &joints(s, &ca, &times),
        &joints(&mc.skeletons[0], &cc, &times),
        s.height(),
    );
    eprintln!("--mirror vs retarget + mirror: {err:.2e} of the height");
    assert!(err <= 1e-5, "{err:e}");
}
