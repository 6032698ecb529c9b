//! The runtime retargeter: built once per pair of skeletons, then one call per frame that
//! neither allocates nor reads files, for retargeting live in a game engine.

use super::ik;
use super::kept_base::{folded, kept_turn, turned};
use super::ops::{Core, Op};
use super::plan::{self, Driver, Global, Plan};
use super::{RetargetError, RetargetOptions, Rig};

mod mirror;
mod stack;
mod tilt;

use crate::model::{yaw_of, BoneId, Pose, Reflection, Skeleton, Transform};
use glam::{Quat, Vec3};
use stack::{FilterState, PlantState};
use tilt::LegReach;

/// Retargets poses of one skeleton onto another, frame by frame.
///
/// Build it once (it finds the chain plan, rest frames and IK limbs), then call
/// [`retarget`](Retargeter::retarget) (or [`retarget_at`](Retargeter::retarget_at) with the
/// time step) every frame with the source's pose: it writes the target's local transforms,
/// allocating nothing. Ops that keep state across frames (planting, the filter) keep it here;
/// [`reset`](Retargeter::reset) forgets it before an unrelated pose (a new clip).
///
/// A side whose nodes kept above its skeleton tilt its up axis (a Z-up armature node kept by
/// `rest.apply_node_transforms: false`; [`Skeleton::base`]) is read as the offline retarget reads
/// it: that turn folded into its root bones. Poses stay in each skeleton's own space: the
/// source's root bones are turned by it as they come in, the target's turned back as they go
/// out, so the target's pose plays under its kept nodes as the source's does under its own.
///
/// ```
/// use skelnorm::mapping::{map_skeleton, MapOptions};
/// use skelnorm::model::Pose;
/// use skelnorm::pipeline::{normalize, NormalizeOptions};
/// use skelnorm::profile::Profile;
/// use skelnorm::retarget::{Retargeter, RetargetOptions, Rig};
///
/// let profile = Profile::humanoid();
/// let load = |f: &str| {
///     let mut doc = skelnorm::gltf_io::read(f.as_ref()).unwrap();
///     normalize(&mut doc.model, profile, &NormalizeOptions::default()).unwrap();
///     doc.model
/// };
/// let (src, dst) = (load("fixtures/mixamo.glb"), load("fixtures/ue_zup.glb"));
/// let (ss, ts) = (&src.skeletons[0], &dst.skeletons[0]);
/// let (sm, tm) = (map_skeleton(ss, profile, &MapOptions::default()), map_skeleton(ts, profile, &MapOptions::default()));
/// let mut r = Retargeter::new(
///     &Rig { skeleton: ss, map: &sm, profile },
///     &Rig { skeleton: ts, map: &tm, profile },
///     &RetargetOptions::default(),
/// ).unwrap();
/// // Per frame: the engine's source pose in, the target pose out.
/// let (source_pose, mut target_pose) = (Pose::sample(ss, &src.clips[0], 0.5), Pose::rest(ts));
/// r.retarget(&source_pose, &mut target_pose).unwrap();
/// ```
#[derive(Debug, Clone)]
pub struct Retargeter {
    plan: Plan,
    /// The core passes' alphas (0: off).
    core: Core,
    /// The ops after the core passes that are on, in order.
    ops: Vec<Step>,
    /// The legs' direction budget of the IK pass (`RetargetOptions::ik_max_leg_deg`), degrees.
    ik_max_leg_deg: f32,
    /// The time step when none is given: 1 / `options.fps`, seconds.
    dt: f32,
    /// Each side's height (skeleton units), which thresholds are fractions of.
    source_height: f32,
    target_height: f32,
    /// Planting's state per IK limb.
    plant: Vec<PlantState>,
    /// The filter's state per target bone.
    filter: Vec<FilterState>,
    /// Whether the filter has seen a frame since the last reset.
    filter_ready: bool,
    /// The `Mirror` op, when it is on (it runs last).
    mirror: Option<mirror::MirrorStep>,
    in_place: bool,
    /// With `in_place`, the horizontal travel the root pass removed this frame (zero
    /// otherwise): planting holds feet where they stand in the travelling frame, skeleton space
    /// plus this, so that a held foot slides back with the ground under an in-place walk.
    removed_travel: Vec3,
    /// The ground velocity of a source that runs in place (source units per second,
    /// horizontal; `PlantOp::treadmill`): planting finds contacts and holds feet relative to
    /// it. `None`: the ground stands still.
    treadmill: Option<Vec3>,
    /// Each foot's contact this frame (left, right) when given ([`Self::set_contacts`]):
    /// planting takes them instead of detecting them.
    contacts: Option<[bool; 2]>,
    root_motion: bool,
    horizontal: f32,
    vertical: f32,
    /// The source skeleton, whose hierarchy the source pass accumulates over.
    source: Skeleton,
    target_parents: Vec<u32>,
    target_rest: Vec<Transform>,
    /// Inverse global rest rotations of the source.
    source_rest_inv: Vec<Quat>,
    /// Source bones whose position this frame needs (the hips, IK limbs, their ancestors).
    source_needs_position: Vec<bool>,
    /// Target bones whose global position the IK pass needs, in bone order.
    target_positioned: Vec<u32>,
    /// The bones whose joints' midpoint is the pelvis (the two thighs, or the hips twice) and
    /// where that midpoint is at rest, on each side.
    source_pelvis: [u32; 2],
    target_pelvis: [u32; 2],
    source_pelvis_rest: Vec3,
    target_pelvis_rest: Vec3,
    // Scratch, sized once.
    source_global: Vec<Global>,
    source_delta: Vec<Quat>,
    target_global: Vec<Global>,
    /// Per IK limb, [`Self::end_shifts`].
    end_shift: Vec<Vec3>,
    /// Per IK limb, how far the IK pass's goal is from where it put the end this frame (a
    /// leg's goal beyond its reach in a lunge); zero when it reached it or did not solve it.
    ik_miss: Vec<Vec3>,
    /// The floor constraint's rise wanted per limb this frame (scratch).
    floor_rise: Vec<f32>,
    /// Target bones below the hips, in bone order (parents first), which the hips' tilt for
    /// the legs' reach turns ([`Self::hips_tilt`]), each with whether it keeps its global
    /// rotation (a driven bone that does not carry a leg).
    below_hips: Vec<(u32, bool)>,
    /// Per IK limb, the hips' tilt's view of it this frame.
    tilt_legs: Vec<LegReach>,
    /// How far the source's legs' upper joints are from its pelvis at rest, scaled as its
    /// motion is, over the target's (the legs' mean; 1 without legs): the hips' tilt turns the
    /// target's hip joints no less than the source's turn, scaled.
    hips_width_ratio: f32,
    /// Per target bone, its global rotation before the hips' tilt.
    tilt_rot: Vec<Quat>,
    /// The turn of the nodes kept above the source skeleton, folded into its root bones'
    /// locals as each frame comes in (`kept_base::kept_turn`); `None`: nothing folded.
    source_kept: Option<Quat>,
    /// The same for the target: its root bones' locals are turned back by it as they go out.
    target_kept: Option<Quat>,
}

