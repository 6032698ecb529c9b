//! Issue 42, item 2: planting that keeps the legs. With planting, the floor and stride warping
//! on, the thighs and shins stay within 5° (worst) and 1° (mean) of the source's directions
//! while each foot skates no more than the source's over its contacts, in leg lengths
//! (math.md), measured by `common::legs` independently of the library's measures.
#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test code: a panic is how a test fails, and output goes to the test log"
)]

mod common;

use skelnorm::model::SkeletonId;
use skelnorm::retarget::{retarget_clip, FloorOp, Op, PlantOp, RetargetOptions, StrideOp};

use common::legs::{leg_cost, normalized_any, Leg};
use common::{rig, Normalized};

/// Planting, the floor and (with `stride`) stride warping at its defaults, after the core passes.
fn planted(stride: bool) -> RetargetOptions {
    let mut ops = vec![Op::Plant(PlantOp::default()), Op::Floor(FloorOp::default())];
    if stride {
        ops.push(Op::Stride(StrideOp::default()));
    }
    RetargetOptions {
        ops,
        ..RetargetOptions::default()
    }
}

/// Planting (its settings changed by `tweak`) and the floor with the legs' budget `floor_deg`.
fn tweaked(tweak: impl Fn(&mut PlantOp), floor_deg: f32) -> RetargetOptions {
    let mut plant = PlantOp::default();
    tweak(&mut plant);
    let floor = FloorOp {
        max_leg_deg: floor_deg,
        ..FloorOp::default()
    };
    RetargetOptions {
        ops: vec![Op::Plant(plant), Op::Floor(floor)],
        ..RetargetOptions::default()
    }
}

/// Every clip of `s` (or the one named) retargeted onto `t` with `options`: each clip's legs.
fn legs_of(
    s: &Normalized,
    t: &Normalized,
    only: Option<&str>,
    options: &RetargetOptions,
) -> Vec<(String, [Leg; 2])> {
    let (sr, tr) = (rig(s), rig(t));
    s.model
        .clips
        .iter()
        .filter(|c| only.is_none_or(|n| c.name == n))
        .map(|c| {
            let r = retarget_clip(&sr, c, &tr, SkeletonId(0), options).unwrap();
            (c.name.clone(), leg_cost(s, c, t, &r.clip, &r.plan))
        })
        .collect()
}

/// By hand, on files outside the repository: `SKELNORM_LEGS="SOURCE TARGET[ CLIP]"` prints both
/// legs' figures of every clip without ops, with planting and the floor, and with stride too.
#[test]
#[ignore = "by hand: SKELNORM_LEGS=\"SOURCE TARGET [CLIP]\""]
fn by_hand() {
    let spec = std::env::var("SKELNORM_LEGS").unwrap();
    let words: Vec<&str> = spec.split_whitespace().collect();
    let (s, t) = (
        normalized_any(std::path::Path::new(words[0])),
        normalized_any(std::path::Path::new(words[1])),
    );
    let only = words.get(2).copied();
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
        ("plant+floor", planted(false)),
        ("plant+floor+stride", planted(true)),
        ("plant+floor, no legs' budgets", tweaked(|_| {}, 180.0)),
        (
            "plant+floor, legs' budgets 3°",
            tweaked(|p| p.max_leg_deg = 3.0, 3.0),
        ),
        (
            "plant+floor, no creep",
            tweaked(|p| p.creep_deg = 180.0, 3.0),
        ),
    ];
    for (name, options) in &stacks {
        for (clip, legs) in legs_of(&s, &t, only, options) {
            for l in legs {
                eprintln!("{name} `{clip}`: {l}");
            }
        }
    }
}

/// Issue 42's bounds on one clip's legs: thigh and shin within 5° of the source's at worst and
/// 1° on average, and each foot skating no more than the source's over its contacts, in leg
/// lengths, within 1e-6 of a leg length a frame (a foot whose source has no contact says so).
/// Returns how many feet had contacts.
fn within_bounds(at: &str, legs: &[Leg; 2]) -> usize {
    let mut measured = 0;
    for l in legs {
        eprintln!("{at}: {l}");
        assert!(l.worst_deg <= 5.0, "{at}: {l}");
        assert!(l.mean_deg <= 1.0, "{at}: {l}");
        if l.contacts == 0 {
            eprintln!("{at}: the source's {} foot has no contact", l.side);
            continue;
        }
        // Within f32 rounding of the joints' places (1e-6 leg lengths a frame).
        assert!(
            l.target_skate <= l.source_skate + 1e-6,
            "{at}: {l} ({} > {})",
            l.target_skate,
            l.source_skate
        );
        measured += 1;
    }
    measured
}

