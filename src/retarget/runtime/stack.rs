//! The ops after the core passes (`retarget.ops`): speed planting, the floor constraint and the
//! One-Euro filter, run per frame on the pose the passes before them left, with their state kept
//! in the [`Retargeter`] (sized once: nothing here allocates).

use super::Retargeter;
use crate::model::Pose;
use crate::model::{pole, yaw_of};
use crate::retarget::ik;
use crate::retarget::ops::{FilterOp, FloorOp, PlantOp, PoleOp, StrideOp};
use glam::{Quat, Vec3, Vec4};
use std::f32::consts::{PI, TAU};

/// Planting's state of one limb.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlantState {
    /// The lowest the source's foot joint has been since the start (or the last reset): the
    /// floor it stands on (motion capture rarely puts it where the rest does).
    low: f32,
    /// The source's foot is in contact.
    planted: bool,
    /// The source's foot is within `height` of its lowest (with `release`'s hysteresis).
    low_band: bool,
    /// The slide limiter moved the held place last frame (`PlantOp::limit_slide`).
    limiting: bool,
    /// How much of the hold applies now, 0 to 1 (rises in a contact, falls after it).
    weight: f32,
    /// Where the target's foot is held (skeleton space; its height is not held).
    anchor: Vec3,
    /// The source's foot joint last frame, and whether there was a last frame.
    last: Option<Vec3>,
    /// Where the passes before put the target's foot last frame (skeleton space).
    last_end: Vec3,
    /// The source's hips joint last frame, and whether there was a last frame.
    last_hips: Option<Vec3>,
    /// The hips' heading the foot's stance turns with while it is held (the heading when the
    /// contact began, kept within `stance_turn_deg` of the hips' now); the hips' own otherwise.
    heading: Quat,
    /// Where this frame's hold puts the target's foot (skeleton space), when it is held (or,
    /// with pelvis motion, when its goal is beyond the leg's reach).
    goal: Option<Vec3>,
}

impl Default for PlantState {
    fn default() -> Self {
        PlantState {
            low: f32::INFINITY,
            planted: false,
            low_band: false,
            limiting: false,
            weight: 0.0,
            anchor: Vec3::ZERO,
            last: None,
            last_end: Vec3::ZERO,
            last_hips: None,
            heading: Quat::IDENTITY,
            goal: None,
        }
    }
}

/// The One-Euro filter's state of one bone: filtered local rotation and translation, and their
/// filtered rates of change (per second).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FilterState {
    rot: Vec4,
    rot_rate: Vec4,
    pos: Vec3,
    pos_rate: Vec3,
}

impl Default for FilterState {
    fn default() -> Self {
        FilterState {
            rot: Vec4::W,
            rot_rate: Vec4::ZERO,
            pos: Vec3::ZERO,
            pos_rate: Vec3::ZERO,
        }
    }
}

/// The smoothing factor of a first-order low-pass with `cutoff` (Hz) over `dt` seconds.
fn smoothing(cutoff: f32, dt: f32) -> f32 {
    let tau = 1.0 / (TAU * cutoff);
    1.0 / (1.0 + tau / dt)
}