const NONE: u32 = u32::MAX;

/// How much higher than the nearest point's miss a foot out of reach may be held to keep its
/// horizontal place ([`Retargeter::standing_height`]): a foot lifted by `miss / cos θ` for a
/// leg θ from vertical, so 1.1 takes in the feet that stand below the hips (θ up to 24.6°),
/// not the far strides and lunges.
const LIFT_OVER_MISS: f32 = 1.1;

/// An op after the core passes as the runtime runs it (pins by their index in the plan).
#[derive(Debug, Clone)]
enum Step {
    Plant(super::PlantOp),
    Floor(super::FloorOp),
    Filter(super::FilterOp),
    Pole(super::PoleOp),
    Stride(super::StrideOp),
    Pin(usize),
}

/// The steps of the ops after the core passes that are on, in order.
fn steps(ops: &[Op]) -> Vec<Step> {
    let mut pins = 0;
    let mut out = Vec::new();
    for op in ops.iter().filter(|o| !o.is_core() && o.on()) {
        out.push(match op {
            Op::Plant(p) => Step::Plant(p.clone()),
            Op::Floor(f) => Step::Floor(*f),
            Op::Filter(f) => Step::Filter(*f),
            Op::Pole(p) => Step::Pole(*p),
            Op::Stride(w) => Step::Stride(*w),
            Op::Pin(_) => {
                pins += 1;
                Step::Pin(pins - 1)
            }
            // Mirroring runs after everything, the final placement included.
            Op::Root(_) | Op::Fk(_) | Op::Ik(_) | Op::Mirror(_) => continue,
        });
    }
    out
}

/// How far the source's legs' upper joints are from its pelvis at rest, scaled as the retarget
/// scales its motion, over how far the target's are (the legs' means); 1 without legs.
fn hips_width_ratio(plan: &Plan, options: &RetargetOptions) -> f32 {
    let (sp, tp) = plan.pelvis_bones();
    let mean = |rest: &[(Quat, Vec3)], bones: &[BoneId]| {
        bones.iter().map(|b| rest[b.index()].1).sum::<Vec3>() / bones.len() as f32
    };
    let (ps, pt) = (mean(&plan.source_rest, &sp), mean(&plan.target_rest, &tp));
    let (mut ws, mut wt, mut n) = (0.0, 0.0, 0.0);
    for limb in plan.limbs.iter().filter(|l| l.leg) {
        let s = plan.source_rest[limb.source[0].index()].1 - ps;
        let r = plan.hips_ratio;
        let h = options.horizontal_scale;
        ws += Vec3::new(s.x * r * h, s.y * r * options.vertical_scale, s.z * r * h).length();
        wt += (plan.target_rest[limb.target[0].index()].1 - pt).length();
        n += 1.0;
    }
    if n == 0.0 || wt <= 1e-9 * ws.max(1.0) {
        1.0
    } else {
        ws / wt
    }
}

/// The bones below the target's hips, in bone order, each with whether the hips' tilt leaves its
/// global rotation as the passes set it: a bone the retarget drives, unless it carries a leg
/// (one between the hips and a thigh turns with the hips, so that the thighs' joints do).
fn below_hips(s: &Skeleton, plan: &Plan) -> Vec<(u32, bool)> {
    let mut under = vec![false; s.bones.len()];
    under[plan.target_hips.index()] = true;
    let mut carries = vec![false; s.bones.len()];
    for limb in plan.limbs.iter().filter(|l| l.leg) {
        let mut at = s.bones[limb.target[0].index()].parent;
        while let Some(b) = at.filter(|&b| b != plan.target_hips) {
            carries[b.index()] = true;
            at = s.bones[b.index()].parent;
        }
    }
    let mut out = Vec::new();
    for (i, b) in s.bones.iter().enumerate() {
        if b.parent.is_some_and(|p| under[p.index()]) {
            under[i] = true;
            out.push((i as u32, plan.drivers[i] != Driver::Rest && !carries[i]));
        }
    }
    out
}

