//! Issue 21: planting on the treadmill of a source that runs in place. Ground truth from the
//! generated `planted_walk` (examples/make_fixtures/planted.rs: the hips travel forward at a
//! constant speed, each stance foot stands at one world place) with its travel taken out of the
//! source itself: the same walk in place, whose stance feet slide back at the walk's speed, as
//! an in-place game clip's do. Its treadmill is the walk's velocity reversed, and planting on it
//! must give what planting gives the travelling walk retargeted in place (`--in-place` holds feet
//! in the travelling frame). Runs without the shared assets.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::{Mat4, Quat, Vec3};
use skelnorm::check::retarget::{ops_check, retarget as measure};
use skelnorm::model::{Clip, Pose, SkeletonId};
use skelnorm::profile::Profile;
use skelnorm::retarget::{
    detect_treadmill, retarget_clip, FloorOp, Op, PlantOp, RetargetOptions, Retargeter, Treadmill,
};
use std::sync::Arc;

use common::ops::joint_frames;
use common::{normalized, rig, Normalized};

fn fixture(name: &str) -> Normalized {
    normalized(&common::root().join("fixtures").join(name))
}

fn walk(n: &Normalized) -> &Clip {
    n.model
        .clips
        .iter()
        .find(|c| c.name == "planted_walk")
        .unwrap()
}

/// The bone of profile bone `name`.
fn bone(n: &Normalized, name: &str) -> usize {
    let p = Profile::humanoid().find(name).unwrap();
    n.map.get(p).unwrap().index()
}

/// `planted_walk` of `n` in place: the hips' translation keys less their steady horizontal
/// travel (first key to last, in proportion to the time), and that travel's velocity in
/// skeleton space (units per second). The walk's sway stays.
fn in_place(n: &Normalized) -> (Clip, Vec3) {
    let s = &n.model.skeletons[0];
    let c = walk(n);
    let hips = bone(n, "Hips");
    let moved: Vec<usize> = (c.tracks.iter().enumerate())
        .filter(|(_, t)| t.translation.is_some())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(moved, vec![hips], "only the hips travel");
    let mut out = c.clone();
    let t = out.tracks[hips].translation.as_mut().unwrap();
    let (first, last) = (t.values[0], t.values[t.values.len() - 1]);
    let (t0, t1) = (t.times[0], t.times[t.times.len() - 1]);
    let travel = Vec3::new(last.x - first.x, 0.0, last.z - first.z);
    let values: Vec<Vec3> = (t.times.iter().zip(t.values.iter()))
        .map(|(&time, &v)| v - travel * ((time - t0) / (t1 - t0)))
        .collect();
    t.values = Arc::from(values);
    let at = joint_frames(s, c);
    let (a, b) = (at[0][hips], at[at.len() - 1][hips]);
    let velocity = Vec3::new(b.x - a.x, 0.0, b.z - a.z) / c.duration();
    (out, velocity)
}

fn stack(treadmill: Treadmill, in_place: bool) -> RetargetOptions {
    RetargetOptions {
        in_place,
        ops: vec![
            Op::Plant(PlantOp {
                treadmill,
                ..PlantOp::default()
            }),
            Op::Floor(FloorOp::default()),
        ],
        ..RetargetOptions::default()
    }
}

/// The in-place walk's treadmill is found from the clip: the walk's velocity reversed, within
/// 1e-4 of its speed on every fixture; the travelling walk (its feet stand) has none.
#[test]
fn the_in_place_walks_treadmill_is_its_travel_reversed() {
    for name in [
        "identity.gltf",
        "long_legs.glb",
        "short_legs.glb",
        "spine5.glb",
    ] {
        let (n, other) = (fixture(name), fixture("identity.gltf"));
        let (clip, velocity) = in_place(&n);
        let options = stack(Treadmill::Detect, false);
        let r = Retargeter::new(&rig(&n), &rig(&other), &options).unwrap();
        let plant = PlantOp::default();
        let found = detect_treadmill(&rig(&n), &clip, r.plan(), 30.0, &plant).unwrap();
        let miss = found.distance(-velocity) / velocity.length();
        eprintln!(
            "{name}: walk {velocity:?}/s, treadmill found {found:?}/s ({:.1e} of its speed off)",
            miss
        );
        assert!(miss <= 1e-4, "{name}: {found:?} against {:?}", -velocity);
        assert!(velocity.length() > 0.1 * n.model.skeletons[0].stature());
        let travelling = detect_treadmill(&rig(&n), walk(&n), r.plan(), 30.0, &plant);
        assert_eq!(travelling, None, "{name}: the travelling walk");
    }
}