impl Retargeter {
    /// Speed planting: a source foot is in contact while its joint is near the lowest it has
    /// been and slow (with hysteresis), or while its flag says so when contacts are given
    /// ([`Retargeter::set_contacts`]: a clip's foot-lock curves); the target's foot is then
    /// held, horizontally, where it was when the contact began (a frame earlier where the
    /// source's foot stood still already), at once, and blended out over `blend_s`, by the leg
    /// IK. While held, the passes' foot it is measured against has its
    /// stance turned with the heading the contact began with (`stance_turn_deg`), so hips
    /// turning over a planted foot do not drag it. With `limit_slide`, a foot whose source is
    /// low but sliding too fast to be held steps at most as far as the source's, in heights.
    pub(super) fn plant_op(&mut self, p: &PlantOp, dt: f32, target: &mut Pose) {
        let hs = self.source_height;
        let rate = if p.blend_s > 0.0 { dt / p.blend_s } else { 1.0 };
        let yaw = yaw_of(self.source_delta[self.plan.source_hips.index()]);
        // A source step as the target may take it: scaled by the smaller of the legs' ratio (as
        // travel is, math.md's skate) and the heights' (the skate in heights), so that a step
        // taken for the source's is no longer than it in either.
        let legs = self.plan.hips_ratio * self.horizontal;
        let pace = legs.min(self.target_height / hs);
        let hips = self.source_global[self.plan.source_hips.index()].pos;
        // The treadmill's move this frame, on the source and (scaled as travel is) the target.
        let ground = self.treadmill.map(|g| {
            // Given in the source's skeleton space; its poses are seen turned as the target faces.
            let s = self.plan.source_turn() * g * dt;
            let t = self.scale_position(s);
            (s, Vec3::new(t.x, 0.0, t.z))
        });
        for k in 0..self.plan.limbs.len() {
            let limb = &self.plan.limbs[k];
            if !limb.leg {
                continue;
            }
            let foot = self.source_global[limb.source[2].index()].pos;
            // In the travelling frame (skeleton space unless `--in-place`).
            let shift = self.removed_travel;
            let mut passes = self.end_pos(k) + shift;
            if p.max_pelvis_shift > 0.0 {
                // Pelvis motion may bring a goal the IK pass could not reach back within
                // reach: the foot is measured, and held, where the IK pass wanted it.
                passes += self.ik_miss[k];
            }
            let held_heading = self.plant[k].heading;
            let st = &mut self.plant[k];
            st.low = st.low.min(foot.y);
            let clearance = foot.y - st.low;
            // No contact on the first frame: its speed is not known yet.
            let flat = |now: Vec3, last: Option<Vec3>| {
                last.map_or(Vec3::ZERO, |l| Vec3::new(now.x - l.x, 0.0, now.z - l.z))
            };
            let (mut step, mut carried) = (flat(foot, st.last), flat(hips, st.last_hips));
            st.last_hips = Some(hips);
            if let Some((source, target)) = ground {
                // On a treadmill: the foot's step over the ground, and the held place (and the
                // passes' foot last frame, which the blend-out follows) carried along with it.
                step -= source;
                carried -= source;
                st.anchor += target;
                st.last_end += target;
            }
            let speed = st.last.map_or(f32::INFINITY, |_| step.length() / dt);
            st.last = Some(foot);
            let factor = if st.planted { p.release } else { 1.0 };
            let given = self.contacts.zip(limb.foot).map(|(c, side)| c[side]);
            let detected = clearance <= p.height * factor * hs && speed <= p.speed * factor * hs;
            let contact = given.unwrap_or(detected);
            // The source's foot stands still, and it was low last frame already (detection may
            // find the contact a frame after the foot stood: no speed on the first frame).
            let stood = given.is_none() && st.low_band && speed <= STILL * p.speed * hs;
            // The slide limiter: low but not in contact (sliding faster than `speed`; not on
            // the first frame, whose speed is not known).
            let band = if st.low_band { p.release } else { 1.0 };
            st.low_band = clearance <= p.height * band * hs;
            let limit = p.limit_slide && st.low_band && !contact && speed.is_finite();
            // The stance keeps the heading a contact began with (within `stance_turn_deg`).
            st.heading = if contact && st.planted {
                held_heading
            } else {
                yaw
            };
            st.heading = within_turn(st.heading, yaw, p.stance_turn_deg.to_radians());
            let heading = st.heading;
            let turned = self.turned_stance(k, heading) - self.turned_stance(k, yaw);
            let now = passes + Vec3::new(turned.x, 0.0, turned.z);
            let creeping = given.is_none() && contact && self.plant[k].planted && {
                // How far holding the foot where it is held would bend the leg (`creep_deg`).
                let held = self.plant[k].anchor - shift;
                let goal = Vec3::new(held.x, self.end_pos(k).y, held.z);
                self.leg_bend(k, goal) > p.creep_deg.to_radians()
            };
            let resumed = (contact && !self.plant[k].planted && stood)
                .then(|| {
                    // A new contact of a foot that stood last frame already (low, and still now:
                    // on the first frame its speed was not known): held from where the hold had
                    // it then (the passes' foot when it was not held), stepped toward the passes'
                    // foot by at most the source foot's step scaled as travel is, at once: over
                    // the pair it moves no more than the source's, in leg lengths. Unless that
                    // bends the leg beyond `creep_deg`: then held where it shows, as any new
                    // contact.
                    let st = &self.plant[k];
                    let last = st.last_end.lerp(st.anchor, st.weight);
                    let to = Vec3::new(now.x - last.x, 0.0, now.z - last.z);
                    let (len, most) = (to.length(), step.length() * legs);
                    last + if len > most { to * (most / len) } else { to }
                })
                .filter(|at| {
                    let held = *at - shift;
                    let goal = Vec3::new(held.x, self.end_pos(k).y, held.z);
                    self.leg_bend(k, goal) <= p.creep_deg.to_radians()
                });
            let st = &mut self.plant[k];
            // Held last frame and still: where the held place starts this frame, and how far
            // it may go in all (the source foot's step at `pace`), so that a held foot never
            // moves more than the source's does, in leg lengths.
            let holding = contact && st.planted;
            let (start, allowed) = (st.anchor, step.length() * pace);
            if creeping {
                // Held, while holding bends the leg beyond `creep_deg`: the held place steps
                // toward the passes' foot by at most the source foot's step and the passes'
                // foot's own step. The part of the source's step its hips take too (the body
                // carried along over a foot that does not step, as in a glide) goes at the
                // legs' pace, as the passes carry it; the rest at `pace`.
                let to = Vec3::new(now.x - st.anchor.x, 0.0, now.z - st.anchor.z);
                let moved = passes - st.last_end;
                let along = shared_step(step, carried);
                let most = (along.length() * legs + (step - along).length() * pace)
                    .min(step.length() * legs)
                    .min(Vec3::new(moved.x, 0.0, moved.z).length());
                let len = to.length();
                st.anchor += if len > most { to * (most / len) } else { to };
            } else if given.is_none()
                && contact
                && (clearance > p.height * hs || speed > p.speed * hs)
            {
                // In contact only by the hysteresis: the source's foot is on its way (lifting
                // off, shuffling). The held place takes the same step (at `pace`), so the hold
                // never hides a step the source takes nor drags the foot behind it.
                st.anchor += step * pace;
            }
            if let Some(at) = resumed {
                st.anchor = at;
                st.weight = 1.0;
            } else if (contact && !st.planted) || (limit && !st.planted && !st.limiting) {
                // A new contact: hold where the foot shows now (still partly held from the last
                // contact when it blends out).
                st.anchor = now.lerp(st.anchor, st.weight);
                if contact {
                    // Held where it shows, at once: nothing jumps, and no blend-in lets the
                    // passes' foot slide it on while the source's stands (out of the slide
                    // limiter's blend-in too: blending on would move a standing foot by the rest
                    // of the limiter's lag).
                    st.weight = 1.0;
                }
            }
            if limit {
                // Sliding while low: the held place steps toward the passes' foot by at most
                // the source foot's step over its ground, in heights.
                let to = Vec3::new(now.x - st.anchor.x, 0.0, now.z - st.anchor.z);
                let most = step.length() * (self.target_height / hs);
                let len = to.length();
                st.anchor += if len > most { to * (most / len) } else { to };
            }
            let engaged = contact || limit;
            if !engaged && st.weight > 0.0 {
                // Blending out: the foot is on its way; the held place moves with the passes'
                // foot and only the offset the hold had (the stance's held heading included)
                // fades, so the leg does not trail the swing.
                let moved = passes - st.last_end;
                st.anchor += Vec3::new(moved.x, 0.0, moved.z);
            }
            st.last_end = passes;
            st.planted = contact;
            st.limiting = limit;
            st.weight = if engaged {
                (st.weight + rate).min(1.0)
            } else if st.low_band {
                // Out of contact but still low (lifting off, sliding fast): the hold's offset
                // waits for the foot to leave the ground, rather than fading into a slide
                // there, which math.md's skate would count.
                st.weight
            } else {
                (st.weight - rate).max(0.0)
            };
            // The held place trails the retarget's by at most `max_offset`: a capture's slow
            // shuffle is let through rather than bending the leg ever further from the source's.
            let off = Vec3::new(st.anchor.x - now.x, 0.0, st.anchor.z - now.z);
            let slack = p.max_offset * self.target_height;
            if engaged && off.length() > slack {
                let mut drag = off * (slack / off.length() - 1.0);
                if holding {
                    // Dragged no further than what is left of the source foot's step.
                    let moved = Vec3::new(st.anchor.x - start.x, 0.0, st.anchor.z - start.z);
                    let left = (allowed - moved.length()).max(0.0);
                    if drag.length() > left {
                        drag *= left / drag.length();
                    }
                }
                st.anchor += drag;
            }
            let w = st.weight * p.alpha;
            st.goal = (w > 0.0).then(|| {
                let held = now.lerp(st.anchor, w) - shift;
                Vec3::new(held.x, now.y, held.z)
            });
            if st.goal.is_none() && p.max_pelvis_shift > 0.0 && self.ik_miss[k] != Vec3::ZERO {
                // Not held, but beyond reach: pelvis motion brings its IK goal within reach
                // too (a lunge's back foot on its way into a contact).
                st.goal = Some(passes - shift);
            }
        }
        if p.max_pelvis_shift > 0.0 {
            self.pelvis_shift(p.max_pelvis_shift * self.target_height, target);
        }
        if p.hips_share > 0.0 {
            self.hips_share(p.hips_share, target);
        }
        for k in 0..self.plan.limbs.len() {
            let Some(goal) = self.plant[k].goal else {
                continue;
            };
            let kept = self.kept_goal(k, goal, p.max_leg_deg);
            let w = self.plant[k].weight * p.alpha;
            if kept != goal && w > 0.0 {
                // The held place comes along by what the legs' budget cannot hold.
                let moved = (kept - goal) / w;
                self.plant[k].anchor += Vec3::new(moved.x, 0.0, moved.z);
            }
            self.reach(k, target, kept);
        }
    }