impl Retargeter {
    /// Plans the retarget of `source`'s poses onto `target`. Both skeletons should be
    /// normalized to the same T-pose (use `options.pose` for rests that cannot be). A side
    /// whose kept nodes above tilt its up axis is planned with that turn folded into its root
    /// bones (see the type's doc).
    pub fn new(
        source: &Rig,
        target: &Rig,
        options: &RetargetOptions,
    ) -> Result<Retargeter, RetargetError> {
        let (source_kept, target_kept) = (kept_turn(source.skeleton), kept_turn(target.skeleton));
        let source_folded = source_kept.map(|q| folded(source.skeleton, q));
        let target_folded = target_kept.map(|q| folded(target.skeleton, q));
        let source = &Rig {
            skeleton: source_folded.as_ref().unwrap_or(source.skeleton),
            ..*source
        };
        let target = &Rig {
            skeleton: target_folded.as_ref().unwrap_or(target.skeleton),
            ..*target
        };
        let plan = plan::build(source, target, options)?;
        let parents = |s: &Skeleton| {
            s.bones
                .iter()
                .map(|b| b.parent.map_or(NONE, |p| p.0))
                .collect()
        };
        let (ns, nt) = (source.skeleton.bones.len(), target.skeleton.bones.len());
        let with_ancestors =
            |s: &Skeleton, bones: &mut dyn Iterator<Item = crate::model::BoneId>| {
                let mut need = vec![false; s.bones.len()];
                for b in bones {
                    let mut at = Some(b);
                    while let Some(x) = at.filter(|x| !need[x.index()]) {
                        need[x.index()] = true;
                        at = s.bones[x.index()].parent;
                    }
                }
                need
            };
        let (source_pelvis, target_pelvis) = plan.pelvis_bones();
        let source_needs_position = with_ancestors(
            source.skeleton,
            &mut std::iter::once(plan.source_hips)
                .chain(plan.limbs.iter().flat_map(|l| l.source))
                .chain(source_pelvis.iter().copied())
                .chain(plan.aims.iter().flat_map(|a| [a.from, a.to]))
                .chain(
                    plan.follows
                        .iter()
                        .chain(&plan.early_follows)
                        .filter_map(|f| f.source)
                        .flat_map(|s| [s.bone, s.anchor]),
                ),
        );
        let target_positioned = with_ancestors(
            target.skeleton,
            &mut plan
                .limbs
                .iter()
                .flat_map(|l| l.path.clone())
                .chain(target_pelvis.iter().copied()),
        )
        .iter()
        .enumerate()
        .filter(|(_, n)| **n)
        .map(|(i, _)| i as u32)
        .collect();
        let mirror = options
            .mirror_op()
            .map(|op| mirror::MirrorStep::new(target, &op, &plan.driven, &plan.translated))
            .transpose()?;
        let mean = |rest: &[(Quat, Vec3)], bones: &[crate::model::BoneId]| {
            bones.iter().map(|b| rest[b.index()].1).sum::<Vec3>() / bones.len() as f32
        };
        Ok(Retargeter {
            source_pelvis_rest: mean(&plan.source_rest, &source_pelvis),
            target_pelvis_rest: mean(&plan.target_rest, &target_pelvis),
            source_pelvis: [source_pelvis[0].0, source_pelvis[source_pelvis.len() - 1].0],
            target_pelvis: [target_pelvis[0].0, target_pelvis[target_pelvis.len() - 1].0],
            source_needs_position,
            target_positioned,
            core: options.core(),
            // Planting places the feet in contact: its own budget for the leg IK pass.
            ik_max_leg_deg: options
                .ops
                .iter()
                .find_map(|o| match o {
                    crate::retarget::Op::Plant(p) if p.enabled && p.alpha > 0.0 => {
                        Some(p.ik_max_leg_deg)
                    }
                    _ => None,
                })
                .unwrap_or(options.ik_max_leg_deg),
            ops: steps(&options.ops),
            dt: if options.fps > 0.0 && options.fps.is_finite() {
                1.0 / options.fps
            } else {
                1.0 / 30.0
            },
            source_height: source.skeleton.stature().max(1e-9),
            target_height: target.skeleton.stature().max(1e-9),
            plant: vec![PlantState::default(); plan.limbs.len()],
            filter: vec![FilterState::default(); nt],
            filter_ready: false,
            mirror,
            in_place: options.in_place,
            removed_travel: Vec3::ZERO,
            treadmill: options.planting().and_then(|p| p.treadmill.given()),
            contacts: None,
            root_motion: options.root_motion,
            horizontal: options.horizontal_scale,
            vertical: options.vertical_scale,
            source: source.skeleton.clone(),
            target_parents: parents(target.skeleton),
            target_rest: target
                .skeleton
                .bones
                .iter()
                .zip(&plan.target_local_rest)
                .map(|(b, &r)| Transform {
                    rotation: r,
                    ..b.rest
                })
                .collect(),
            source_rest_inv: plan.source_rest.iter().map(|(q, _)| q.inverse()).collect(),
            source_global: vec![Global::ROOT; ns],
            source_delta: vec![Quat::IDENTITY; ns],
            target_global: vec![Global::ROOT; nt],
            end_shift: vec![Vec3::ZERO; plan.limbs.len()],
            ik_miss: vec![Vec3::ZERO; plan.limbs.len()],
            floor_rise: vec![0.0; plan.limbs.len()],
            below_hips: below_hips(target.skeleton, &plan),
            tilt_legs: vec![LegReach::default(); plan.limbs.len()],
            hips_width_ratio: hips_width_ratio(&plan, options),
            tilt_rot: vec![Quat::IDENTITY; nt],
            source_kept,
            target_kept,
            plan,
        })
    }

