//! Issue 21: planting's contacts "from a curve named in the file" (`PlantOp::contacts`). The
//! generated `planted_walk` (examples/make_fixtures/planted.rs) gets two float curves saying
//! its ground-truth stance phases; retargeted from the base rig onto longer legs, planting that
//! reads them holds each foot still over exactly those frames and leaves the others as the core
//! passes put them, where detection from foot height and speed also holds the low, slow first
//! and last frames of each swing. A curve that says a swinging foot is planted holds it: the
//! curve is what planting follows. A curve the clip lacks is an error naming it and the clip;
//! `alpha` 0 is the op off.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use glam::Vec3;
use skelnorm::model::{Clip, Curve, Interpolation, SkeletonId, Track};
use skelnorm::profile::Profile;
use skelnorm::retarget::{
    retarget_clip, retarget_clip_with, Contacts, Op, PlantOp, RetargetError, RetargetOptions,
    Retargeter,
};

use common::ops::{foot_locks, joint_frames};
use common::{normalized, rig, Normalized};

const CLIP: &str = "planted_walk";
/// The walk's frames: 2 s at 30 fps (examples/make_fixtures/planted.rs: `KEYS`).
const FRAMES: usize = 61;

fn fixture(name: &str) -> Normalized {
    normalized(&common::root().join("fixtures").join(name))
}

/// Whether a foot stands at frame `f` in the generated walk (planted.rs: a cycle of 1 s, the
/// stance its first 60 %, the right foot half a cycle behind the left).
fn stance(f: usize, shift: f32) -> bool {
    let cycles = f as f32 / 30.0 - shift;
    let phase = cycles - cycles.floor();
    // Clear of the phase's boundaries by far more than rounding (frames fall on 1/30 s).
    phase < 0.6 - 1e-3
}

/// A float curve keyed on every frame (STEP, so a value holds until the next key).
fn curve(name: &str, values: impl Fn(usize) -> f32) -> Curve {
    Curve {
        name: name.into(),
        track: Track {
            interpolation: Interpolation::Step,
            times: (0..FRAMES).map(|f| f as f32 / 30.0).collect(),
            values: (0..FRAMES).map(values).collect(),
        },
    }
}

/// The walk of `s` with `curves`.
fn walk_with(s: &Normalized, curves: Vec<Curve>) -> Clip {
    let mut c = s
        .model
        .clips
        .iter()
        .find(|c| c.name == CLIP)
        .unwrap()
        .clone();
    c.curves = curves;
    c
}

/// The ground-truth stance of each foot as `FootLock_L`/`FootLock_R` (1 planted, 0 not).
fn truth_curves() -> Vec<Curve> {
    let on = |b: bool| if b { 1.0 } else { 0.0 };
    vec![
        curve("FootLock_L", move |f| on(stance(f, 0.0))),
        curve("FootLock_R", move |f| on(stance(f, 0.5))),
    ]
}

fn plant(contacts: Contacts, tweak: impl Fn(&mut PlantOp)) -> RetargetOptions {
    let mut p = PlantOp {
        contacts,
        ..PlantOp::default()
    };
    tweak(&mut p);
    RetargetOptions {
        ops: vec![Op::Plant(p)],
        ..RetargetOptions::default()
    }
}

/// Each foot's joint per frame (left, right) of `clip` retargeted onto `t`.
fn feet(s: &Normalized, t: &Normalized, clip: &Clip, options: &RetargetOptions) -> [Vec<Vec3>; 2] {
    let r = retarget_clip(&rig(s), clip, &rig(t), SkeletonId(0), options).unwrap();
    let ts = &t.model.skeletons[0];
    let at = joint_frames(ts, &r.clip);
    assert_eq!(at.len(), FRAMES);
    ["LeftFoot", "RightFoot"].map(|n| {
        let b = t.map.get(Profile::humanoid().find(n).unwrap()).unwrap();
        at.iter().map(|j| j[b.index()]).collect()
    })
}

