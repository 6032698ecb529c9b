//! Chain retargeting between two skeletons normalized to the same profile and T-pose (formulas
//! in `../shared/design/math.md`): each source bone's global change from its rest,
//! `Δ(t) = Gs(t) · Gs_rest⁻¹`, is given to the target, `Gt(t) = Δ(t) · Gt_rest`, chain by
//! chain, with target bones placed by their normalized arc length along their chain; the hips
//! pelvis (the thighs' midpoint) moves from its rest as the source's does, scaled by the legs'
//! length ratio; an optional two-bone IK pass puts feet (or
//! hands) where the source's reach says. Bone lengths always stay the target's.
//!
//! [`Retargeter`] is the runtime form: built once per pair of skeletons, then one call per frame
//! that neither allocates nor touches files. [`retarget_clip`] is the offline form over a whole
//! clip. Pure over the model; imports `model`, `profile`, `mapping` and `rest`'s arc helper.

mod ik;
pub(crate) mod kept_base;
pub mod ops;
mod plan;
mod runtime;
mod stand;
#[cfg(test)]
mod tests;
mod treadmill;

pub use ops::{
    Contacts, FilterOp, FloorOp, MirrorOp, Op, PassOp, PinOp, PinSpace, PlantOp, PoleOp, StrideOp,
    Treadmill,
};
pub use plan::{ChainPlan, Plan, ScaleBasis};
pub use runtime::Retargeter;
pub use stand::stood_on_feet;
pub use treadmill::{detect_treadmill, ground_velocity};

use crate::mapping::BoneMap;
use crate::model::{BoneTracks, Clip, FrameRuns, Interpolation, Pose, Skeleton, SkeletonId, Track};
use crate::profile::Profile;
use documented::DocumentedFields;
use glam::Quat;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One side of a retarget: a skeleton, its map to the profile, and the profile.
#[derive(Debug, Clone, Copy)]
pub struct Rig<'a> {
    /// The skeleton (normalized: T-pose facing +Z).
    pub skeleton: &'a Skeleton,
    /// Its bone map.
    pub map: &'a BoneMap,
    /// The profile the map is to (it brings the chains).
    pub profile: &'a Profile,
}

/// How the bones of a target chain take their rotation from the source chain.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ChainMode {
    /// Each target bone takes the source's change at the same normalized arc length along the
    /// chain (blending the two source bones around it): any bone count on either side. Chains
    /// with equal bone counts pair bone by bone.
    #[default]
    Interpolated,
    /// Bone by bone from the start of the chain; extra target bones keep their rest.
    OneToOne,
    /// Bone by bone from the end of the chain; extra target bones keep their rest.
    OneToOneReversed,
    /// The chain is not retargeted: its bones keep their rest.
    None,
}

/// Settings of one target chain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ChainSettings {
    /// The source chain that drives it; `None`: the chain of the same name (or, for profiles
    /// whose chains are named differently, the closest name).
    pub source: Option<String>,
    /// How its bones take their rotation.
    pub mode: ChainMode,
    /// Run the two-bone IK pass on this chain; `None`: on for legs (chains whose name has
    /// `Leg`), off for the others.
    pub ik: Option<bool>,
    /// The profile bone IK places (its parent and grandparent bend); `None`: the chain's `Foot`
    /// for a `…Leg` chain, `Hand` for an `…Arm` chain (`LeftLeg` → `LeftFoot`), else its last
    /// bone.
    pub ik_end: Option<String>,
    /// 1 (the default) places the end where the source's moves below its pelvis, scaled by the
    /// plan's ratio, from the target's own rest place (its stance) turned with the hips'
    /// heading: planted feet stay planted and the measured foot error is 0 wherever the limb
    /// reaches. 0 places it by the source's reach from the thigh, scaled to the target's limb
    /// length, plus the target's stance; in between blends.
    pub ik_blend: f32,
}

impl Default for ChainSettings {
    fn default() -> Self {
        ChainSettings {
            source: None,
            mode: ChainMode::Interpolated,
            ik: None,
            ik_end: None,
            ik_blend: 1.0,
        }
    }
}

/// Per-bone rotation offsets applied to one side's rest before the changes are taken, for rigs
/// whose rest cannot be made a clean T-pose: profile bone name → rotation in the bone's local
/// frame, as X, Y, Z Euler angles in degrees (applied X first).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RetargetPose {
    /// Offsets of source bones.
    pub source: BTreeMap<String, [f32; 3]>,
    /// Offsets of target bones.
    pub target: BTreeMap<String, [f32; 3]>,
}