    /// The plan: chain pairing, bone placement along chains, the ratio, warnings.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The bones whose transforms a clip made offline records: rotations, then translations
    /// (the plan's driven and translated bones; with the `Mirror` op, their counterparts and the
    /// bones where the hierarchy is not symmetric too).
    pub fn recorded(&self) -> (&[BoneId], &[BoneId]) {
        match &self.mirror {
            Some(m) => m.recorded(),
            None => (&self.plan.driven, &self.plan.translated),
        }
    }

    /// The reflection the `Mirror` op mirrors the target with, when the op is on.
    pub fn mirror_reflection(&self) -> Option<&Reflection> {
        self.mirror.as_ref().map(|m| m.reflection())
    }

    /// A source offset (a movement, a vector between joints) as the target makes it: scaled by
    /// the plan's ratio (times the horizontal and vertical factors).
    pub fn scale_position(&self, p: Vec3) -> Vec3 {
        let r = self.plan.hips_ratio;
        Vec3::new(
            p.x * r * self.horizontal,
            p.y * r * self.vertical,
            p.z * r * self.horizontal,
        )
    }

    /// Retargets one frame: `source` holds the source skeleton's local transforms, `target`
    /// receives the target's (every bone is written: driven bones get the retargeted rotation,
    /// the hips their position, the others their rest). The time step since the last frame is
    /// 1 / `options.fps` (see [`Self::retarget_at`]). Allocates nothing.
    pub fn retarget(&mut self, source: &Pose, target: &mut Pose) -> Result<(), RetargetError> {
        self.retarget_at(source, target, self.dt)
    }

    /// Forgets what the ops that keep state (planting, the filter) saw: the next frame starts
    /// afresh, as the first after [`Self::new`], but on the ground and contacts last set
    /// ([`Self::set_treadmill`], [`Self::set_contacts`]), which it keeps.
    pub fn reset(&mut self) {
        self.plant.fill(PlantState::default());
        self.filter_ready = false;
    }

    /// Sets the ground planting plants on: the horizontal velocity (source units per second, in
    /// the source's skeleton space, Y up: with a kept turn above it folded, as
    /// `retarget::detect_treadmill` gives it) of the treadmill a clip that runs in place is played on
    /// (`retarget::detect_treadmill` finds it from a whole clip), or `None` for a ground that
    /// stands still. A foot is in contact, and held, relative to it: a held foot slides with
    /// it, scaled as the retarget scales travel. It stays until set again ([`Self::reset`]
    /// keeps it). Allocates nothing.
    pub fn set_treadmill(&mut self, velocity: Option<Vec3>) {
        self.treadmill = velocity.map(|v| Vec3::new(v.x, 0.0, v.z));
    }

    /// Sets each foot's contact for the frames to come, `[left, right]` (a game's foot-lock
    /// curves, or the flags `PlantOp::contacts`' curves give offline): planting holds a foot
    /// while its flag is set instead of detecting contacts from the source's foot height and
    /// speed; `None` goes back to detecting them. It stays until set again ([`Self::reset`]
    /// keeps it). Allocates nothing.
    pub fn set_contacts(&mut self, contacts: Option<[bool; 2]>) {
        self.contacts = contacts;
    }

    /// The contacts planting takes ([`Self::set_contacts`]).
    pub fn contacts(&self) -> Option<[bool; 2]> {
        self.contacts
    }

    /// The ground planting plants on ([`Self::set_treadmill`]).
    pub fn treadmill(&self) -> Option<Vec3> {
        self.treadmill
    }

    /// [`Self::retarget`] with `dt`, the seconds since the previous frame (above 0), which
    /// planting's speeds and the filter use. Allocates nothing.
    pub fn retarget_at(
        &mut self,
        source: &Pose,
        target: &mut Pose,
        dt: f32,
    ) -> Result<(), RetargetError> {
        self.retarget_locals(&source.locals, target, dt)
    }