fn fixture(name: &str) -> Normalized {
    common::normalized(&common::root().join("fixtures").join(name))
}

/// The generated `planted_walk` (its stance feet stand still) between the base rig, legs ×1.3
/// and ×0.8 and other spines, both ways, with planting and the floor, and with stride warping
/// too: issue 42's leg bounds and skate at most the source's (math.md, leg lengths).
#[test]
fn planted_walk_keeps_the_legs_between_proportions() {
    const PAIRS: &[(&str, &str)] = &[
        ("identity.gltf", "long_legs.glb"),
        ("long_legs.glb", "identity.gltf"),
        ("identity.gltf", "short_legs.glb"),
        ("short_legs.glb", "identity.gltf"),
        ("identity.gltf", "spine5.glb"),
        ("spine2.glb", "identity.gltf"),
        ("long_legs.glb", "short_legs.glb"),
    ];
    let mut measured = 0;
    for (a, b) in PAIRS {
        let (s, t) = (fixture(a), fixture(b));
        for stride in [false, true] {
            for (clip, legs) in legs_of(&s, &t, Some("planted_walk"), &planted(stride)) {
                let at = format!("{a} → {b} `{clip}` (stride {stride})");
                measured += within_bounds(&at, &legs);
            }
        }
    }
    assert_eq!(measured, PAIRS.len() * 2 * 2, "every foot has contacts");
}

/// The mixamo fixture's `walk`, `idle` and `wave` and CMU's walk (the BVH) onto ModularMen_Casual
/// (quaternius), and the CMU capture's FBX (isaacgym) onto the mixamo fixture, with planting
/// and the floor (and stride): issue 42's leg bounds and skate at most the source's (the CMU
/// walk since planting's own leg IK budget, `PlantOp::ik_max_leg_deg` 0: legs mean 0.78°, worst
/// 4.87°, where the IK pass's 2° left 1.91° and 7.30°; onto the mixamo fixture mean 0.62°,
/// worst 3.79°, where it left 1.19° and 5.26°; `wave`, whose body glides forward over feet that
/// never step, since a creeping hold takes the part of the source foot's step its hips share at
/// the legs' pace: legs worst 0.52°, mean 0.31°, skate the source's 0.766%, where the heights'
/// pace let the hold fall behind to 3.78° and 1.14°). Not bounded here: sources whose core
/// passes already leave the legs beyond the bounds (the quaternius FBX onto
/// ModularMen_Casual: 4–54°). Skips with a message without `../shared/assets`.
#[test]
fn real_clips_keep_the_legs() {
    let Some([men, cmu, walk]) = common::require([
        "quaternius/ModularMen_Casual.glb",
        "fbx/cmu_07_01_isaacgym.fbx",
        "bvh/cmu_131_03_maxfriendly.bvh",
    ]) else {
        return;
    };
    let mixamo = fixture("mixamo.glb");
    let (men, cmu, walk) = (
        normalized_any(&men),
        normalized_any(&cmu),
        normalized_any(&walk),
    );
    let mut measured = 0;
    for stride in [false, true] {
        let options = planted(stride);
        for clip in ["walk", "idle", "wave"] {
            for (name, legs) in legs_of(&mixamo, &men, Some(clip), &options) {
                let at = format!("mixamo.glb → ModularMen_Casual.glb `{name}` (stride {stride})");
                measured += within_bounds(&at, &legs);
            }
        }
        for (name, legs) in legs_of(&walk, &men, None, &options) {
            let at = format!(
                "cmu_131_03_maxfriendly.bvh → ModularMen_Casual.glb `{name}` (stride {stride})"
            );
            measured += within_bounds(&at, &legs);
        }
        for (name, legs) in legs_of(&walk, &mixamo, None, &options) {
            let at = format!("cmu_131_03_maxfriendly.bvh → mixamo.glb `{name}` (stride {stride})");
            measured += within_bounds(&at, &legs);
        }
        for (name, legs) in legs_of(&cmu, &mixamo, None, &options) {
            let at = format!("cmu_07_01_isaacgym.fbx → mixamo.glb `{name}` (stride {stride})");
            within_bounds(&at, &legs);
        }
    }
    assert!(measured >= 20, "{measured} feet with contacts");
}