/// Planting on the treadmill: the in-place walk retargeted with planting and the floor (its
/// treadmill found from the clip) is the travelling walk retargeted with `--in-place` (feet held
/// in the travelling frame), both with `in_place` so that the sway is taken out alike: every
/// joint of every frame within 2e-5 of the target's height, onto longer and shorter legs and
/// another spine. Without the treadmill (today's planting) the in-place walk's sliding feet are
/// never planted and the output follows them: at least 0.05% of the height off.
#[test]
fn planting_on_the_treadmill_is_planting_the_travelling_walk_in_place() {
    let s = fixture("identity.gltf");
    let (clip, _) = in_place(&s);
    for b in ["long_legs.glb", "short_legs.glb", "spine5.glb"] {
        let t = fixture(b);
        let ts = &t.model.skeletons[0];
        let out = |c: &Clip, o: &RetargetOptions| {
            let r = retarget_clip(&rig(&s), c, &rig(&t), SkeletonId(0), o).unwrap();
            joint_frames(ts, &r.clip)
        };
        let truth = out(walk(&s), &stack(Treadmill::Off, true));
        let worst = |got: &[Vec<Vec3>]| {
            (got.iter().zip(&truth))
                .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| x.distance(*y)))
                .fold(0.0f32, f32::max)
                / ts.stature()
        };
        let on = worst(&out(&clip, &stack(Treadmill::Detect, true)));
        let off = worst(&out(&clip, &stack(Treadmill::Off, true)));
        eprintln!(
            "identity → {b}: the in-place walk planted on its treadmill within {:.2e} of the height of the travelling walk retargeted in place ({:.3}% without the treadmill)",
            on,
            off * 100.0
        );
        assert!(on <= 2e-5, "{b}: {on}");
        assert!(off >= 5e-4, "{b}: {off}");
    }
}

/// The runtime takes the treadmill as a setting (`Plant((treadmill: velocity((x, z))))`) or
/// through `Retargeter::set_treadmill`: frame by frame it gives the offline keys of the clip
/// whose treadmill was found (the same velocity), and `reset` keeps it.
#[test]
fn the_runtime_plants_on_a_treadmill_it_is_given() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let (clip, _) = in_place(&s);
    let (sr, tr) = (rig(&s), rig(&t));
    let offline = retarget_clip(
        &sr,
        &clip,
        &tr,
        SkeletonId(0),
        &stack(Treadmill::Detect, false),
    )
    .unwrap();
    let probe = Retargeter::new(&sr, &tr, &stack(Treadmill::Detect, false)).unwrap();
    let g = detect_treadmill(&sr, &clip, probe.plan(), 30.0, &PlantOp::default()).unwrap();
    let given = stack(Treadmill::Velocity([g.x, g.z]), false);
    let mut set = Retargeter::new(&sr, &tr, &stack(Treadmill::Detect, false)).unwrap();
    assert_eq!(set.treadmill(), None, "detect: none at runtime until set");
    set.set_treadmill(Some(g));
    set.reset();
    let mut by_setting = Retargeter::new(&sr, &tr, &given).unwrap();
    assert_eq!(by_setting.treadmill(), Some(g));
    let ts = &t.model.skeletons[0];
    let n = (clip.duration() * 30.0).round() as usize + 1;
    let mut worst = 0.0f32;
    for f in 0..n {
        let sp = Pose::sample(sr.skeleton, &clip, f as f32 / 30.0);
        let (mut a, mut b) = (Pose::rest(ts), Pose::rest(ts));
        set.retarget(&sp, &mut a).unwrap();
        by_setting.retarget(&sp, &mut b).unwrap();
        assert_eq!(a.locals, b.locals, "frame {f}");
        let keys = Pose::sample(ts, &offline.clip, f as f32 / 30.0);
        for (x, y) in a.locals.iter().zip(&keys.locals) {
            // Quaternion distance (about half the angle, in radians), either hemisphere.
            let (p, q) = (glam::Vec4::from(x.rotation), glam::Vec4::from(y.rotation));
            worst = worst.max((p - q).length().min((p + q).length()));
            worst = worst.max(x.translation.distance(y.translation) / ts.stature());
        }
    }
    eprintln!("runtime on the given treadmill against the offline keys: {worst:.1e}");
    assert!(worst <= 1e-5, "{worst}");
}