    /// [`Self::retarget_at`] from the source's local transforms (one per bone), wherever they
    /// are kept: offline retargeting passes the frames it sampled as they lie.
    pub(crate) fn retarget_locals(
        &mut self,
        source: &[Transform],
        target: &mut Pose,
        dt: f32,
    ) -> Result<(), RetargetError> {
        if !(dt > 0.0 && dt.is_finite()) {
            return Err(RetargetError::BadOption(format!(
                "time step {dt}: must be above 0"
            )));
        }
        let (ns, nt) = (self.source.bones.len(), self.target_parents.len());
        if source.len() != ns {
            return Err(RetargetError::PoseSize {
                side: "source",
                got: source.len(),
                want: ns,
            });
        }
        if target.locals.len() != nt {
            return Err(RetargetError::PoseSize {
                side: "target",
                got: target.locals.len(),
                want: nt,
            });
        }
        self.source_pass(source);
        self.end_shifts();
        self.fk_pass(target);
        if self.core.root > 0.0 {
            self.root_pass(target);
        }
        self.follow_pass(target, true);
        self.positions(target);
        self.ik_miss.fill(Vec3::ZERO);
        self.hips_tilt(target);
        for k in 0..self.plan.limbs.len() {
            if self.plan.limbs[k].solve {
                self.ik_pass(k, target);
            }
        }
        // Taken out while they run (no copy: planting's settings hold names), put back after.
        let ops = std::mem::take(&mut self.ops);
        for step in &ops {
            match step {
                Step::Plant(p) => self.plant_op(p, dt, target),
                Step::Floor(f) => self.floor_op(f, target),
                Step::Filter(f) => self.filter_op(f, dt, target),
                Step::Pole(p) => self.pole_op(p, target),
                Step::Stride(w) => self.stride_op(w, target),
                Step::Pin(k) => self.pin_op(*k, target),
            }
        }
        self.ops = ops;
        self.follow_pass(target, false);
        self.mirror_op(target);
        if let Some(q) = self.target_kept {
            let back = q.inverse();
            for (l, _) in
                (target.locals.iter_mut().zip(&self.target_parents)).filter(|(_, &p)| p == NONE)
            {
                *l = turned(*l, back);
            }
        }
        Ok(())
    }

    /// Places the bones that hang elsewhere (IK layouts) below their chain's bone, or beside
    /// the hips, as at rest: before the IK pass the chains' first bones, after it the ends.
    fn follow_pass(&mut self, target: &mut Pose, early: bool) {
        let n = if early {
            self.plan.early_follows.len()
        } else {
            self.plan.follows.len()
        };
        for k in 0..n {
            let f = if early {
                self.plan.early_follows[k]
            } else {
                self.plan.follows[k]
            };
            let anchor = self.global_of(target, f.anchor.0);
            let mut want = anchor.pos + anchor.rot * f.offset;
            if let Some(s) = f.source {
                // The source bone's move from its rest place below its anchor, turned as the
                // target's anchor turned from its rest.
                let turn = anchor.rot * self.plan.target_rest[f.anchor.index()].0.inverse();
                want += turn * self.source_moved(&s);
            }
            let parent = self.global_of(target, self.target_parents[f.bone.index()]);
            target.locals[f.bone.index()].translation = parent.local_translation(want);
        }
    }

    /// The global transform of any target bone (or none) from the locals written so far, with
    /// no scratch: the root pass runs before [`Self::positions`], the follow passes after.
    fn global_of(&self, target: &Pose, bone: u32) -> Global {
        let mut g = Global::ROOT;
        let mut at = bone;
        while at != NONE {
            let l = &target.locals[at as usize];
            g = Global {
                rot: l.rotation * g.rot,
                pos: l.translation + l.rotation * (g.pos * l.scale.x),
                scale: l.scale.x * g.scale,
            };
            at = self.target_parents[at as usize];
        }
        g
    }

    /// Puts limb `k`'s end at its goal ([`Self::ik_goal`]), bending the two bones above it; a
    /// leg's goal out of reach keeps its horizontal place where [`Self::standing_height`] says,
    /// and a leg's foot goes toward its goal only as far as the legs' budget
    /// (`ik_max_leg_deg`) keeps its thigh and shin near the source's ([`Self::kept_goal`]).
    /// The end keeps the global rotation the FK pass gave it.
    fn ik_pass(&mut self, k: usize, target: &mut Pose) {
        let mut goal = self.ik_goal(k);
        if self.plan.limbs[k].leg {
            goal.y = self.standing_height(k, goal);
            goal = self.kept_goal(k, goal, self.ik_max_leg_deg);
        }
        self.reach(k, target, goal);
        self.ik_miss[k] = goal - self.end_pos(k);
    }

    /// Where the IK pass wants limb `k`'s end: where the source's normalized reach, scaled to the
    /// target's limb, says (blended toward the source's scaled position), blended from the end's
    /// FK place by the IK pass's alpha.
    fn ik_goal(&self, k: usize) -> Vec3 {
        let limb = &self.plan.limbs[k];
        let ([tu, _, _], [su, _, se]) = (limb.target, limb.source);
        let (ratio, blend) = (limb.length_ratio, limb.blend);
        let a = self.target_global[tu.index()].pos;
        let (ps_u, ps_e) = (
            self.source_global[su.index()].pos,
            self.source_global[se.index()].pos,
        );
        // The source's reach, scaled, plus the target's own stance turned with the hips' yaw.
        let yaw = yaw_of(self.source_delta[self.plan.source_hips.index()]);
        let mut goal = a + (ps_e - ps_u) * ratio + yaw * limb.stance;
        if blend > 0.0 {
            // The source end's movement from its rest place below the pelvis (turned with the
            // hips' yaw), scaled, from the target end's rest place below the target's pelvis:
            // the measure of `check::retarget`, met exactly where the limb reaches.
            let (pt, ps) = (self.target_pelvis_now(), self.source_pelvis_now());
            let rest_t = limb.end_rest - self.target_pelvis_rest;
            let rest_s = limb.source_end_rest - self.source_pelvis_rest;
            let at = pt + yaw * rest_t + self.scale_position((ps_e - ps) - yaw * rest_s);
            goal = goal.lerp(at, blend);
        }
        if self.core.ik < 1.0 {
            goal = self.end_pos(k).lerp(goal, self.core.ik);
        }
        goal
    }