    /// The hips' share of the holds (`PlantOp::hips_share`): when every leg's foot has a hold's
    /// goal, the hips move horizontally by `share` times the mean of the goals' offsets from
    /// the feet the passes put, times the least of the holds' weights (so the hips come back as
    /// a hold blends out); the legs are solved to their goals after.
    fn hips_share(&mut self, share: f32, target: &mut Pose) {
        let (mut sum, mut n, mut least) = (Vec3::ZERO, 0u32, 1.0f32);
        for k in 0..self.plan.limbs.len() {
            if !self.plan.limbs[k].leg {
                continue;
            }
            let Some(goal) = self.plant[k].goal else {
                return;
            };
            let off = goal - self.end_pos(k);
            sum += Vec3::new(off.x, 0.0, off.z);
            n += 1;
            least = least.min(self.plant[k].weight);
        }
        if n > 0 && least > 0.0 {
            self.lift(target, sum * (share * least / n as f32));
        }
    }

    /// Pelvis motion (`PlantOp::max_pelvis_shift`): the hips (or the bone that carries them
    /// and the legs) move horizontally toward each foot whose goal is beyond its leg's reach (a
    /// held foot, or one the IK pass could not put at its goal), by the part of the miss that
    /// takes the goal back within reach at the hip's height; the moves of both legs are summed
    /// and at most `max` long. The legs without a goal are bent back to where their feet were.
    /// Without it such a foot goes to the nearest point the leg reaches, on the line from the
    /// hip, and follows the hips (the back foot of a lunge the target's legs are too short for).
    fn pelvis_shift(&mut self, max: f32, target: &mut Pose) {
        let mut shift = Vec3::ZERO;
        for k in 0..self.plan.limbs.len() {
            let Some(goal) = self.plant[k].goal else {
                continue;
            };
            let (a, length) = self.solver_reach(k);
            let room = length * length - (goal.y - a.y) * (goal.y - a.y);
            let across = Vec3::new(goal.x - a.x, 0.0, goal.z - a.z);
            let h = across.length();
            if room <= 0.0 || h * h <= room {
                continue;
            }
            shift += across * ((h - room.sqrt()) / h);
        }
        let len = shift.length();
        if len <= 0.0 {
            return;
        }
        if len > max {
            shift *= max / len;
        }
        for k in 0..self.plan.limbs.len() {
            if self.plan.limbs[k].leg && self.plant[k].goal.is_none() {
                // Not held: its foot stays where the passes put it.
                self.plant[k].goal = Some(self.end_pos(k));
            }
        }
        let th = self.plan.target_hips.index();
        let moved = self.plan.target_carrier.map_or(th, |c| c.index());
        let parent = self.global_of(target, self.target_parents[moved]);
        let now = parent.child(&target.locals[moved]).pos;
        target.locals[moved].translation = parent.local_translation(now + shift);
        self.positions(target);
    }