fn flat(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// Frames where each foot's output differs from the core passes' by more than `tol` (horizontal).
fn moved_frames(with: &[Vec3], without: &[Vec3], tol: f32) -> Vec<usize> {
    (0..FRAMES)
        .filter(|&f| flat(with[f] - without[f]).length() > tol)
        .collect()
}

/// The ground truth from curves: with no blend, each foot stays where it stood at its
/// contact's first frame over every frame its curve says it stands, and elsewhere is where the
/// core passes put it. Detection (the default) holds other frames too (a swing's first and last
/// frames, where the foot is low and slow): the curves, not the heights, made the difference.
#[test]
fn curve_contacts_hold_the_feet_over_exactly_their_frames() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let h = t.model.skeletons[0].stature();
    let clip = walk_with(&s, truth_curves());
    // Held exactly where the curves say: no legs' budget (its drag is not what is tested).
    let crisp = |p: &mut PlantOp| {
        p.blend_s = 0.0;
        p.max_leg_deg = 180.0;
    };
    let core = feet(&s, &t, &clip, &RetargetOptions::default());
    let by_curves = feet(&s, &t, &clip, &plant(foot_locks(0.5), crisp));
    let detected = feet(&s, &t, &clip, &plant(Contacts::Detect, crisp));
    let mut detection_differs = false;
    for (side, shift) in [(0, 0.0), (1, 0.5)] {
        let mut held: Option<Vec3> = None;
        for f in 0..FRAMES {
            let at = flat(by_curves[side][f]);
            if stance(f, shift) {
                let anchor = *held.get_or_insert(at);
                let off = (at - anchor).length();
                assert!(
                    off <= 1e-4 * h,
                    "foot {side} frame {f}: {off} from its hold"
                );
            } else {
                held = None;
                let off = flat(by_curves[side][f] - core[side][f]).length();
                assert!(
                    off <= 1e-5 * h,
                    "foot {side} frame {f}: held off its contact ({off})"
                );
            }
        }
        let by_detection = moved_frames(&detected[side], &core[side], 1e-5 * h);
        let swinging: Vec<usize> = by_detection
            .iter()
            .copied()
            .filter(|&f| !stance(f, shift))
            .collect();
        eprintln!("foot {side}: detection holds swing frames {swinging:?}");
        detection_differs |= !swinging.is_empty();
    }
    assert!(
        detection_differs,
        "detection held no swing frame: the test shows nothing"
    );
}

/// A curve that says the left foot still stands through the first half of its first swing
/// (frames 0–24; the walk lifts it at frame 18) and the right foot never does: the left foot
/// is held at its first place over those frames (no drag allowed), where the core passes' left
/// foot walks; the right foot is the core passes' on every frame. Ignoring the curve would
/// let the left foot swing.
#[test]
fn a_curve_that_says_planted_holds_a_swinging_foot() {
    const HELD: usize = 24;
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let h = t.model.skeletons[0].stature();
    let lock = |f: usize| if f <= HELD { 1.0 } else { 0.0 };
    let clip = walk_with(
        &s,
        vec![curve("FootLock_L", lock), curve("FootLock_R", |_| 0.0)],
    );
    let options = plant(foot_locks(0.5), |p| {
        p.blend_s = 0.0;
        p.max_offset = 10.0;
        p.max_leg_deg = 180.0;
    });
    let core = feet(&s, &t, &clip, &RetargetOptions::default());
    let [left, right] = feet(&s, &t, &clip, &options);
    let walked = flat(core[0][HELD] - core[0][0]).length();
    assert!(
        walked > 0.1 * h,
        "the core passes' left foot swings ({walked})"
    );
    for f in 0..FRAMES {
        if f <= HELD {
            let off = flat(left[f] - left[0]).length();
            assert!(
                off <= 1e-4 * h,
                "frame {f}: the left foot left its hold by {off}"
            );
        } else {
            let off = flat(left[f] - core[0][f]).length();
            assert!(
                off <= 1e-5 * h,
                "frame {f}: the left foot held after its curve ({off})"
            );
        }
        let off = flat(right[f] - core[1][f]).length();
        assert!(
            off <= 1e-5 * h,
            "frame {f}: the right foot was held ({off})"
        );
    }
    // The threshold decides: at 1.5 no value of the curve counts as a contact.
    let high = plant(foot_locks(1.5), |p| p.max_offset = 10.0);
    let [left, _] = feet(&s, &t, &clip, &high);
    assert!(moved_frames(&left, &core[0], 1e-5 * h).is_empty());
}

