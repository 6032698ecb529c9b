//! The treadmill of a source clip that runs in place: when the hips do not travel but the feet
//! in contact slide back together, the clip is meant to be played while the character moves
//! forward at its speed, so its ground is a treadmill moving back at that speed. Found offline
//! from the whole clip (the runtime takes it as a setting). Pure; imports `model` and the plan.

use super::ops::{Op, PlantOp, Treadmill};
use super::plan::Plan;
use super::{RetargetOptions, Rig};
use crate::model::{Clip, Pose};
use glam::Vec3;

/// The fewest steps (pairs of consecutive contact frames, both feet together) a treadmill is
/// found from (RobotExpressive's `Running`, one stride, has 4).
const MIN_STEPS: usize = 4;

/// The share of the contact steps that must move with the ground (within [`AGREE_DEG`] of its
/// direction) for the ground to be called a treadmill.
const CONSISTENT: f32 = 0.75;

/// A step moves with the ground when its direction is within this many degrees of the
/// ground's (its speed may differ: an animator's treadmill rarely runs at one speed).
const AGREE_DEG: f32 = 45.0;

/// The hips travel when their mean horizontal velocity over the clip (first to last frame) is
/// above this fraction of the ground's speed: such a clip is not in place.
const TRAVEL: f32 = 0.1;

/// The ground velocity a clip's retarget plants on (source units per second, horizontal, in the
/// source's skeleton space), by the first `Plant` op that is on: `None` without one, with
/// [`Treadmill::Off`], or with [`Treadmill::Detect`] when [`detect_treadmill`] finds none.
pub fn clip_treadmill(
    source: &Rig,
    clip: &Clip,
    plan: &Plan,
    options: &RetargetOptions,
) -> Option<Vec3> {
    let plant = plant_op(options)?;
    match plant.treadmill {
        Treadmill::Off => None,
        Treadmill::Velocity([x, z]) => Some(Vec3::new(x, 0.0, z)),
        Treadmill::Detect => {
            let fps = if options.fps > 0.0 { options.fps } else { 30.0 };
            detect_treadmill(source, clip, plan, fps, &plant)
        }
    }
}

/// The first `Plant` op that is on.
pub(crate) fn plant_op(options: &RetargetOptions) -> Option<PlantOp> {
    options.ops.iter().find_map(|o| match o {
        Op::Plant(p) if o.on() => Some(*p),
        _ => None,
    })
}

/// The treadmill of `clip` sampled at `fps` (see [`ground_velocity`] for the rule), with
/// `plant`'s contact height: the source's pelvis and its legs' feet in skeleton space.
pub fn detect_treadmill(
    source: &Rig,
    clip: &Clip,
    plan: &Plan,
    fps: f32,
    plant: &PlantOp,
) -> Option<Vec3> {
    let s = source.skeleton;
    let feet: Vec<usize> = (plan.limbs.iter())
        .filter(|l| l.leg)
        .map(|l| l.source[2].index())
        .collect();
    if feet.is_empty() {
        return None;
    }
    let (pelvis, _) = plan.pelvis_bones();
    let duration = clip.duration();
    let frames = (duration * fps).ceil().max(0.0) as usize + 1;
    let below = s.base.inverse();
    let mut hips = Vec::with_capacity(frames);
    let mut paths = vec![Vec::with_capacity(frames); feet.len()];
    for f in 0..frames {
        let t = (f as f32 / fps).min(duration);
        let world = Pose::sample(s, clip, t).world(s);
        let at = |i: usize| below.transform_point3(world[i].w_axis.truncate());
        hips.push(pelvis.iter().map(|b| at(b.index())).sum::<Vec3>() / pelvis.len() as f32);
        for (path, &i) in paths.iter_mut().zip(&feet) {
            path.push(at(i));
        }
    }
    ground_velocity(
        &hips,
        &paths,
        1.0 / fps,
        s.stature() * plant.height,
        plant.speed * s.stature(),
    )
}

/// The ground velocity of a clip (horizontal, units per second) from its pelvis and feet
/// sampled every `dt` seconds, or `None` when its ground stands still. A foot is in contact
/// where it is within `band` of its lowest in the clip (math.md's contact, with planting's
/// `height`); each pair of consecutive contact frames of either foot is a step. The ground is
/// the component-wise median of the steps' velocities, and it is a treadmill when:
/// 1. there are at least [`MIN_STEPS`] steps;
/// 2. it is faster than `speed` (planting's threshold: slower feet are planted as they are);
/// 3. at least [`CONSISTENT`] of the steps move its way (within [`AGREE_DEG`]);
/// 4. the pelvis, first frame to last, travels at under [`TRAVEL`] of its speed (the clip is
///    in place: a travelling clip's feet that slide are skating, not on a treadmill).
pub fn ground_velocity(
    pelvis: &[Vec3],
    feet: &[Vec<Vec3>],
    dt: f32,
    band: f32,
    speed: f32,
) -> Option<Vec3> {
    let mut steps = Vec::new();
    for path in feet {
        let low = path.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        let contact = |p: &Vec3| p.y <= low + band;
        for w in path.windows(2) {
            if contact(&w[0]) && contact(&w[1]) {
                let d = (w[1] - w[0]) / dt;
                steps.push(Vec3::new(d.x, 0.0, d.z));
            }
        }
    }
    if steps.len() < MIN_STEPS {
        return None;
    }
    let ground = Vec3::new(
        median(steps.iter().map(|v| v.x)),
        0.0,
        median(steps.iter().map(|v| v.z)),
    );
    let g = ground.length();
    if !(g > speed) {
        return None;
    }
    let cos = AGREE_DEG.to_radians().cos();
    let agree = (steps.iter())
        .filter(|v| v.dot(ground) > cos * v.length() * g)
        .count();
    if (agree as f32) < CONSISTENT * steps.len() as f32 {
        return None;
    }
    let (first, last) = (pelvis.first()?, pelvis.last()?);
    let time = dt * (pelvis.len() - 1) as f32;
    let travel = Vec3::new(last.x - first.x, 0.0, last.z - first.z).length() / time;
    (travel < TRAVEL * g).then_some(ground)
}

/// The median of some numbers (the mean of the two middle ones for an even count).
fn median(values: impl Iterator<Item = f32>) -> f32 {
    let mut v: Vec<f32> = values.collect();
    v.sort_by(f32::total_cmp);
    let n = v.len();
    if n == 0 {
        return 0.0;
    }
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}