    /// The floor constraint: the hips (their joint and the thighs') are lifted above the floor,
    /// then each foot whose source is near the floor takes the source's height above it
    /// (scaled), and no foot stays below it.
    pub(super) fn floor_op(&mut self, f: &FloorOp, target: &mut Pose) {
        let floor = f.height;
        let [a, b] = self.target_pelvis;
        let th = self.plan.target_hips.index();
        let low = (self.target_global[a as usize].pos.y)
            .min(self.target_global[b as usize].pos.y)
            .min(self.target_global[th].pos.y);
        if low < floor {
            self.lift(target, Vec3::Y * ((floor - low) * f.alpha));
        }
        let scale = self.target_height / 1.8;
        let (snap, blend) = (f.snap_m * scale, f.blend_m * scale);
        let ratio = self.plan.hips_ratio * self.vertical;
        // Each leg's rise wanted (negative: a drop), and the least and most of them.
        let (mut least, mut most) = (f32::INFINITY, f32::NEG_INFINITY);
        for k in 0..self.plan.limbs.len() {
            let limb = &self.plan.limbs[k];
            if !limb.leg {
                continue;
            }
            let source = self.source_global[limb.source[2].index()].pos.y - limb.source_end_rest.y;
            let source = source * ratio;
            let height = self.end_pos(k).y - floor - limb.end_rest.y;
            let w = if source <= snap {
                1.0
            } else if source >= blend {
                0.0
            } else {
                (blend - source) / (blend - snap)
            };
            let want = (height + (source - height) * w).max(0.0);
            let rise = (want - height) * f.alpha;
            self.floor_rise[k] = rise;
            if w > 0.0 || rise > 0.0 {
                // A foot near the floor (or below it); one in the air is where the passes put
                // it and may go up or down with the hips.
                least = least.min(rise);
                most = most.max(rise);
            }
        }
        // The part every foot near the floor wants (the smaller rise when all rise, the
        // smaller drop when all drop) is taken by the hips: the legs keep their directions.
        let common = if least > 0.0 && least.is_finite() {
            least
        } else if most < 0.0 && most.is_finite() {
            most
        } else {
            0.0
        };
        if common != 0.0 {
            self.lift(target, Vec3::Y * common);
        }
        for k in 0..self.plan.limbs.len() {
            if !self.plan.limbs[k].leg {
                continue;
            }
            let rise = self.floor_rise[k] - common;
            if rise == 0.0 {
                continue;
            }
            let now = self.end_pos(k);
            let lowest = floor + self.plan.limbs[k].end_rest.y;
            let y = self.reachable_height(k, now, now.y + rise);
            let kept = self.kept_goal(k, Vec3::new(now.x, y, now.z), f.max_leg_deg);
            // Never below the floor, whatever the legs' budget.
            let y = kept.y.max(lowest.min(y));
            self.reach(k, target, Vec3::new(now.x, y, now.z));
        }
    }