/// Options of retargeting. Every field has a default; a settings file may give any of them.
#[derive(
    Debug, Clone, PartialEq, Serialize, Deserialize, DocumentedFields, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct RetargetOptions {
    /// Run the root pass: the pelvis moves from its rest as the source's does, scaled by the
    /// legs' length ratio (hips heights without legs). Off, the hips stay
    /// at their rest position. Default: true.
    pub root: bool,
    /// Run the FK pass: chain rotations. Off, every bone but the hips and the root keeps its
    /// rest rotation. Default: true.
    pub fk: bool,
    /// Run the IK pass on the chains whose settings ask for it. Default: true.
    pub ik: bool,
    /// The legs' direction budget of the IK pass, degrees: a leg's foot goes toward its IK goal
    /// only as far as its thigh and shin stay within this many degrees of the source's thigh
    /// and shin (or, where the passes before left them further, no further than that). Legs
    /// whose thigh:shin proportions differ from the source's cannot put the foot where the
    /// source's goes, scaled, with the source's directions: the budget trades the foot's place
    /// for the legs' directions. 0 to 180; 180: the foot goes to its goal whatever it costs the
    /// legs. While planting runs, its own `PlantOp::ik_max_leg_deg` (default 0) takes this
    /// one's place. Default: 2.
    pub ik_max_leg_deg: f32,
    /// Factor on the horizontal hips motion, on top of the legs' ratio. Default: 1.
    pub horizontal_scale: f32,
    /// Factor on the vertical hips motion, on top of the legs' ratio. Default: 1.
    pub vertical_scale: f32,
    /// No horizontal travel: the hips keep their rest position across the floor. Default: false.
    pub in_place: bool,
    /// Move the hips' horizontal travel and yaw to the Root bone (the target needs one above the
    /// hips). Default: false.
    pub root_motion: bool,
    /// Per target chain (by the target profile's chain name), what differs from the default:
    /// `source` (another source chain), `mode` (`interpolated`, `one_to_one`,
    /// `one_to_one_reversed`, `none`), `ik` (default: on for legs, placing the feet; off for
    /// arms and the rest), `ik_end`, `ik_blend`. Example: `{"LeftArm": (ik: Some(true))}`.
    /// Default: {}.
    pub chains: BTreeMap<String, ChainSettings>,
    /// Rotation offsets of either side's rest, applied before the changes are taken, for rigs
    /// whose rest cannot be made a clean T-pose: profile bone → local X, Y, Z Euler degrees,
    /// such as `source: {"LeftUpperArm": (0.0, 0.0, 45.0)}`. Default: none.
    pub pose: RetargetPose,
    /// Sampling rate of offline retargeting, frames per second; the runtime's time step when
    /// none is given. Default: 30.
    pub fps: f32,
    /// The op stack, in order. The core passes run first, in the order root, fk, ik (listing
    /// `Root`, `Fk` or `Ik` sets its `enabled` and `alpha`; the flags above still turn it off);
    /// then `Plant` (hold feet while the source's are planted), `Floor` (feet and hips never
    /// below the floor), `Filter` (One-Euro), `Pole` (knees and elbows bend toward the
    /// source's), `Stride` (feet's motion scaled forward and sideways), `Pin` (a bone takes
    /// another's transform) in the order given, and last, if listed, `Mirror` (the pose
    /// mirrored left ↔ right across the target's sagittal plane). Each has `enabled` and `alpha`
    /// (0 to 1; 0 is the op off) and its own settings, such as
    /// `[Plant((speed: 0.25)), Floor((height: 0.0))]`. Default: [] (the core passes only).
    pub ops: Vec<Op>,
}

impl Default for RetargetOptions {
    fn default() -> Self {
        RetargetOptions {
            root: true,
            fk: true,
            ik: true,
            ik_max_leg_deg: 2.0,
            horizontal_scale: 1.0,
            vertical_scale: 1.0,
            in_place: false,
            root_motion: false,
            chains: BTreeMap::new(),
            pose: RetargetPose::default(),
            fps: 30.0,
            ops: Vec::new(),
        }
    }
}

