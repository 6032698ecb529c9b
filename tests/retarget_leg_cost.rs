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

/// Planting (its settings changed by `tweak`) and the floor, with the same legs' budget.
fn tweaked(tweak: impl Fn(&mut PlantOp)) -> RetargetOptions {
    let mut plant = PlantOp::default();
    tweak(&mut plant);
    let floor = FloorOp {
        max_leg_deg: plant.max_leg_deg,
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
        (
            "plant+floor, no legs' budget",
            tweaked(|p| p.max_leg_deg = 180.0),
        ),
        ("plant+floor, no creep", tweaked(|p| p.creep_deg = 180.0)),
        ("plant+floor, creep 0.75", tweaked(|p| p.creep_deg = 0.75)),
        ("plant+floor, creep 2", tweaked(|p| p.creep_deg = 2.0)),
    ];
    for (name, options) in &stacks {
        for (clip, legs) in legs_of(&s, &t, only, options) {
            for l in legs {
                eprintln!("{name} `{clip}`: {l}");
            }
        }
    }
}