    /// Moves the hips (or the bone that carries them and the legs) by `by`, skeleton space,
    /// and refreshes the globals.
    fn lift(&mut self, target: &mut Pose, by: Vec3) {
        let th = self.plan.target_hips.index();
        let moved = self.plan.target_carrier.map_or(th, |c| c.index());
        let parent = self.global_of(target, self.target_parents[moved]);
        let now = parent.child(&target.locals[moved]).pos;
        target.locals[moved].translation = parent.local_translation(now + by);
        self.positions(target);
    }

    /// How far the two-bone solve for limb `k`'s end at `goal` turns its upper or lower bone
    /// (the larger), radians.
    fn leg_bend(&self, k: usize, goal: Vec3) -> f32 {
        let [tu, tm, _] = self.plan.limbs[k].target;
        let (a, b, c) = (
            self.target_global[tu.index()].pos,
            self.target_global[tm.index()].pos,
            self.end_pos(k),
        );
        let (upper, lower) = solved_bones(a, b, c, goal);
        angle(upper, (b - a).normalize_or_zero()).max(angle(lower, (c - b).normalize_or_zero()))
    }

    /// The place on the way from limb `k`'s end to `goal`, nearest `goal`, whose two-bone solve
    /// leaves the upper and lower bones within `limit_deg` of the source's upper and lower
    /// bones, or within [`LEG_SLACK_DEG`] further than they are now where they are further
    /// already: `goal` itself when it keeps them so. Found by two secant steps from the end
    /// (the worst angle is close to linear in the way along such short moves), so that it
    /// changes continuously with the pose; where those still leave the bones beyond the bound
    /// (a leg near straight, whose knee turns as the square root of the way), by false position
    /// (Illinois) between the end and there, at most [`KEPT_TOLERANCE_DEG`] inside the bound
    /// (never beyond it), or the nearest place found within it. 180: `goal`.
    pub(super) fn kept_goal(&self, k: usize, goal: Vec3, limit_deg: f32) -> Vec3 {
        if limit_deg >= 180.0 {
            return goal;
        }
        let limb = &self.plan.limbs[k];
        let ([tu, tm, _], [su, sm, se]) = (limb.target, limb.source);
        let s = |b: crate::model::BoneId| self.source_global[b.index()].pos;
        let want = [
            (s(sm) - s(su)).normalize_or_zero(),
            (s(se) - s(sm)).normalize_or_zero(),
        ];
        let (a, b, c) = (
            self.target_global[tu.index()].pos,
            self.target_global[tm.index()].pos,
            self.end_pos(k),
        );
        if want[0] == Vec3::ZERO || want[1] == Vec3::ZERO || (b - a).length_squared() == 0.0 {
            return goal;
        }
        // The worst of both bones' angles from the source's with the end at `g`, radians.
        let off = |g: Vec3| {
            let (upper, lower) = solved_bones(a, b, c, g);
            angle(upper, want[0]).max(angle(lower, want[1]))
        };
        let here = angle(b - a, want[0]).max(angle(c - b, want[1]));
        let bound = limit_deg
            .to_radians()
            .max(here + LEG_SLACK_DEG.to_radians());
        let there = off(goal);
        if there <= bound {
            return goal;
        }
        // `bound - here` is at least the slack, so `t` tends to 1 as `there` tends to `bound`.
        let mut t = (bound - here) / (there - here);
        let e = off(c.lerp(goal, t));
        if e <= bound {
            return c.lerp(goal, t);
        }
        let (mut hi, mut f_hi) = (t, e - bound);
        t *= (bound - here) / (e - here);
        let tolerance = KEPT_TOLERANCE_DEG.to_radians();
        let e = off(c.lerp(goal, t)) - bound;
        if (-tolerance..=0.0).contains(&e) {
            return c.lerp(goal, t);
        }
        // False position between the end (within the bound) and the nearest place beyond it.
        (hi, f_hi) = if e > 0.0 { (t, e) } else { (hi, f_hi) };
        let (mut lo, mut f_lo) = (0.0, here - bound);
        let mut side = 0;
        for _ in 0..KEPT_STEPS {
            t = lo + (hi - lo) * (-f_lo / (f_hi - f_lo));
            let e = off(c.lerp(goal, t)) - bound;
            if (-tolerance..=0.0).contains(&e) {
                return c.lerp(goal, t);
            }
            if e > 0.0 {
                (hi, f_hi) = (t, e);
                if side > 0 {
                    f_lo *= 0.5;
                }
                side = 1;
            } else {
                (lo, f_lo) = (t, e);
                if side < 0 {
                    f_hi *= 0.5;
                }
                side = -1;
            }
        }
        c.lerp(goal, lo)
    }