    /// The height leg `k`'s IK pass puts its foot at for `goal`: a goal out of the leg's reach
    /// but above its horizontal place keeps that place, the foot held higher (see
    /// [`Self::reachable_height`]), rather than pulled along the line to the hip, which slides a
    /// standing foot as the hips bob (robot → human `Sitting`: 0.0086% of the height per
    /// frame); unless that lifts it more than [`LIFT_OVER_MISS`] times the nearest point's miss
    /// (a far stride or lunge, where the nearest point stays closer to the source's foot).
    fn standing_height(&self, k: usize, goal: Vec3) -> f32 {
        let (a, length) = self.limb_reach(k);
        let miss = goal.distance(a) - length;
        if miss <= 0.0 {
            return goal.y;
        }
        let y = self.reachable_height(k, goal, goal.y);
        if y - goal.y <= LIFT_OVER_MISS * miss {
            y
        } else {
            goal.y
        }
    }

    /// The part of limb `k`'s IK goal that the hips' heading `yaw` turns: the target's own
    /// stance (its rest end below the pelvis, less the source's scaled), as [`Self::ik_pass`]
    /// adds it, times the IK pass's alpha; zero for a limb the IK pass does not solve.
    fn turned_stance(&self, k: usize, yaw: Quat) -> Vec3 {
        let limb = &self.plan.limbs[k];
        if !limb.solve {
            return Vec3::ZERO;
        }
        let rest_t = limb.end_rest - self.target_pelvis_rest;
        let rest_s = limb.source_end_rest - self.source_pelvis_rest;
        let at = yaw * rest_t - self.scale_position(yaw * rest_s);
        (yaw * limb.stance).lerp(at, limb.blend) * self.core.ik
    }

    /// Source bone `s.bone`'s move this frame from its rest place below `s.anchor` (which it
    /// does not hang below), in the skeleton's rest frame (unturned by the anchor's change),
    /// scaled by the plan's ratio.
    fn source_moved(&self, s: &plan::SourceFollow) -> Vec3 {
        let (b, a) = (
            self.source_global[s.bone.index()].pos,
            self.source_global[s.anchor.index()].pos,
        );
        let moved = self.source_delta[s.anchor.index()].inverse() * (b - a) - s.rest;
        moved * self.plan.hips_ratio
    }

    /// Each IK limb's end's place this frame in its middle bone's rest frame, away from the rest
    /// one as far as the source's own end is (zero unless both sides' ends hang elsewhere).
    fn end_shifts(&mut self) {
        for k in 0..self.plan.limbs.len() {
            let limb = &self.plan.limbs[k];
            self.end_shift[k] = match limb.end_follow {
                Some(s) => {
                    self.plan.target_rest[limb.target[1].index()].0.inverse()
                        * self.source_moved(&s)
                }
                None => Vec3::ZERO,
            };
        }
    }

    /// Where limb `k`'s end is now (an end that hangs elsewhere: where it would hang below the
    /// middle bone, moved as the source's own end when that hangs elsewhere too).
    fn end_pos(&self, k: usize) -> Vec3 {
        let limb = &self.plan.limbs[k];
        let mid = self.target_global[limb.target[1].index()];
        match limb.end_offset {
            Some(o) => mid.pos + mid.rot * (o + self.end_shift[k]),
            None => self.target_global[limb.target[2].index()].pos,
        }
    }

    /// Where limb `k` starts (its upper bone's head) and how far its end can be from there (the
    /// two bones' lengths now).
    fn limb_reach(&self, k: usize) -> (Vec3, f32) {
        let [tu, tm, _] = self.plan.limbs[k].target;
        let (a, b) = (
            self.target_global[tu.index()].pos,
            self.target_global[tm.index()].pos,
        );
        (a, b.distance(a) + self.end_pos(k).distance(b))
    }

    /// Bends limb `k`'s two bones so that its end reaches `goal` (or the nearest point it can);
    /// the end keeps its global rotation. Refreshes the globals along the limb.
    fn reach(&mut self, k: usize, target: &mut Pose, goal: Vec3) {
        let [tu, tm, te] = self.plan.limbs[k].target;
        let mid = self.target_global[tm.index()];
        let c = self.end_pos(k);
        let (a, b) = (self.target_global[tu.index()].pos, mid.pos);
        let end_rot = self.target_global[te.index()].rot;
        let (first, second) = ik::two_bone(a, b, c, goal);
        let set = |me: &mut Self, target: &mut Pose, bone: usize, rot: Quat| {
            let parent = me.parent_of(bone);
            target.locals[bone].rotation = (parent.rot.inverse() * rot).normalize();
        };
        let upper_rot = first * self.target_global[tu.index()].rot;
        set(self, target, tu.index(), upper_rot);
        self.refresh_path(target, k, tu.index(), tm.index());
        let mid_rot = second * self.target_global[tm.index()].rot;
        set(self, target, tm.index(), mid_rot);
        self.refresh_path(target, k, tm.index(), te.index());
        set(self, target, te.index(), end_rot);
        self.refresh_path(target, k, te.index(), te.index());
    }

    /// Recomputes the globals of limb `k`'s path bones from `from` to `to` (inclusive).
    fn refresh_path(&mut self, target: &Pose, k: usize, from: usize, to: usize) {
        let n = self.plan.limbs[k].path.len();
        let mut j = (self.plan.limbs[k].path.iter())
            .position(|b| b.index() == from)
            .unwrap_or(0);
        while j < n {
            let i = self.plan.limbs[k].path[j].index();
            let parent = self.parent_of(i);
            self.target_global[i] = parent.child(&target.locals[i]);
            if i == to {
                break;
            }
            j += 1;
        }
    }

