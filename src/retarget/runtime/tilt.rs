//! The hips' tilt for the legs' reach (part of the IK pass): a target whose hip joints sit
//! farther out from its pelvis than the source's, scaled (RobotExpressive's 15% of its height
//! each side, CMU's 3.1% of the robot's height once scaled), raises a hip joint more when the
//! hips tilt as the source's do, and a straight leg cannot take up the difference: its foot's
//! goal, measured from the pelvis, falls beyond its reach. The hips then tilt less, by the
//! least part of their tilt that brings the legs' goals back within reach, turning about the
//! pelvis and keeping their heading; never so far that the target's hip joints turn less than
//! the source's, scaled, so a miss of another cause (a source leg reaching farther than the
//! target's, a target as wide or narrower) is left to the IK pass as before.

use super::Retargeter;
use crate::model::{yaw_of, Pose};
use glam::{Quat, Vec3};

/// One leg as [`Retargeter::hips_tilt`] sees it this frame.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LegReach {
    /// The IK pass solves it, and its goal does not move with its hip joint (`weight` > 0).
    on: bool,
    /// Its hip joint from the pelvis.
    hip: Vec3,
    /// Its IK goal from its hip joint.
    to_goal: Vec3,
    /// The part of a move of the hip joint its goal does not make: `ik_blend` (the rest of the
    /// goal is the source's reach from the hip joint) times the IK pass's alpha.
    weight: f32,
    /// The farthest and the nearest its end can be from the hip joint.
    long: f32,
    short: f32,
}

/// The tilts tried from the hips' own (0) to upright (1), before the least one is refined.
const TILT_STEPS: usize = 16;
/// Halvings that refine it (2^-24 of a step).
const TILT_REFINE: usize = 24;