    /// [`Self::limb_reach`], its length within the solver's own clamp (`ik::two_bone` reaches
    /// (1 - 1e-6) of the length).
    fn solver_reach(&self, k: usize) -> (Vec3, f32) {
        let (a, length) = self.limb_reach(k);
        (a, length * (1.0 - 4e-6))
    }

    /// The height nearest `y` that limb `k`'s end can reach above (or below) `at` without
    /// leaving `at`'s horizontal place: a goal out of the limb's reach would straighten it
    /// toward the goal and drag the end sideways (a held foot sliding as the hips bob). `y`
    /// itself when the limb reaches it, or when no height there is within reach.
    pub(super) fn reachable_height(&self, k: usize, at: Vec3, y: f32) -> f32 {
        let (a, length) = self.solver_reach(k);
        let across = Vec3::new(at.x - a.x, 0.0, at.z - a.z).length_squared();
        let room = length * length - across;
        if room <= 0.0 {
            return y;
        }
        let r = room.sqrt();
        y.clamp(a.y - r, a.y + r)
    }

    /// The One-Euro filter over every driven bone's local rotation and every translated bone's
    /// local translation; the first frame after a reset passes through.
    pub(super) fn filter_op(&mut self, f: &FilterOp, dt: f32, target: &mut Pose) {
        let first = !self.filter_ready;
        self.filter_ready = true;
        let (ad, alpha) = (smoothing(f.d_cutoff, dt), f.alpha);
        for k in 0..self.plan.driven.len() {
            let i = self.plan.driven[k].index();
            let st = &mut self.filter[i];
            let q = target.locals[i].rotation;
            let mut x = Vec4::from(q);
            if first {
                (st.rot, st.rot_rate) = (x, Vec4::ZERO);
                continue;
            }
            if x.dot(st.rot) < 0.0 {
                x = -x;
            }
            st.rot_rate = st.rot_rate.lerp((x - st.rot) / dt, ad);
            let cutoff = f.min_cutoff + f.beta * st.rot_rate.length();
            st.rot = st.rot.lerp(x, smoothing(cutoff, dt));
            let filtered = Quat::from_vec4(st.rot).normalize();
            target.locals[i].rotation = q.slerp(filtered, alpha).normalize();
        }
        for k in 0..self.plan.translated.len() {
            let i = self.plan.translated[k].index();
            let st = &mut self.filter[i];
            let x = target.locals[i].translation;
            if first {
                (st.pos, st.pos_rate) = (x, Vec3::ZERO);
                continue;
            }
            st.pos_rate = st.pos_rate.lerp((x - st.pos) / dt, ad);
            let cutoff = f.min_cutoff + f.beta * st.pos_rate.length();
            st.pos = st.pos.lerp(x, smoothing(cutoff, dt));
            target.locals[i].translation = x.lerp(st.pos, alpha);
        }
        self.positions(target);
    }