/// Why retargeting cannot start.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RetargetError {
    /// A map was made for another skeleton.
    #[error("the bone map does not fit skeleton `{0}`")]
    MapMismatch(String),
    /// A side has no mapped hips.
    #[error("skeleton `{0}` has no mapped hips bone")]
    NoHips(String),
    /// The source has no legs to scale the motion by, and its hips are (almost) on the floor
    /// at rest.
    #[error(
        "the source hips height is {height} (skeleton `{skeleton}`) and it has no legs mapped: \
         nothing to scale the root motion by; is the source normalized, and are its hips above \
         its feet?"
    )]
    HipsHeight {
        /// The source skeleton.
        skeleton: String,
        /// Its hips height.
        height: f32,
    },
    /// Root motion needs a target Root bone above the hips.
    #[error("root motion needs a Root bone above the hips in skeleton `{0}`")]
    NoRootBone(String),
    /// Settings name a chain the profile does not have.
    #[error("chain `{chain}`: the `{profile}` profile has no such chain")]
    UnknownChain {
        /// The name given.
        chain: String,
        /// The profile.
        profile: String,
    },
    /// Settings name a bone the profile does not have.
    #[error("bone `{bone}`: the `{profile}` profile has no such bone")]
    UnknownBone {
        /// The name given.
        bone: String,
        /// The profile.
        profile: String,
    },
    /// A number in the options is out of range.
    #[error("{0}")]
    BadOption(String),
    /// Planting takes its contacts from a curve the clip does not have
    /// ([`PlantOp::contacts`]).
    #[error(
        "clip `{clip}` has no curve `{curve}` (planting's contacts); its curves: {have} (retarget only the clips that have it, or plant on detected contacts)"
    )]
    MissingCurve {
        /// The curve's name.
        curve: String,
        /// The clip's name.
        clip: String,
        /// The clip's curves, listed (`none` when it has none).
        have: String,
    },
    /// A pose handed to [`Retargeter::retarget`] has the wrong number of bones.
    #[error("the {side} pose has {got} bones, the skeleton {want}")]
    PoseSize {
        /// `source` or `target`.
        side: &'static str,
        /// Bones in the pose.
        got: usize,
        /// Bones in the skeleton.
        want: usize,
    },
}

/// A clip retargeted onto the target skeleton, with the plan that made it.
#[derive(Debug, Clone)]
pub struct Retargeted {
    /// The new clip: LINEAR tracks sampled at `options.fps`, rotations of every driven bone,
    /// translations of the hips (and of the Root with root motion); no glTF source.
    pub clip: Clip,
    /// How chains were paired, and what could not be.
    pub plan: Plan,
}

/// Retargets `clip` (of `source`) onto `target` (skeleton `target_index` in its model),
/// sampling at `options.fps`. A clip with a motion scale (`extras.skelnorm.motion_scale`) has
/// its root and hips translations scaled back by the source's hips height first. The clip
/// must be valid for the source ([`Clip::validate`], as every reader leaves it): the source is
/// sampled a run of frames at a time ([`crate::model::FrameRuns`]), which reads keys out of
/// order differently from sampling each frame on its own. A side whose kept nodes above tilt
/// its up axis is read with that turn folded into its root bones, as [`Retargeter`] reads it:
/// the new clip's keys are in the target skeleton's own space, to play under its kept nodes.
pub fn retarget_clip(
    source: &Rig,
    clip: &Clip,
    target: &Rig,
    target_index: SkeletonId,
    options: &RetargetOptions,
) -> Result<Retargeted, RetargetError> {
    check_fps(options)?;
    let mut r = Retargeter::new(source, target, options)?;
    let clip = retarget_clip_with(&mut r, source, clip, target, target_index, options)?;
    Ok(Retargeted {
        clip,
        plan: r.plan().clone(),
    })
}

/// Offline retargeting needs a sampling rate above 0.
fn check_fps(options: &RetargetOptions) -> Result<(), RetargetError> {
    if !(options.fps > 0.0 && options.fps.is_finite()) {
        return Err(RetargetError::BadOption(format!(
            "fps {}: must be above 0",
            options.fps
        )));
    }
    Ok(())
}

/// [`retarget_clip`] with a retargeter already made for this pair of rigs and these options, so
/// that many clips share one plan. `r` must come from `Retargeter::new(source, target, options)`.
pub fn retarget_clip_with(
    r: &mut Retargeter,
    source: &Rig,
    clip: &Clip,
    target: &Rig,
    target_index: SkeletonId,
    options: &RetargetOptions,
) -> Result<Clip, RetargetError> {
    check_fps(options)?;
    // Looked up first: an error leaves `r` as it was.
    let contacts = contact_curves(clip, options)?;
    let scaled;
    let clip = if clip.motion_scale.is_some() {
        scaled = unscaled(clip, r.plan());
        &scaled
    } else {
        clip
    };
    let duration = clip.duration();
    let frames = (duration * options.fps).ceil().max(0.0) as usize + 1;
    let times: Vec<f32> = (0..frames)
        .map(|f| (f as f32 / options.fps).min(duration))
        .collect();
    // The ops that keep state (planting, the filter) start afresh with each clip, planting on
    // the clip's own ground and contacts; the caller's ground and contacts come back after.
    let (their_treadmill, their_contacts) = (r.treadmill(), r.contacts());
    r.reset();
    r.set_treadmill(r.plan().clip_treadmill(source, clip, options));
    r.set_contacts(None);
    let tracks = retarget_tracks(r, source, clip, target, times, contacts, options.fps);
    r.set_treadmill(their_treadmill);
    r.set_contacts(their_contacts);
    let tracks = tracks?;
    Ok(Clip {
        curves: clip.curves.clone(),
        ..Clip::new(clip.name.clone(), target_index, tracks)
    })
}