    fn parent_of(&self, i: usize) -> Global {
        let p = self.target_parents[i];
        if p == NONE {
            Global::ROOT
        } else {
            self.target_global[p as usize]
        }
    }

    /// Source globals (skeleton space: rotations of every bone, positions where needed) and
    /// each bone's change from its rest.
    fn source_pass(&mut self, source: &[Transform]) {
        let (needs_position, rest_inv, delta) = (
            &self.source_needs_position,
            &self.source_rest_inv,
            &mut self.source_delta,
        );
        let (bones, kept) = (&self.source.bones, self.source_kept);
        // A kept turn above the source is folded into its root bones as they come in.
        let locals = source.iter().enumerate().map(|(i, l)| match kept {
            Some(q) if bones[i].parent.is_none() => (i, turned(*l, q)),
            _ => (i, *l),
        });
        self.source.accumulate_into(
            self.plan.source_space,
            locals,
            &mut self.source_global,
            |parent, (i, l)| {
                let g = if needs_position[i] {
                    parent.child(&l)
                } else {
                    Global {
                        rot: parent.rot * l.rotation,
                        ..parent
                    }
                };
                delta[i] = g.rot * rest_inv[i];
                g
            },
        );
    }

    /// Rotations: each driven bone's global rest turned by its (blended) source change; the
    /// other bones keep their local rest. Positions follow in [`Self::positions`].
    fn fk_pass(&mut self, target: &mut Pose) {
        for i in 0..self.target_parents.len() {
            let p = self.target_parents[i];
            let pr = if p == NONE {
                Quat::IDENTITY
            } else {
                self.target_global[p as usize].rot
            };
            let rest = &self.target_rest[i];
            let rot = match self.plan.drivers[i] {
                Driver::Rest => {
                    target.locals[i] = *rest;
                    self.target_global[i].rot = pr * rest.rotation;
                    continue;
                }
                Driver::Delta { a, b, w } => {
                    let da = self.source_delta[a as usize];
                    let delta = if a == b || w <= 0.0 {
                        da
                    } else {
                        let db = self.source_delta[b as usize];
                        let db = if da.dot(db) < 0.0 { -db } else { db };
                        da.slerp(db, w)
                    };
                    let delta = self.aimed(i, delta);
                    let delta = if self.core.fk < 1.0 && !self.fk_whole(i) {
                        Quat::IDENTITY.slerp(delta, self.core.fk)
                    } else {
                        delta
                    };
                    self.linked(i, delta * self.plan.target_rest[i].0)
                }
            };
            target.locals[i] = Transform {
                rotation: (pr.conjugate() * rot).normalize(),
                ..*rest
            };
            self.target_global[i].rot = rot;
        }
    }

    /// `rot`, the global rotation target bone `i` takes, for a bone inside a segment
    /// ([`plan::Link`]): its rest rotation against the segment's mapped bone, as that bone is
    /// turned now, then turned about the link's axis as `rot` is from there (the twist part of
    /// the difference; its swing would bend the segment). `rot` itself for other bones, and for
    /// a link whose next joint sits on its own.
    fn linked(&self, i: usize, rot: Quat) -> Quat {
        let Some(link) = self.plan.links.iter().find(|l| l.bone.index() == i) else {
            return rot;
        };
        let Some(axis) = link.axis else {
            return rot;
        };
        let base = link.base.index();
        let rest = self.plan.target_rest[base].0.conjugate() * self.plan.target_rest[i].0;
        let rigid = self.target_global[base].rot * rest;
        let r = rigid.conjugate() * rot;
        let along = axis * Vec3::new(r.x, r.y, r.z).dot(axis);
        let twist = Quat::from_xyzw(along.x, along.y, along.z, r.w);
        let n = twist.length();
        if n < 1e-6 {
            return rigid;
        }
        (rigid * (twist / n)).normalize()
    }

    /// `delta`, the change target bone `i` takes, turned by the shortest arc that takes its
    /// source segment's rest direction, so turned, onto the segment's direction this frame
    /// ([`plan::Aim`]); `delta` itself for a bone without an aim.
    fn aimed(&self, i: usize, delta: Quat) -> Quat {
        let Some(aim) = self.plan.aims.iter().find(|a| a.bone.index() == i) else {
            return delta;
        };
        let (from, to) = (
            self.source_global[aim.from.index()].pos,
            self.source_global[aim.to.index()].pos,
        );
        match (to - from).try_normalize() {
            Some(now) => (Quat::from_rotation_arc(delta * aim.rest, now) * delta).normalize(),
            None => delta,
        }
    }

    /// The source pelvis (the thighs' joints' midpoint, or the hips joint) this frame.
    fn source_pelvis_now(&self) -> Vec3 {
        let [a, b] = self.source_pelvis;
        (self.source_global[a as usize].pos + self.source_global[b as usize].pos) * 0.5
    }

    /// The target pelvis from the globals the IK pass has (after [`Self::positions`]).
    fn target_pelvis_now(&self) -> Vec3 {
        let [a, b] = self.target_pelvis;
        (self.target_global[a as usize].pos + self.target_global[b as usize].pos) * 0.5
    }

