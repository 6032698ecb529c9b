//! The retarget ops the op-stack tests switch on and off, each as `make(enabled, alpha)`.

use glam::Vec3;
use skelnorm::check::retarget::{ChainCheck, RetargetCheck};
use skelnorm::model::{Clip, Pose, Skeleton};
use skelnorm::retarget::{
    Contacts, FilterOp, FloorOp, Op, PassOp, PinOp, PinSpace, PlantOp, PoleOp, RetargetOptions,
    StrideOp,
};

/// Makes an op from `enabled` and `alpha`.
pub type MakeOp = fn(bool, f32) -> Op;

/// The op `make(enabled, alpha)`, with settings that make it act on the fixtures (a raised
/// floor; a filter that lags; a pole offset).
pub fn every() -> Vec<(&'static str, MakeOp)> {
    vec![
        ("root", |enabled, alpha| Op::Root(PassOp { enabled, alpha })),
        ("fk", |enabled, alpha| Op::Fk(PassOp { enabled, alpha })),
        ("ik", |enabled, alpha| Op::Ik(PassOp { enabled, alpha })),
        ("plant", |enabled, alpha| {
            Op::Plant(PlantOp {
                enabled,
                alpha,
                ..PlantOp::default()
            })
        }),
        ("plant with the slide limiter", |enabled, alpha| {
            Op::Plant(PlantOp {
                enabled,
                alpha,
                limit_slide: true,
                ..PlantOp::default()
            })
        }),
        ("floor", |enabled, alpha| {
            Op::Floor(FloorOp {
                enabled,
                alpha,
                height: 0.05,
                ..FloorOp::default()
            })
        }),
        ("filter", |enabled, alpha| {
            Op::Filter(FilterOp {
                enabled,
                alpha,
                ..FilterOp::default()
            })
        }),
        ("stride", |enabled, alpha| {
            Op::Stride(StrideOp {
                enabled,
                alpha,
                forward: 0.7,
                sideways: 1.0,
            })
        }),
        ("pin", |enabled, alpha| {
            Op::Pin(PinOp {
                enabled,
                alpha,
                bone: "LeftHand".into(),
                from: "RightHand".into(),
                space: PinSpace::RestRelative,
            })
        }),
        ("pole", |enabled, alpha| {
            Op::Pole(PoleOp {
                enabled,
                alpha,
                offset_deg: 20.0,
            })
        }),
    ]
}

/// Issue 6's direction bounds and no length drift, as the op-stack tests read them: chains
/// other than the legs within 0.5° bone for bone where the counts match, chain ends within 2°
/// otherwise. The legs' thighs and shins bend where the ops put the feet (that is their job,
/// and with leg IK issue 6 bounds a leg by where its foot goes): of a leg, the end (the foot,
/// which keeps its turn) is bounded, within 0.5°. Returns the legs' worst paired-bone angle and
/// the other chains' worst angle, for the log.
pub fn issue_6_directions(at: &str, m: &RetargetCheck) -> (f32, f32) {
    let (mut legs, mut others) = (0.0f32, 0.0f32);
    for c in &m.chains {
        if c.chain.ends_with("Leg") {
            assert!(
                c.end_deg.is_some_and(|e| e <= 0.5),
                "{at}: chain {} end {:?}°",
                c.chain,
                c.end_deg
            );
            legs = legs.max(c.bones_deg.unwrap_or(0.0));
            continue;
        }
        others = others.max(c.bones_deg.or(c.end_deg).unwrap_or(0.0));
        chain_within_issue_6(at, c);
    }
    assert!(m.length_drift <= 1e-5, "{at}: drift {}", m.length_drift);
    (legs, others)
}

/// Issue 6's direction bound on one chain: with equal bone counts, paired bone directions within
/// 0.5°; otherwise the chain's end direction within 2°.
pub fn chain_within_issue_6(at: &str, c: &ChainCheck) {
    match c.bones_deg {
        Some(d) => assert!(d <= 0.5, "{at}: chain {} bones {d}°", c.chain),
        None => assert!(
            c.end_deg.is_none_or(|e| e <= 2.0),
            "{at}: chain {} end {:?}°",
            c.chain,
            c.end_deg
        ),
    }
}

/// Joint positions of `clip` on `skel` at 30 fps (the frames the measures sample), skeleton
/// space.
pub fn joint_frames(skel: &Skeleton, clip: &Clip) -> Vec<Vec<Vec3>> {
    let below = skel.base.inverse();
    let n = (clip.duration() * 30.0).round() as usize + 1;
    (0..n)
        .map(|f| {
            let w = Pose::sample(skel, clip, f as f32 / 30.0).world(skel);
            w.iter()
                .map(|m| below.transform_point3(m.w_axis.truncate()))
                .collect()
        })
        .collect()
}

/// Planting's contacts from ALS's foot-lock curves, `FootLock_L`/`FootLock_R` (1 while the foot
/// is locked), a foot in contact at `threshold` and above.
pub fn foot_locks(threshold: f32) -> Contacts {
    Contacts::Curves {
        left: "FootLock_L".into(),
        right: "FootLock_R".into(),
        threshold,
    }
}

/// The default options with speed planting `plant` and the floor (its defaults) in the stack,
/// then the ops `after` (a `Mirror`, say): the stacks the runtime's bench and allocation test run.
pub fn plant_and_floor(plant: PlantOp, after: &[Op]) -> RetargetOptions {
    let mut ops = vec![Op::Plant(plant), Op::Floor(FloorOp::default())];
    ops.extend_from_slice(after);
    RetargetOptions {
        ops,
        ..RetargetOptions::default()
    }
}