/// A curve the clip lacks is an error naming the curve and the clip (and the curves it has);
/// with `alpha` 0 (the op off) no curve is looked up and the output is the core passes'.
#[test]
fn a_missing_curve_is_an_error_and_alpha_0_is_off() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let clip = walk_with(&s, vec![curve("FootLock_L", |_| 1.0)]);
    let options = plant(foot_locks(0.5), |_| {});
    let err = retarget_clip(&rig(&s), &clip, &rig(&t), SkeletonId(0), &options).unwrap_err();
    assert!(matches!(err, RetargetError::MissingCurve { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("`FootLock_R`") && text.contains(CLIP) && text.contains("`FootLock_L`"),
        "{text}"
    );
    let off = plant(foot_locks(0.5), |p| p.alpha = 0.0);
    let a = retarget_clip(&rig(&s), &clip, &rig(&t), SkeletonId(0), &off).unwrap();
    let b = retarget_clip(
        &rig(&s),
        &clip,
        &rig(&t),
        SkeletonId(0),
        &RetargetOptions::default(),
    )
    .unwrap();
    assert_eq!(a.clip.tracks, b.clip.tracks);
    // The retargeted clip keeps the source's curves.
    assert_eq!(a.clip.curves, clip.curves);
}

/// A value equal to the threshold is a contact: a curve at 0.5 throughout holds the left foot
/// as one at 1 does, and one just under it as one at 0 does.
#[test]
fn a_value_at_the_threshold_is_a_contact() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let options = plant(foot_locks(0.5), |_| {});
    let left = |v: f32| {
        let clip = walk_with(
            &s,
            vec![
                curve("FootLock_L", move |_| v),
                curve("FootLock_R", |_| 0.0),
            ],
        );
        feet(&s, &t, &clip, &options)[0].clone()
    };
    let (at, on, under, off) = (left(0.5), left(1.0), left(0.5 - 1e-6), left(0.0));
    assert_eq!(at, on);
    assert_eq!(under, off);
    assert_ne!(at, off);
}

/// Offline retargeting with a retargeter the caller keeps plants on the clip's curves and then
/// gives the caller's ground and contacts back, also when a curve is missing.
#[test]
fn offline_retargeting_leaves_the_callers_contacts_and_ground() {
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let options = plant(foot_locks(0.5), |_| {});
    let (rs, rt) = (rig(&s), rig(&t));
    let mut r = Retargeter::new(&rs, &rt, &options).unwrap();
    let ground = Some(Vec3::new(0.5, 0.0, -1.0));
    r.set_treadmill(ground);
    r.set_contacts(Some([false, true]));
    let clip = walk_with(&s, truth_curves());
    let with = retarget_clip_with(&mut r, &rs, &clip, &rt, SkeletonId(0), &options).unwrap();
    assert_eq!(r.contacts(), Some([false, true]));
    assert_eq!(r.treadmill(), ground);
    let fresh = retarget_clip(&rs, &clip, &rt, SkeletonId(0), &options).unwrap();
    assert_eq!(with.tracks, fresh.clip.tracks);
    let lacking = walk_with(&s, vec![curve("FootLock_L", |_| 1.0)]);
    retarget_clip_with(&mut r, &rs, &lacking, &rt, SkeletonId(0), &options).unwrap_err();
    assert_eq!(r.contacts(), Some([false, true]));
    assert_eq!(r.treadmill(), ground);
}