/// Retargets `clip` at each of `times` with `r` (set up for the clip), planting on `contacts`
/// (two curves and the threshold at which a foot is planted) when given: the target's tracks,
/// LINEAR keys at `times` for the bones `r.recorded()` lists.
fn retarget_tracks(
    r: &mut Retargeter,
    source: &Rig,
    clip: &Clip,
    target: &Rig,
    times: Vec<f32>,
    contacts: Option<([&crate::model::Curve; 2], f32)>,
    fps: f32,
) -> Result<Vec<BoneTracks>, RetargetError> {
    let (driven, moved) = r.recorded();
    let (driven, moved) = (driven.to_vec(), moved.to_vec());
    let frames = times.len();
    // Frame after frame, the driven bones' rotations and the moved bones' translations, one
    // array each; each bone's track is made from them once the clip is done.
    let mut rotations: Vec<Quat> = Vec::with_capacity(frames * driven.len());
    let mut translations: Vec<glam::Vec3> = Vec::with_capacity(frames * moved.len());
    let mut tp = Pose::rest(target.skeleton);
    let mut cursors = [0usize; 2];
    let mut last = None;
    // The source sampled a run of frames at a time, track by track.
    let mut runs = FrameRuns::new(source.skeleton, clip, &times);
    while let Some(run) = runs.next_run() {
        for (i, locals) in run.frames() {
            let time = times[i];
            let dt = match last {
                Some(t) if time > t => time - t,
                _ => 1.0 / fps,
            };
            last = Some(time);
            if let Some((curves, threshold)) = contacts {
                let [l, r_] = [0, 1].map(|i| curves[i].track.sample_from(time, &mut cursors[i]));
                r.set_contacts(Some([l >= threshold, r_ >= threshold]));
            }
            r.retarget_locals(locals, &mut tp, dt)?;
            rotations.extend(driven.iter().map(|b| tp.locals[b.index()].rotation));
            translations.extend(moved.iter().map(|b| tp.locals[b.index()].translation));
        }
    }
    let mut tracks = vec![BoneTracks::default(); target.skeleton.bones.len()];
    let times: std::sync::Arc<[f32]> = times.into();
    let (nd, nm) = (driven.len(), moved.len());
    for (k, b) in driven.iter().enumerate() {
        // One hemisphere along the track, so LINEAR keys slerp the short way.
        let mut prev: Option<Quat> = None;
        let values = (0..frames)
            .map(|f| {
                let q = rotations[f * nd + k];
                let q = match prev {
                    Some(p) if p.dot(q) < 0.0 => -q,
                    _ => q,
                };
                prev = Some(q);
                q
            })
            .collect();
        tracks[b.index()].rotation = Some(Track {
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values,
        });
    }
    for (k, b) in moved.iter().enumerate() {
        tracks[b.index()].translation = Some(Track {
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: (0..frames).map(|f| translations[f * nm + k]).collect(),
        });
    }
    Ok(tracks)
}

/// The left and right curves of `clip` planting takes its contacts from, with the threshold,
/// when the first `Plant` op that is on reads them from curves ([`PlantOp::contacts`]); an
/// error naming the curve and the clip when the clip lacks one.
fn contact_curves<'c>(
    clip: &'c Clip,
    options: &RetargetOptions,
) -> Result<Option<([&'c crate::model::Curve; 2], f32)>, RetargetError> {
    let Some(Contacts::Curves {
        left,
        right,
        threshold,
    }) = options.planting().map(|p| &p.contacts)
    else {
        return Ok(None);
    };
    let find = |name: &String| {
        clip.curve(name).ok_or_else(|| RetargetError::MissingCurve {
            curve: name.clone(),
            clip: clip.name.clone(),
            have: if clip.curves.is_empty() {
                "none".into()
            } else {
                let names: Vec<String> = clip
                    .curves
                    .iter()
                    .map(|c| format!("`{}`", c.name))
                    .collect();
                names.join(", ")
            },
        })
    };
    Ok(Some(([find(left)?, find(right)?], *threshold)))
}

/// `clip` with a recorded motion scale undone: root and hips translations times the source's
/// own hips height (what playing it on the source would do).
fn unscaled(clip: &Clip, plan: &Plan) -> Clip {
    let mut out = clip.clone();
    out.motion_scale = None;
    for b in [plan.source_root, Some(plan.source_hips)]
        .into_iter()
        .flatten()
    {
        if let Some(t) = &mut out.tracks[b.index()].translation {
            for v in std::sync::Arc::make_mut(&mut t.values) {
                *v *= plan.source_hips_height;
            }
        }
    }
    out
}