/// A capture that stands lower than its rest (mixamo's `idle` stands 2.6 cm below it): the
/// base rig standing in its rest with the hips lowered by 2% of its height, onto legs ×1.3
/// with the floor alone. Both feet need to rise to the floor, and the hips take the rise, so
/// the thighs and shins keep the source's directions (within 0.01° of the core passes' own
/// angle) and no foot ends below the floor; bc32687 pushed each foot up through its leg and
/// bent the knees.
#[test]
fn a_capture_below_its_floor_is_lifted_by_the_hips() {
    use skelnorm::model::Pose;
    use skelnorm::retarget::Retargeter;
    let (s, t) = (fixture("identity.gltf"), fixture("long_legs.glb"));
    let (sr, tr) = (rig(&s), rig(&t));
    let (ss, ts) = (&s.model.skeletons[0], &t.model.skeletons[0]);
    let hips = s
        .map
        .get(skelnorm::profile::Profile::humanoid().find("Hips").unwrap())
        .unwrap();
    let sunk = 0.02 * ss.stature();
    let frames = 10;
    let source: Vec<Pose> = (0..frames)
        .map(|_| {
            let mut p = Pose::rest(ss);
            p.locals[hips.index()].translation.y -= sunk;
            p
        })
        .collect();
    let run = |options: &RetargetOptions| -> Vec<Pose> {
        let mut r = Retargeter::new(&sr, &tr, options).unwrap();
        source
            .iter()
            .map(|sp| {
                let mut tp = Pose::rest(ts);
                r.retarget(sp, &mut tp).unwrap();
                tp
            })
            .collect()
    };
    let floor = RetargetOptions {
        ops: vec![Op::Floor(FloorOp::default())],
        ..RetargetOptions::default()
    };
    let (core, with) = (run(&RetargetOptions::default()), run(&floor));
    let joints = |sk: &skelnorm::model::Skeleton, p: &Pose| -> Vec<glam::Vec3> {
        let below = sk.base.inverse();
        p.world(sk)
            .iter()
            .map(|m| below.transform_point3(m.w_axis.truncate()))
            .collect()
    };
    let profile = skelnorm::profile::Profile::humanoid();
    let id = |n: &Normalized, b: &str| n.map.get(profile.find(b).unwrap()).unwrap().index();
    let rest_t = joints(ts, &Pose::rest(ts));
    let (mut lifted, mut worst) = (0usize, 0.0f32);
    for f in 0..frames {
        let (sj, cj, wj) = (
            joints(ss, &source[f]),
            joints(ts, &core[f]),
            joints(ts, &with[f]),
        );
        for side in ["Left", "Right"] {
            let ids = |n: &Normalized| {
                ["UpperLeg", "LowerLeg", "Foot"].map(|b| id(n, &format!("{side}{b}")))
            };
            let ([sa, sb, sc], [ta, tb, tc]) = (ids(&s), ids(&t));
            for ((x0, x1), (y0, y1)) in [((sa, sb), (ta, tb)), ((sb, sc), (tb, tc))] {
                let src = sj[x1] - sj[x0];
                let deg = |p: &[glam::Vec3]| (p[y1] - p[y0]).angle_between(src).to_degrees();
                worst = worst.max(deg(&wj) - deg(&cj));
            }
            // No foot below the floor: its joint at least at its rest height.
            assert!(
                wj[tc].y >= rest_t[tc].y - 1e-5 * ts.stature(),
                "frame {f} {side}"
            );
            lifted += usize::from(cj[tc].y < rest_t[tc].y - 1e-3 * ts.stature());
        }
    }
    eprintln!("{lifted} foot-frames below the floor with the core passes; legs within {worst:.4}° of them with the floor");
    assert_eq!(
        lifted,
        2 * frames,
        "the sunk stance puts both feet below the floor"
    );
    assert!(worst <= 0.01, "{worst}°");
}