    /// The target pelvis from the locals written so far (no scratch).
    fn target_pelvis_of(&self, target: &Pose) -> Vec3 {
        let [a, b] = self.target_pelvis;
        (self.global_of(target, a).pos + self.global_of(target, b).pos) * 0.5
    }

    /// Bones whose change the FK pass's alpha leaves whole (the hips and the root, which keep
    /// their change with the pass off).
    fn fk_whole(&self, i: usize) -> bool {
        i == self.plan.target_hips.index() || Some(i) == self.plan.target_root.map(|r| r.index())
    }

    /// [`Self::root_move`], its changes to the bones it moves blended by the root pass's alpha
    /// from where the FK pass left them.
    fn root_pass(&mut self, target: &mut Pose) {
        let alpha = self.core.root;
        if alpha >= 1.0 {
            self.root_move(target);
            return;
        }
        let moved = [
            Some(self.plan.target_hips),
            self.plan.target_carrier,
            self.plan.target_root.filter(|_| self.root_motion),
        ];
        let before = moved.map(|b| b.map(|b| (b.index(), target.locals[b.index()])));
        self.root_move(target);
        // The travelling walk this pass makes travels `alpha` of the way: so much is removed.
        self.removed_travel *= alpha;
        for (i, was) in before.into_iter().flatten() {
            let now = &mut target.locals[i];
            now.translation = was.translation.lerp(now.translation, alpha);
            now.rotation = was.rotation.slerp(now.rotation, alpha).normalize();
        }
    }

    /// The hips' position: the target's pelvis moves from its rest as the source's does,
    /// scaled; optionally in place or as root motion.
    fn root_move(&mut self, target: &mut Pose) {
        let (sh, th) = (self.plan.source_hips.index(), self.plan.target_hips.index());
        let rest_hips = self.plan.target_rest[th].1;
        let rest_pelvis = self.target_pelvis_rest;
        let mut want_pelvis =
            rest_pelvis + self.scale_position(self.source_pelvis_now() - self.source_pelvis_rest);
        if self.in_place {
            self.removed_travel = Vec3::new(
                want_pelvis.x - rest_pelvis.x,
                0.0,
                want_pelvis.z - rest_pelvis.z,
            );
            want_pelvis.x = rest_pelvis.x;
            want_pelvis.z = rest_pelvis.z;
        }
        // A first place for the hips; the pelvis (which turns with them) is put right below.
        let want = rest_hips + (want_pelvis - rest_pelvis);
        if let (true, Some(root)) = (self.root_motion, self.plan.target_root) {
            // The root takes the horizontal travel and the yaw of the hips' change.
            let r = root.index();
            let travel = Vec3::new(want.x - rest_hips.x, 0.0, want.z - rest_hips.z);
            let yaw = yaw_of(self.source_delta[sh]);
            let (rest_rot, rest_pos) = self.plan.target_rest[r];
            let parent = self.global_of(target, self.target_parents[r]);
            target.locals[r].rotation = (parent.rot.inverse() * yaw * rest_rot).normalize();
            target.locals[r].translation = parent.local_translation(rest_pos + travel);
        }
        if let Some(c) = self.plan.target_carrier {
            // The legs hang beside the hips from their parent (`Body`): move that instead, so
            // that the hips land at `want` and the legs come along.
            let c = c.index();
            let above = self.global_of(target, self.target_parents[c]);
            let carrier = above.child(&target.locals[c]);
            let offset = carrier.rot * (self.plan.carrier_offset * carrier.scale);
            target.locals[c].translation = above.local_translation(want - offset);
            target.locals[th].translation = self.plan.carrier_offset;
            let parent = self.global_of(target, self.target_parents[th]);
            target.locals[th].rotation =
                (parent.rot.inverse() * self.target_global[th].rot).normalize();
            self.place_pelvis(target, c, want_pelvis);
            return;
        }
        let parent = self.global_of(target, self.target_parents[th]);
        target.locals[th].translation = parent.local_translation(want);
        // The hips keep the global rotation the FK pass gave them, whatever moved above.
        target.locals[th].rotation =
            (parent.rot.inverse() * self.target_global[th].rot).normalize();
        self.place_pelvis(target, th, want_pelvis);
    }

    /// Moves `moved` (the hips, or the bone that carries them and the legs) so that the pelvis,
    /// which hangs below it, lands at `want`. Thighs that hang beside the hips (the early
    /// follows: RobotExpressive's legs below `Body`) are first placed as the hips' turn puts
    /// them, so that the pelvis is taken where they will be: taken from their rest place below
    /// the carrier instead, it strayed from the source's scaled move by the hips' turn of its
    /// offset from the hips joint (CMU → RobotExpressive: up to 0.084 leg lengths as the hips
    /// turned, issue 42). The shift moves them along: they hang below `moved`, or follow the
    /// hips again after the root pass.
    fn place_pelvis(&mut self, target: &mut Pose, moved: usize, want: Vec3) {
        self.follow_pass(target, true);
        let shift = want - self.target_pelvis_of(target);
        let parent = self.global_of(target, self.target_parents[moved]);
        let now = parent.child(&target.locals[moved]).pos;
        target.locals[moved].translation = parent.local_translation(now + shift);
    }

    /// Target globals from the locals, for the bones the IK pass needs.
    fn positions(&mut self, target: &Pose) {
        for k in 0..self.target_positioned.len() {
            let i = self.target_positioned[k] as usize;
            let parent = self.parent_of(i);
            self.target_global[i] = parent.child(&target.locals[i]);
        }
    }
}