    /// Pole-vector matching: each limb's upper bone turns about the line from its joint to the
    /// end so that the middle joint bends to the side the source's does (plus `offset_deg`),
    /// by `alpha`; the end keeps its place and its global rotation.
    pub(super) fn pole_op(&mut self, p: &PoleOp, target: &mut Pose) {
        for k in 0..self.plan.limbs.len() {
            let limb = &self.plan.limbs[k];
            let ([tu, tm, te], [su, sm, se]) = (limb.target, limb.source);
            let s = |b: crate::model::BoneId| self.source_global[b.index()].pos;
            let (a, c) = (self.target_global[tu.index()].pos, self.end_pos(k));
            let axis = (c - a).normalize_or_zero();
            let want = pole(s(su), s(sm), s(se));
            let have = pole(a, self.target_global[tm.index()].pos, c);
            let (Some(want), Some(have)) = (want, have) else {
                continue;
            };
            if axis == Vec3::ZERO {
                continue;
            }
            let angle =
                have.cross(want).dot(axis).atan2(have.dot(want)) + p.offset_deg.to_radians();
            let turn = Quat::from_axis_angle(axis, angle * p.alpha);
            let end_rot = self.target_global[te.index()].rot;
            let upper = (turn * self.target_global[tu.index()].rot).normalize();
            let parent = self.parent_of(tu.index());
            target.locals[tu.index()].rotation = (parent.rot.inverse() * upper).normalize();
            self.refresh_path(target, k, tu.index(), te.index());
            let parent = self.parent_of(te.index());
            target.locals[te.index()].rotation = (parent.rot.inverse() * end_rot).normalize();
            self.refresh_path(target, k, te.index(), te.index());
        }
    }

    /// Stride warping: each foot's horizontal motion from its stance below the pelvis (its rest
    /// place turned with the hips' heading), in the heading's frame, is scaled by `forward`
    /// (+Z, the facing) and `sideways` (X), by `alpha`; its height is kept.
    pub(super) fn stride_op(&mut self, w: &StrideOp, target: &mut Pose) {
        let yaw = yaw_of(self.source_delta[self.plan.source_hips.index()]);
        let pelvis = self.target_pelvis_now();
        for k in 0..self.plan.limbs.len() {
            let limb = &self.plan.limbs[k];
            if !limb.leg {
                continue;
            }
            let stance = pelvis + yaw * (limb.end_rest - self.target_pelvis_rest);
            let now = self.end_pos(k);
            let local = yaw.inverse() * (now - stance);
            let warped = Vec3::new(local.x * w.sideways, local.y, local.z * w.forward);
            let goal = stance + yaw * warped;
            let goal = Vec3::new(goal.x, now.y, goal.z);
            self.reach(k, target, now.lerp(goal, w.alpha));
        }
    }

    /// Pin `k` of the plan: its bone takes the other bone's global transform (times their rest
    /// offset), blended by `alpha` in the bone's local space; the globals below are refreshed.
    pub(super) fn pin_op(&mut self, k: usize, target: &mut Pose) {
        let pin = self.plan.pins[k];
        let from = self.global_of(target, pin.from.0);
        let (rot, pos) = match pin.offset {
            Some((r, o)) => (from.rot * r, from.pos + from.rot * (o * from.scale)),
            None => (from.rot, from.pos),
        };
        let i = pin.bone.index();
        let parent = self.global_of(target, self.target_parents[i]);
        let local = &mut target.locals[i];
        let (want_rot, want_pos) = (
            (parent.rot.inverse() * rot).normalize(),
            parent.local_translation(pos),
        );
        local.rotation = local.rotation.slerp(want_rot, pin.alpha).normalize();
        local.translation = local.translation.lerp(want_pos, pin.alpha);
        self.positions(target);
    }
}