/// The measure over the treadmill: the in-place walk's feet skate over their ground (source:
/// the velocity found; output: scaled as travel is, not measured on the output) as the
/// travelling walk's feet do over a still ground (math.md's figure), within 1e-6 of the leg
/// length; the literal figure of the in-place walk stays in `skate` (the feet slide).
#[test]
fn skate_over_the_treadmill_is_the_travelling_walks_skate() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let (clip, _) = in_place(&s);
    let (sr, tr) = (rig(&s), rig(&t));
    let options = stack(Treadmill::Detect, false);
    let r = retarget_clip(&sr, &clip, &tr, SkeletonId(0), &options).unwrap();
    let m = measure((&sr, &clip), (&tr, &r.clip), &r.plan, &options);
    let bare = retarget_clip(&sr, &clip, &tr, SkeletonId(0), &options.core_only()).unwrap();
    let o = ops_check((&sr, &clip), (&tr, &r.clip), &bare.clip, &r.plan, &options);
    let travelling = retarget_clip(&sr, walk(&s), &tr, SkeletonId(0), &options).unwrap();
    let truth = measure((&sr, walk(&s)), (&tr, &travelling.clip), &r.plan, &options);
    assert!(truth.treadmill.is_none());
    let tm = m.treadmill.as_ref().unwrap();
    let ratio = r.plan.hips_ratio;
    let (vs, vt) = (
        Vec3::from(tm.source_velocity),
        Vec3::from(tm.target_velocity),
    );
    assert!(vt.distance(vs * ratio) <= 1e-6 * vt.length());
    let without = o.treadmill_skate_without.as_ref().unwrap();
    for (k, foot) in ["LeftFoot", "RightFoot"].iter().enumerate() {
        let (lit, on, want) = (&m.skate[k], &tm.skate[k], &truth.skate[k]);
        eprintln!(
            "{foot}: source {:.4}% over its treadmill ({:.4}% travelling, {:.3}% literal), output {:.4}% over its treadmill ({:.4}% travelling; {:.4}% with the core passes)",
            on.source.unwrap() * 100.0,
            want.source.unwrap() * 100.0,
            lit.source.unwrap() * 100.0,
            on.target.unwrap() * 100.0,
            want.target.unwrap() * 100.0,
            without[k].target.unwrap() * 100.0,
        );
        assert!((on.source.unwrap() - want.source.unwrap()).abs() <= 1e-6);
        assert!(
            lit.source.unwrap() > 10.0 * on.source.unwrap(),
            "{foot} slides"
        );
        let (a, b) = (on.target, want.target);
        assert!(
            (a.unwrap() - b.unwrap()).abs() <= 1e-6,
            "{foot}: {a:?} {b:?}"
        );
        // Both are float rounding here (about 1e-7 of the leg): 1e-6 as the op tests allow.
        assert!(
            a.unwrap() <= on.source.unwrap() + 1e-6,
            "{foot}: at most the source's: {a:?} against {:?}",
            on.source
        );
    }
}

/// `n` and its `clip` with the skeleton's up axis turned by nodes kept above it, as ue_zup.glb's
/// Z-up armature node kept by `rest.apply_node_transforms: false` turns it: the base turned −90°
/// about X, the root bones' rests and keys turned back, so every joint stays where it was in the
/// scene and the skeleton space is Z-up.
fn kept_turned(n: &Normalized, clip: &Clip) -> (Normalized, Clip) {
    let back = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    let mut model = n.model.clone();
    let s = &mut model.skeletons[0];
    s.base *= Mat4::from_quat(back.inverse());
    let roots: Vec<usize> = (s.bones.iter().enumerate())
        .filter(|(_, b)| b.parent.is_none())
        .map(|(i, _)| i)
        .collect();
    let mut c = clip.clone();
    for &i in &roots {
        let rest = &mut s.bones[i].rest;
        (rest.translation, rest.rotation) = (back * rest.translation, back * rest.rotation);
        if let Some(t) = &mut c.tracks[i].translation {
            t.values = t.values.iter().map(|v| back * *v).collect();
        }
        if let Some(t) = &mut c.tracks[i].rotation {
            t.values = t.values.iter().map(|q| back * *q).collect();
        }
    }
    let map = n.map.clone();
    (Normalized { model, map }, c)
}

/// A source whose kept nodes above turn its up axis (identity.gltf's in-place walk under a Z-up
/// base, [`kept_turned`]) is read as the same source folded: its treadmill is found in its
/// skeleton space with the turn folded (Y up: the plain rig's velocity, within 1e-4 of its
/// speed), and its walk planted on it retargets, through the per-frame `Retargeter`, as the
/// plain rig's does (every joint within 1e-5 of the target's height). Looked for in the Z-up
/// skeleton space, it was 0.87 units per second against 0.60 (45% of its speed off): the feet
/// in contact were told by their height along the walk's back axis.
#[test]
fn a_kept_turned_source_is_planted_on_its_treadmill_as_folded() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let (clip, _) = in_place(&s);
    let (k, kept_clip) = kept_turned(&s, &clip);
    let options = stack(Treadmill::Detect, false);
    let plant = PlantOp::default();
    let found = |n: &Normalized, c: &Clip| {
        let probe = Retargeter::new(&rig(n), &rig(&t), &options).unwrap();
        detect_treadmill(&rig(n), c, probe.plan(), 30.0, &plant)
    };
    let (want, got) = (found(&s, &clip).unwrap(), found(&k, &kept_clip));
    let miss = got.map_or(f32::INFINITY, |g| g.distance(want) / want.length());
    eprintln!("kept, turned source: treadmill {got:?} against {want:?} ({miss:.1e} of its speed)");
    assert!(miss <= 1e-4, "{got:?} against {want:?}");
    let ts = &t.model.skeletons[0];
    let out = |n: &Normalized, c: &Clip| {
        let r = retarget_clip(&rig(n), c, &rig(&t), SkeletonId(0), &options).unwrap();
        joint_frames(ts, &r.clip)
    };
    let (a, b) = (out(&s, &clip), out(&k, &kept_clip));
    let worst = (a.iter().zip(&b))
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| p.distance(*q)))
        .fold(0.0f32, f32::max)
        / ts.stature();
    eprintln!(
        "kept, turned source planted on its treadmill: joints within {worst:.1e} of the height"
    );
    assert!(worst <= 1e-5, "{worst}");
}
