//! The treadmill of a source clip that runs in place: when the hips do not travel but the feet
//! in contact slide back together, the clip is meant to be played while the character moves
//! forward at its speed, so its ground is a treadmill moving back at that speed. Found offline
//! from the whole clip (the runtime takes it as a setting). Pure; imports `model` and the plan.

use super::kept_base::as_read;
use super::ops::{PlantOp, Treadmill};
use super::plan::Plan;
use super::{RetargetOptions, Rig};
use crate::model::{Clip, Pose, Skeleton};
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

impl Plan {
    /// The ground velocity a clip's retarget with this plan plants on (source units per
    /// second, horizontal, in the source's skeleton space), by the first `Plant` op that is on:
    /// `None` without one, with [`Treadmill::Off`], or with [`Treadmill::Detect`] when
    /// [`detect_treadmill`] finds none. What the retarget's checks measure the treadmill's skate
    /// against.
    pub fn clip_treadmill(
        &self,
        source: &Rig,
        clip: &Clip,
        options: &RetargetOptions,
    ) -> Option<Vec3> {
        let plant = options.planting()?;
        if plant.treadmill != Treadmill::Detect {
            return plant.treadmill.given();
        }
        let fps = if options.fps > 0.0 { options.fps } else { 30.0 };
        detect_treadmill(source, clip, self, fps, plant)
    }
}

/// The treadmill of `clip` sampled at `fps` (see [`ground_velocity`] for the rule), with
/// `plant`'s contact height: the source's pelvis and its legs' feet in skeleton space, read as
/// the retarget reads the source (Y up: a kept turn above it folded into its root bones,
/// `kept_base`), which is the space the velocity is in.
pub fn detect_treadmill(
    source: &Rig,
    clip: &Clip,
    plan: &Plan,
    fps: f32,
    plant: &PlantOp,
) -> Option<Vec3> {
    let (s, clip) = as_read(source.skeleton, clip);
    let (s, clip): (&Skeleton, &Clip) = (&s, &clip);
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
    if g.is_nan() || g <= speed {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` frames of a foot that stands (at its lowest) 12 frames of every 20 and swings 0.2 up
    /// the other 8, `phase` frames into its cycle; `slide(frame)` is its velocity while it
    /// stands.
    fn foot(n: usize, phase: usize, slide: impl Fn(usize) -> Vec3, dt: f32) -> Vec<Vec3> {
        let mut at = Vec3::ZERO;
        (0..n)
            .map(|f| {
                let k = (f + phase) % 20;
                let standing = k < 12;
                at += if standing {
                    slide(f) * dt
                } else {
                    Vec3::Z * 0.1
                };
                Vec3::new(at.x, if standing { 0.0 } else { 0.2 }, at.z)
            })
            .collect()
    }

    const DT: f32 = 1.0 / 30.0;
    const STILL: [Vec3; 60] = [Vec3::ZERO; 60];

    /// A velocity of 2 units per second turning 137.5° a frame.
    fn turning(f: usize) -> Vec3 {
        let a = (f as f32 * 137.5).to_radians();
        Vec3::new(a.sin(), 0.0, a.cos()) * 2.0
    }

    fn run(pelvis: &[Vec3], slides: [&dyn Fn(usize) -> Vec3; 2]) -> Option<Vec3> {
        let feet = [foot(60, 0, slides[0], DT), foot(60, 10, slides[1], DT)];
        ground_velocity(pelvis, &feet, DT, 0.05, 0.25)
    }

    #[test]
    fn feet_sliding_back_together_under_still_hips_are_on_a_treadmill() {
        let g = run(&STILL, [&|_| -Vec3::Z * 1.5, &|_| -Vec3::Z * 1.5]).unwrap();
        assert!(g.distance(-Vec3::Z * 1.5) < 1e-5, "{g}");
        // Sliding at uneven speeds (an animator's treadmill), the median.
        let uneven = |f: usize| -Vec3::Z * (1.0 + (f % 5) as f32 * 0.25);
        let g = run(&STILL, [&uneven, &uneven]).unwrap();
        assert!(g.distance(-Vec3::Z * 1.5) < 1e-5, "{g}");
    }

    #[test]
    fn standing_slow_or_odd_feet_have_no_treadmill() {
        // Standing.
        assert_eq!(run(&STILL, [&|_| Vec3::ZERO, &|_| Vec3::ZERO]), None);
        // Slower than planting's speed: planted as they are.
        assert_eq!(
            run(&STILL, [&|_| -Vec3::Z * 0.2, &|_| -Vec3::Z * 0.2]),
            None
        );
        // Slides every which way (as `Death`'s).
        assert_eq!(run(&STILL, [&turning, &turning]), None);
        // Sliding for a few frames and standing the rest (as `WalkJump`'s): the median stands.
        let once = |f: usize| if f < 8 { -Vec3::Z * 3.0 } else { Vec3::ZERO };
        assert_eq!(run(&STILL, [&once, &once]), None);
    }

    #[test]
    fn travelling_hips_have_no_treadmill() {
        // The hips travel forward at a third of the feet's slide.
        let travel: Vec<Vec3> = (0..60).map(|f| Vec3::Z * 0.5 * DT * f as f32).collect();
        assert_eq!(
            run(&travel, [&|_| -Vec3::Z * 1.5, &|_| -Vec3::Z * 1.5]),
            None
        );
        // Too few steps: none.
        let feet = [vec![Vec3::ZERO, -Vec3::Z * 0.05, -Vec3::Z * 0.1]];
        assert_eq!(ground_velocity(&STILL, &feet, DT, 0.05, 0.25), None);
    }
}