/// The upper and lower bones (joint to joint) of a limb with joints `a`, `b`, `c` once
/// [`ik::two_bone`] has put its end at `goal`.
fn solved_bones(a: Vec3, b: Vec3, c: Vec3, goal: Vec3) -> (Vec3, Vec3) {
    let (r1, r2) = ik::two_bone(a, b, c, goal);
    let b2 = a + r1 * (b - a);
    (b2 - a, r2 * (a + r1 * (c - a) - b2))
}

/// The angle between `x` and the unit vector `w`, radians (a right angle when `x` is zero).
fn angle(x: Vec3, w: Vec3) -> f32 {
    x.normalize_or_zero().dot(w).clamp(-1.0, 1.0).acos()
}

/// How much further than the passes before left them a hold or the floor may take a leg's
/// bones from the source's where they are beyond the legs' budget already, degrees.
const LEG_SLACK_DEG: f32 = 0.25;

/// A source foot slower than this fraction of planting's `speed` stands still: a contact that
/// begins on such a frame began a frame earlier (see [`Retargeter::plant_op`]).
const STILL: f32 = 0.01;

/// How far inside the legs' budget [`Retargeter::kept_goal`]'s place may stop short of it,
/// degrees: never beyond it, so a budget of 2° measures at most 2° on the output.
const KEPT_TOLERANCE_DEG: f32 = 0.01;

/// The most false-position steps [`Retargeter::kept_goal`] takes after its two secant steps.
const KEPT_STEPS: usize = 8;

/// The part of a foot's horizontal `step` that the hips' `carried` step shares: its projection
/// on the hips' step, from none up to the whole of it (zero when the hips stand still).
fn shared_step(step: Vec3, carried: Vec3) -> Vec3 {
    let len = carried.length();
    if len <= 0.0 {
        return Vec3::ZERO;
    }
    let dir = carried / len;
    dir * step.dot(dir).clamp(0.0, len)
}

/// `heading` (a turn about +Y) brought within `limit` radians of `yaw` (another).
fn within_turn(heading: Quat, yaw: Quat, limit: f32) -> Quat {
    let rel = heading * yaw.inverse();
    let mut angle = 2.0 * rel.y.atan2(rel.w);
    if angle > PI {
        angle -= TAU;
    } else if angle < -PI {
        angle += TAU;
    }
    if angle.abs() <= limit {
        return heading;
    }
    Quat::from_rotation_y(limit.copysign(angle)) * yaw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foot_shares_the_hips_step_only_along_it_and_at_most_all_of_it() {
        let near = |a: Vec3, b: Vec3| a.distance(b) < 1e-6;
        let (hips, still) = (Vec3::new(0.0, 0.0, 0.02), Vec3::ZERO);
        // A glide: the foot goes with the hips, all of its step is shared.
        assert!(near(shared_step(hips, hips), hips));
        // Hips standing still share nothing; a foot that stands shares nothing.
        assert!(near(shared_step(hips, still), still));
        assert!(near(shared_step(still, hips), still));
        // Across the hips' step, or back against it: nothing.
        assert!(near(shared_step(Vec3::new(0.01, 0.0, 0.0), hips), still));
        assert!(near(shared_step(-hips, hips), still));
        // Longer than the hips' step along it: the hips' step, no more.
        assert!(near(shared_step(Vec3::new(0.01, 0.0, 0.05), hips), hips));
        assert!(near(
            shared_step(Vec3::new(0.01, 0.0, 0.01), hips),
            Vec3::new(0.0, 0.0, 0.01)
        ));
    }

    #[test]
    fn held_headings_stay_within_the_turn_across_the_wrap() {
        let y = |deg: f32| Quat::from_rotation_y(deg.to_radians());
        let limit = 20f32.to_radians();
        let near = |a: Quat, b: Quat| a.dot(b).abs() > 1.0 - 1e-6;
        assert!(near(within_turn(y(10.0), y(0.0), limit), y(10.0)));
        assert!(near(within_turn(y(50.0), y(0.0), limit), y(20.0)));
        assert!(near(within_turn(y(-50.0), y(0.0), limit), y(-20.0)));
        assert!(near(within_turn(y(-170.0), y(170.0), limit), y(-170.0)));
        assert!(near(within_turn(y(-150.0), y(170.0), limit), y(-170.0)));
        assert!(near(within_turn(y(150.0), y(-170.0), limit), y(170.0)));
    }
}