impl Retargeter {
    /// The hips' tilt for the legs' reach: where a solved leg's IK goal is beyond its reach,
    /// the hips turn about the pelvis, toward upright about the axis of their own tilt (their
    /// heading kept, so the measures' and the goals' heading stay the hips' own), by the least
    /// part of their tilt that brings every leg's goal within reach, or the part that leaves the
    /// worst miss least; at most so far that the target's hip joints still move as far as the
    /// source's, scaled, on a chord of the turn (`hips_width_ratio`: nothing on a target whose
    /// hips are no wider than the source's). Bones below the hips that the retarget drives keep
    /// their global rotations (the spine, a hierarchy's thighs); the legs that hang beside the
    /// hips follow them again. Nothing moves when every goal is within reach.
    pub(super) fn hips_tilt(&mut self, target: &mut Pose) {
        let pelvis = self.target_pelvis_now();
        let mut any = false;
        for k in 0..self.plan.limbs.len() {
            let limb = &self.plan.limbs[k];
            let weight = limb.blend * self.core.ik;
            self.tilt_legs[k] = if limb.leg && limb.solve && weight > 0.0 {
                any = true;
                let (a, long) = self.limb_reach(k);
                let b = self.target_global[limb.target[1].index()].pos;
                LegReach {
                    on: true,
                    hip: a - pelvis,
                    to_goal: self.ik_goal(k) - a,
                    weight,
                    long,
                    short: (b.distance(a) - self.end_pos(k).distance(b)).abs(),
                }
            } else {
                LegReach::default()
            };
        }
        let missed = self.tilt_miss(Quat::IDENTITY);
        if !any || missed <= 0.0 {
            return;
        }
        let th = self.plan.target_hips;
        let hips = self.global_of(target, th.0);
        let change = hips.rot * self.plan.target_rest[th.index()].0.inverse();
        let tilt = change * yaw_of(change).inverse();
        let tilt = if tilt.w < 0.0 { -tilt } else { tilt };
        let (axis, angle) = tilt.to_axis_angle();
        if angle.is_nan() || angle <= 1e-6 {
            return;
        }
        // The target's hip joints turn no less than the source's, scaled (a chord of the same
        // length): the hips tilt back by at most `room` of their tilt.
        let ratio = self.hips_width_ratio;
        if ratio >= 1.0 {
            return;
        }
        let kept = 2.0 * (ratio * (0.5 * angle).sin()).clamp(-1.0, 1.0).asin() / angle;
        let room = 1.0 - kept;
        if room <= 0.0 {
            return;
        }
        let turn = |t: f32| Quat::from_axis_angle(axis, -t * angle);
        let step = room / TILT_STEPS as f32;
        let (mut least, mut best) = (0.0, missed);
        let mut within = None;
        for i in 1..=TILT_STEPS {
            let t = i as f32 * step;
            let m = self.tilt_miss(turn(t));
            if m <= 0.0 {
                within = Some(t);
                break;
            }
            if m < best {
                (least, best) = (t, m);
            }
        }
        let t = match within {
            // The least tilt back that brings every goal within reach.
            Some(t) => {
                let (mut lo, mut hi) = (t - step, t);
                for _ in 0..TILT_REFINE {
                    let mid = 0.5 * (lo + hi);
                    if self.tilt_miss(turn(mid)) <= 0.0 {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                hi
            }
            // None does: the one whose worst miss is least, refined between its neighbours.
            None if least > 0.0 => {
                let (mut lo, mut hi) = ((least - step).max(0.0), (least + step).min(room));
                for _ in 0..TILT_REFINE {
                    let (l, h) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
                    if self.tilt_miss(turn(l)) <= self.tilt_miss(turn(h)) {
                        hi = h;
                    } else {
                        lo = l;
                    }
                }
                let t = 0.5 * (lo + hi);
                if self.tilt_miss(turn(t)) < best {
                    t
                } else {
                    least
                }
            }
            None => return,
        };
        self.turn_hips(target, turn(t), pelvis);
    }

    /// The worst miss of the legs' goals (beyond the farthest or within the nearest each leg's
    /// end can be from its hip joint) with the hips turned by `turn` about the pelvis; 0 when
    /// every goal is within reach.
    fn tilt_miss(&self, turn: Quat) -> f32 {
        let mut worst = 0.0f32;
        for leg in self.tilt_legs.iter().filter(|l| l.on) {
            let moved = turn * leg.hip - leg.hip;
            let d = (leg.to_goal - moved * leg.weight).length();
            worst = worst.max(d - leg.long).max(leg.short - d);
        }
        worst
    }

    /// Turns the hips by `turn` (global) about `pelvis`: their joint moves (by the bone that
    /// carries them and the legs, where there is one, as the root pass moves it), the bones
    /// below them that the retarget drives keep their global rotations and the others turn with
    /// them (`below_hips`), and the bones that follow the hips (legs beside
    /// them) are placed again.
    fn turn_hips(&mut self, target: &mut Pose, turn: Quat, pelvis: Vec3) {
        let th = self.plan.target_hips.index();
        let hips = self.global_of(target, th as u32);
        // The global rotations below the hips before the turn.
        self.tilt_rot[th] = hips.rot;
        for j in 0..self.below_hips.len() {
            let i = self.below_hips[j].0 as usize;
            self.tilt_rot[i] =
                self.tilt_rot[self.target_parents[i] as usize] * target.locals[i].rotation;
        }
        let rot = (turn * hips.rot).normalize();
        let shift = pelvis + turn * (hips.pos - pelvis) - hips.pos;
        let moved = self.plan.target_carrier.map_or(th, |c| c.index());
        let parent = self.global_of(target, self.target_parents[moved]);
        let now = parent.child(&target.locals[moved]).pos;
        target.locals[moved].translation = parent.local_translation(now + shift);
        let parent = self.global_of(target, self.target_parents[th]);
        target.locals[th].rotation = (parent.rot.inverse() * rot).normalize();
        self.target_global[th].rot = rot;
        for j in 0..self.below_hips.len() {
            let (i, keeps) = self.below_hips[j];
            let i = i as usize;
            let up = self.target_global[self.target_parents[i] as usize].rot;
            if keeps {
                target.locals[i].rotation = (up.inverse() * self.tilt_rot[i]).normalize();
                self.target_global[i].rot = self.tilt_rot[i];
            } else {
                self.target_global[i].rot = up * target.locals[i].rotation;
            }
        }
        self.follow_pass(target, true);
        self.positions(target);
    }
}
