//! The retarget op stack (`retarget.ops`): an ordered list of ops, each with `enabled`, `alpha`
//! and its own settings. The core passes (root, FK, IK) run first, in that order, whether listed
//! or not (listing one sets its `enabled` and `alpha`); the other ops (planting, floor, filter,
//! poles, stride, pins)
//! then run in the order given, each on the pose the ones before left; `Mirror`, when listed,
//! comes last and mirrors the finished pose. An op whose `alpha` is 0
//! is the op off. Plain option data and its validation; the runtime runs them.

use super::{RetargetError, RetargetOptions};
use crate::mapping::MirrorAxis;
use serde::{Deserialize, Serialize};

/// One op of the retarget stack, with its settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub enum Op {
    /// The root pass: the pelvis moves from its rest as the source's does (see
    /// `RetargetOptions::root`). `alpha` blends the hips' (and the root's) local transforms from
    /// where the pass found them toward where it puts them.
    Root(PassOp),
    /// The FK pass: chain rotations (see `RetargetOptions::fk`). `alpha` scales each driven
    /// bone's change from its rest (a slerp from the identity); the hips keep theirs.
    Fk(PassOp),
    /// The IK pass on the chains whose settings ask for it. `alpha` blends each limb's goal
    /// from where the FK pass put its end toward the IK goal.
    Ik(PassOp),
    /// Speed planting: holds a foot where it was when the source's foot came to rest on the
    /// floor, for the contact's duration, through the leg IK.
    Plant(PlantOp),
    /// Floor constraint: feet and the hips never below the floor; feet near it follow the
    /// source's height above it.
    Floor(FloorOp),
    /// One-Euro filter of every driven bone's local rotation and the hips' position.
    Filter(FilterOp),
    /// Pole-vector matching: each IK limb's knee or elbow turns about the line from its upper
    /// joint to its end toward the side the source's bends to; the end stays put.
    Pole(PoleOp),
    /// Stride warping: scales each foot's motion relative to the pelvis, forward and sideways
    /// (in the hips' heading), through the leg IK.
    Stride(StrideOp),
    /// Pin bones: a target bone (a weapon, a prop, an IK helper) takes another target bone's
    /// transform, in global space or keeping their rest offset.
    Pin(PinOp),
    /// Mirroring: the finished pose mirrored left ↔ right across the target's sagittal plane
    /// (bones paired through the profile, then by the side markers in their names; root motion
    /// mirrored), as `skelnorm mirror` does to a clip. The last op of the stack. `alpha` blends
    /// each bone's local transform from the unmirrored toward the mirrored (rotations by slerp,
    /// translations and scales by lerp).
    Mirror(MirrorOp),
}

/// Mirroring's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MirrorOp {
    /// Run it. Default: true.
    pub enabled: bool,
    /// How much of the mirrored pose to take, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
    /// The plane's normal in the target's skeleton space: `auto` (from the rest positions of
    /// the left/right pairs, snapped to an axis within `snap_deg`), `x`, `y` or `z`.
    /// Default: `auto` (for a normalized target, X).
    pub axis: MirrorAxis,
    /// With `auto`, a normal found within this many degrees of an axis is snapped to it, 0 to
    /// 45. Default: 5.
    pub snap_deg: f32,
}

impl Default for MirrorOp {
    fn default() -> Self {
        MirrorOp {
            enabled: true,
            alpha: 1.0,
            axis: MirrorAxis::Auto,
            snap_deg: 5.0,
        }
    }
}

/// Where a pinned bone goes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PinSpace {
    /// Onto the other bone's global transform: the same joint place and rotation.
    Global,
    /// Where the other bone carries it: their offset at rest is kept.
    #[default]
    RestRelative,
}

/// Pin bones' settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PinOp {
    /// Run it. Default: true.
    pub enabled: bool,
    /// How much of the pin to apply, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
    /// The target bone moved: its name in the target skeleton, or a profile bone it maps.
    pub bone: String,
    /// The target bone it follows, named the same way.
    pub from: String,
    /// `global` or `rest_relative`. Default: `rest_relative`.
    pub space: PinSpace,
}

impl Default for PinOp {
    fn default() -> Self {
        PinOp {
            enabled: true,
            alpha: 1.0,
            bone: String::new(),
            from: String::new(),
            space: PinSpace::RestRelative,
        }
    }
}

/// Stride warping's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StrideOp {
    /// Run it. Default: true.
    pub enabled: bool,
    /// How much of the warp to apply, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
    /// Factor on each foot's forward motion from its stance below the pelvis (the facing
    /// direction, turned with the hips' heading). Default: 1.
    pub forward: f32,
    /// Factor on its sideways motion. Default: 1.
    pub sideways: f32,
}

impl Default for StrideOp {
    fn default() -> Self {
        StrideOp {
            enabled: true,
            alpha: 1.0,
            forward: 1.0,
            sideways: 1.0,
        }
    }
}

/// Pole-vector matching's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PoleOp {
    /// Run it. Default: true.
    pub enabled: bool,
    /// How much of the turn toward the source's bend to apply, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
    /// A static turn added about the upper-to-end line, degrees (right-handed about that line
    /// pointing down the limb). Default: 0.
    pub offset_deg: f32,
}

impl Default for PoleOp {
    fn default() -> Self {
        PoleOp {
            enabled: true,
            alpha: 1.0,
            offset_deg: 0.0,
        }
    }
}

/// A core pass's settings in the stack.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PassOp {
    /// Run it. Default: true.
    pub enabled: bool,
    /// How much of its effect to keep, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
}

impl Default for PassOp {
    fn default() -> Self {
        PassOp {
            enabled: true,
            alpha: 1.0,
        }
    }
}

/// Speed planting's settings. Thresholds are fractions of the source's height; a foot's height
/// is measured from the lowest its joint has been so far (the floor the capture stands on,
/// which motion capture rarely puts where the rest does).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PlantOp {
    /// Run it. Default: true.
    pub enabled: bool,
    /// How much of the hold to apply, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
    /// A source foot comes into contact when its joint is at most this far above the lowest it
    /// has been since the start (or `Retargeter::reset`), fraction of the source's height.
    /// Default: 0.03.
    pub height: f32,
    /// ...and its horizontal speed is at most this, source heights per second. Default: 0.25.
    pub speed: f32,
    /// Hysteresis: a contact ends only when the height or the speed exceeds its threshold
    /// times this factor (at least 1). Default: 1.5.
    pub release: f32,
    /// Seconds over which a hold blends out after its contact's end (and the slide limiter's
    /// in): a contact holds the foot at once, where it shows (a contact that begins on a frame
    /// where the source's foot was low last frame and stands still now, from where it showed
    /// then), so no blend-in lets the passes' foot slide a foot the source's holds still.
    /// Default: 0.1.
    pub blend_s: f32,
    /// The held foot stays within this horizontal distance of where the passes before put it,
    /// fraction of the target's height: a source foot that shuffles slowly while planted
    /// drags the hold along instead of bending the leg ever further from the source's. While a
    /// foot stays held, the drag and the rest of the held place's move (creep, hysteresis)
    /// together take at most the source foot's step that frame, scaled as a creep's: a held
    /// foot never moves more than the source's (math.md's skate), and its offset may then
    /// exceed this until the source's foot moves (a wide stance the hips turn past
    /// `stance_turn_deg`). Default: 0.02.
    pub max_offset: f32,
    /// Slide limiter: while the source's foot is within `height` of its lowest (with
    /// `release`'s hysteresis) but not in contact (it slides faster than `speed`: a foot that
    /// lands or lifts off sliding, a clip that runs in place over a still ground), the target's
    /// foot steps, horizontally over its ground, at most as far as the source's foot does over
    /// its own, scaled by the heights' ratio: in heights it never slides more than the source's
    /// on those frames (the core passes carry a slide over scaled by the legs' ratio instead).
    /// It lags the passes' foot by at most `max_offset` (dragged beyond it) and blends in and
    /// out over `blend_s` as a hold does; held frames stay held. Default: false (off: exactly
    /// the planting without it).
    pub limit_slide: bool,
    /// While a foot is held, the part of the passes' foot that comes from the target's own
    /// stance (its rest foot below the pelvis less the source's, scaled: a wide-legged robot's
    /// extra width) keeps the hips' heading the contact began with, up to this many degrees
    /// from their heading now; `max_offset` counts from there. A target whose stance is the
    /// source's is unaffected; on one with a wide stance, hips that turn over a planted foot no
    /// longer swing the held foot around. Default: 20.
    pub stance_turn_deg: f32,
    /// Pelvis motion: when a foot's goal is beyond its leg's reach (a held foot, or one the IK
    /// pass could not put where it wanted: the back foot of a lunge on a target whose legs are
    /// shorter than the source's stride), the hips move horizontally toward it by the part of
    /// the miss that brings it back within reach, at most this far, fraction of the target's
    /// height; then the legs are solved again (a foot within reach keeps its place). A held
    /// foot is then held where the IK pass wanted it rather than where it reached. 0: off, the
    /// foot goes to the nearest point the leg reaches and follows the hips. Default: 0.
    pub max_pelvis_shift: f32,
    /// Hips share: while every leg's foot is held, the hips (or the bone that carries them and
    /// the legs) move horizontally by this fraction of the mean of the held feet's offsets from
    /// where the passes before put them, times the least of the holds' weights, and the legs
    /// bend only by what is left: where the feet are held apart from the passes' by the same
    /// amount (a source's hips sway over feet that stand still, on a target whose hip joints
    /// sit elsewhere: RobotExpressive's 0.414 leg lengths from its pelvis against a human's
    /// ~0.09), the legs keep the source's directions and the hips move instead. 0: off, the
    /// legs take it all. Default: 1.
    pub hips_share: f32,
    /// The legs' budget: a hold bends its leg only while the thigh and the shin stay within
    /// this many degrees of the source's thigh and shin (or, where the passes before left them
    /// further, no further than that); beyond it the held foot goes as far toward its held
    /// place as the budget allows and the held place comes along (the foot slides with the
    /// passes' by what the budget cannot hold). 180: no budget. Default: 180 (with `creep_deg`
    /// a hold rarely bends a leg far; a budget of a few degrees also stops holds on targets
    /// whose legs the passes cannot keep near the source's, such as IK layouts).
    pub max_leg_deg: f32,
    /// The leg IK pass's budget while planting runs (`alpha` above 0), in place of
    /// `retarget.ik_max_leg_deg`: planting places the feet in contact, so the core passes keep
    /// the thighs and shins this near the source's and the holds bend them from there (CMU's
    /// walk onto ModularMen_Casual with planting and the floor: legs mean 0.78°, worst 4.87°,
    /// skate below the source's, where the IK pass's own 2° left 1.91° and 7.30°). 180: the
    /// leg IK puts the feet where the source's go, scaled. Default: 0.
    pub ik_max_leg_deg: f32,
    /// Creep: while a foot is held and holding it where it is held would bend its leg more
    /// than this many degrees from where the passes before put it (the source's foot creeps
    /// in contact, slower than `speed`: a capture's slow shuffle, a stance the passes turn),
    /// the held place steps toward the passes' foot by at most the source foot's step, scaled
    /// as travel is (by the legs), and at most the passes' foot's own step: the target's foot
    /// then moves no more than either, and its leg comes back toward the source's. The part of
    /// the source's step that its hips take too (a body carried along over feet that do not
    /// step) is scaled by the legs, as the passes carry it; the rest by the smaller of the legs'
    /// and the heights' ratios. 180: never (held still, dragged only beyond `max_offset`).
    /// Default: 1.5.
    pub creep_deg: f32,
    /// The ground of a clip that runs in place (a treadmill): `off`, `detect` (offline, each
    /// clip's ground velocity is found from the whole clip when its hips do not travel and its
    /// feet in contact slide back together; the runtime `Retargeter` takes none unless told
    /// with `Retargeter::set_treadmill`), or `velocity((x, z))`: source units per second in the
    /// source's skeleton space. Contacts are found, and feet held, relative to that ground, so
    /// a held foot slides with it (scaled as the retarget scales travel). Default: `off` (a
    /// held foot slides at the ground's speed, the median of both feet's contact steps, which
    /// can be faster than one foot's own: math.md's skate, over a still ground, then exceeds
    /// the source's, as on RobotExpressive's `Running` onto itself).
    pub treadmill: Treadmill,
    /// Where contacts come from: `detect` (the source's foot height and speed: `height`,
    /// `speed`, `release`) or `curves(left: "FootLock_L", right: "FootLock_R", threshold: 0.5)`:
    /// two float curves of the clip (an FBX file's animated user properties, as Unreal writes
    /// its animation curves), a foot in contact on the frames its curve is at least
    /// `threshold`. Offline, a curve the clip lacks is an error; the runtime `Retargeter`
    /// takes the flags each frame from `Retargeter::set_contacts` (detecting them while none
    /// are set). Default: `detect`.
    pub contacts: Contacts,
}

/// Where planting's contacts come from ([`PlantOp::contacts`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Contacts {
    /// Found on the source: a foot is in contact while its joint is low and slow (`height`,
    /// `speed`, with `release`'s hysteresis).
    #[default]
    Detect,
    /// Read from two float curves of the clip, by name: a foot is in contact on the frames its
    /// curve's value is at least `threshold` (ALS's `FootLock_L`/`FootLock_R`, 1 while the
    /// foot is locked, lock at 0.99).
    Curves {
        /// The left foot's curve.
        left: String,
        /// The right foot's curve.
        right: String,
        /// The value from which a foot is in contact. Default: 0.5.
        #[serde(default = "half")]
        threshold: f32,
    },
}

fn half() -> f32 {
    0.5
}

impl Contacts {
    /// The curves' names, left then right, when contacts come from curves.
    pub fn curves(&self) -> Option<[&str; 2]> {
        match self {
            Contacts::Curves { left, right, .. } => Some([left, right]),
            Contacts::Detect => None,
        }
    }
}

/// Where planting's ground is ([`PlantOp::treadmill`]).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Treadmill {
    /// Found offline from each whole clip (`retarget::detect_treadmill`); none at runtime
    /// unless set with `Retargeter::set_treadmill`.
    Detect,
    /// The ground stands still.
    #[default]
    Off,
    /// The ground moves at this horizontal velocity, `[x, z]` source units per second in the
    /// source's skeleton space (backward, -Z, for a normalized source running in place).
    Velocity([f32; 2]),
}

impl Treadmill {
    /// The velocity this setting gives (a horizontal `Vec3`), `None` for `Detect` and `Off`.
    pub fn given(self) -> Option<glam::Vec3> {
        match self {
            Treadmill::Velocity([x, z]) => Some(glam::Vec3::new(x, 0.0, z)),
            Treadmill::Detect | Treadmill::Off => None,
        }
    }
}

impl Default for PlantOp {
    fn default() -> Self {
        PlantOp {
            enabled: true,
            alpha: 1.0,
            height: 0.03,
            speed: 0.25,
            release: 1.5,
            blend_s: 0.1,
            max_offset: 0.02,
            limit_slide: false,
            stance_turn_deg: 20.0,
            max_pelvis_shift: 0.0,
            hips_share: 1.0,
            max_leg_deg: 180.0,
            ik_max_leg_deg: 0.0,
            creep_deg: 1.5,
            treadmill: Treadmill::Off,
            contacts: Contacts::Detect,
        }
    }
}

/// The floor constraint's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FloorOp {
    /// Run it. Default: true.
    pub enabled: bool,
    /// How much of the correction to apply, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
    /// The floor's height in the target's skeleton space (y up), skeleton units. A foot is on
    /// it when its joint is at its rest height above it. Default: 0.
    pub height: f32,
    /// Below this height above the floor the source's foot is, the target's foot takes the
    /// source's height above the floor exactly; metres for a 1.8 m target, scaled by the
    /// target's height. Default: 0.08.
    pub snap_m: f32,
    /// From `snap_m` up to this height the target's foot blends from the source's height
    /// above the floor to where the retarget put it. Default: 0.2.
    pub blend_m: f32,
    /// The legs' budget: the height every foot near the floor needs is first taken by the hips
    /// (moved up by the smaller rise when all such feet rise, down by the smaller drop when all
    /// drop, so the legs keep their directions; a foot in the air goes with them); what one
    /// foot still needs beyond that is reached by bending its leg only while the thigh and the
    /// shin stay within this many degrees of the source's (or no further than the passes
    /// left them). No foot is left below the floor, whatever the budget. 180: no budget.
    /// Default: 3.
    pub max_leg_deg: f32,
}

impl Default for FloorOp {
    fn default() -> Self {
        FloorOp {
            enabled: true,
            alpha: 1.0,
            height: 0.0,
            snap_m: 0.08,
            blend_m: 0.2,
            max_leg_deg: 3.0,
        }
    }
}

/// The One-Euro filter's settings (Casiez et al. 2012): a low-pass whose cutoff rises with the
/// speed, so that slow jitter is smoothed and fast motion lags little.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FilterOp {
    /// Run it. Default: true (the op itself is absent from the default stack).
    pub enabled: bool,
    /// How much of the filtered value to take, 0 to 1 (0: off). Default: 1.
    pub alpha: f32,
    /// The cutoff at rest, Hz. Default: 1.
    pub min_cutoff: f32,
    /// How much the cutoff rises with speed (per unit of speed per second). Default: 0.5.
    pub beta: f32,
    /// The cutoff of the speed's own filter, Hz. Default: 1.
    pub d_cutoff: f32,
}

impl Default for FilterOp {
    fn default() -> Self {
        FilterOp {
            enabled: true,
            alpha: 1.0,
            min_cutoff: 1.0,
            beta: 0.5,
            d_cutoff: 1.0,
        }
    }
}

impl Op {
    /// The op's name in settings (`root`, `fk`, `ik`, `plant`, `floor`, `filter`).
    pub fn name(&self) -> &'static str {
        match self {
            Op::Root(_) => "root",
            Op::Fk(_) => "fk",
            Op::Ik(_) => "ik",
            Op::Plant(_) => "plant",
            Op::Floor(_) => "floor",
            Op::Filter(_) => "filter",
            Op::Pole(_) => "pole",
            Op::Stride(_) => "stride",
            Op::Pin(_) => "pin",
            Op::Mirror(_) => "mirror",
        }
    }

    /// `enabled` and `alpha`.
    pub fn common(&self) -> (bool, f32) {
        match self {
            Op::Root(o) | Op::Fk(o) | Op::Ik(o) => (o.enabled, o.alpha),
            Op::Plant(o) => (o.enabled, o.alpha),
            Op::Floor(o) => (o.enabled, o.alpha),
            Op::Filter(o) => (o.enabled, o.alpha),
            Op::Pole(o) => (o.enabled, o.alpha),
            Op::Stride(o) => (o.enabled, o.alpha),
            Op::Pin(o) => (o.enabled, o.alpha),
            Op::Mirror(o) => (o.enabled, o.alpha),
        }
    }

    /// Whether it does anything: enabled with an `alpha` above 0.
    pub fn on(&self) -> bool {
        let (enabled, alpha) = self.common();
        enabled && alpha > 0.0
    }

    /// One of the core passes (root, FK, IK), which run first.
    pub fn is_core(&self) -> bool {
        matches!(self, Op::Root(_) | Op::Fk(_) | Op::Ik(_))
    }

    /// Each number of its settings with its key and whether it is in range.
    fn checks(&self) -> Vec<(&'static str, f32, bool, &'static str)> {
        let unit = |v: f32| (0.0..=1.0).contains(&v);
        let positive = |v: f32| v > 0.0 && v.is_finite();
        let (_, alpha) = self.common();
        let mut out = vec![("alpha", alpha, unit(alpha), "must be between 0 and 1")];
        match self {
            Op::Root(_) | Op::Fk(_) | Op::Ik(_) | Op::Pin(_) => {}
            Op::Plant(p) => out.extend([
                ("height", p.height, positive(p.height), "must be above 0"),
                ("speed", p.speed, positive(p.speed), "must be above 0"),
                (
                    "release",
                    p.release,
                    p.release >= 1.0 && p.release.is_finite(),
                    "must be at least 1",
                ),
                (
                    "blend_s",
                    p.blend_s,
                    p.blend_s >= 0.0 && p.blend_s.is_finite(),
                    "must be at least 0",
                ),
                (
                    "max_offset",
                    p.max_offset,
                    p.max_offset >= 0.0 && p.max_offset.is_finite(),
                    "must be at least 0",
                ),
                (
                    "stance_turn_deg",
                    p.stance_turn_deg,
                    (0.0..=180.0).contains(&p.stance_turn_deg),
                    "must be between 0 and 180",
                ),
                (
                    "max_pelvis_shift",
                    p.max_pelvis_shift,
                    p.max_pelvis_shift >= 0.0 && p.max_pelvis_shift.is_finite(),
                    "must be at least 0",
                ),
                (
                    "hips_share",
                    p.hips_share,
                    unit(p.hips_share),
                    "must be between 0 and 1",
                ),
                (
                    "creep_deg",
                    p.creep_deg,
                    (0.0..=180.0).contains(&p.creep_deg),
                    "must be between 0 and 180",
                ),
                (
                    "max_leg_deg",
                    p.max_leg_deg,
                    (0.0..=180.0).contains(&p.max_leg_deg),
                    "must be between 0 and 180",
                ),
                (
                    "ik_max_leg_deg",
                    p.ik_max_leg_deg,
                    (0.0..=180.0).contains(&p.ik_max_leg_deg),
                    "must be between 0 and 180",
                ),
                {
                    let [x, z] = match p.treadmill {
                        Treadmill::Velocity(v) => v,
                        _ => [0.0; 2],
                    };
                    let v = if x.is_finite() { z } else { x };
                    ("treadmill", v, v.is_finite(), "must be finite")
                },
                {
                    let t = match p.contacts {
                        Contacts::Curves { threshold, .. } => threshold,
                        Contacts::Detect => 0.5,
                    };
                    ("contacts.threshold", t, t.is_finite(), "must be finite")
                },
            ]),
            Op::Floor(f) => out.extend([
                ("height", f.height, f.height.is_finite(), "must be finite"),
                (
                    "snap_m",
                    f.snap_m,
                    f.snap_m >= 0.0 && f.snap_m.is_finite(),
                    "must be at least 0",
                ),
                (
                    "blend_m",
                    f.blend_m,
                    f.blend_m >= f.snap_m && f.blend_m.is_finite(),
                    "must be at least snap_m",
                ),
                (
                    "max_leg_deg",
                    f.max_leg_deg,
                    (0.0..=180.0).contains(&f.max_leg_deg),
                    "must be between 0 and 180",
                ),
            ]),
            Op::Mirror(m) => out.push((
                "snap_deg",
                m.snap_deg,
                (0.0..45.0).contains(&m.snap_deg),
                "must be at least 0 and below 45",
            )),
            Op::Pole(p) => out.push((
                "offset_deg",
                p.offset_deg,
                p.offset_deg.is_finite(),
                "must be finite",
            )),
            Op::Stride(w) => out.extend([
                (
                    "forward",
                    w.forward,
                    w.forward.is_finite(),
                    "must be finite",
                ),
                (
                    "sideways",
                    w.sideways,
                    w.sideways.is_finite(),
                    "must be finite",
                ),
            ]),
            Op::Filter(f) => out.extend([
                (
                    "min_cutoff",
                    f.min_cutoff,
                    positive(f.min_cutoff),
                    "must be above 0",
                ),
                (
                    "beta",
                    f.beta,
                    f.beta >= 0.0 && f.beta.is_finite(),
                    "must be at least 0",
                ),
                (
                    "d_cutoff",
                    f.d_cutoff,
                    positive(f.d_cutoff),
                    "must be above 0",
                ),
            ]),
        }
        out
    }
}

/// Every op with its default settings, in the order they are documented (what
/// `skelnorm config --dump-defaults` lists under `retarget.ops`).
pub fn every_op() -> Vec<Op> {
    vec![
        Op::Root(PassOp::default()),
        Op::Fk(PassOp::default()),
        Op::Ik(PassOp::default()),
        Op::Plant(PlantOp::default()),
        Op::Floor(FloorOp::default()),
        Op::Filter(FilterOp::default()),
        Op::Pole(PoleOp::default()),
        Op::Stride(StrideOp::default()),
        Op::Pin(PinOp {
            bone: "Weapon".into(),
            from: "RightHand".into(),
            ..PinOp::default()
        }),
        Op::Mirror(MirrorOp::default()),
    ]
}

/// The first problem of `ops`, as `(key, value, why)` with the key relative to `retarget.ops`
/// (`[2].alpha`): numbers out of range, a core pass listed twice, out of order or after another
/// op, `Mirror` anywhere but last.
pub fn check_ops(ops: &[Op]) -> Option<(String, String, &'static str)> {
    let mut last_core = None;
    let mut other_seen = false;
    for (i, op) in ops.iter().enumerate() {
        for (key, v, ok, why) in op.checks() {
            if !ok {
                return Some((format!("[{i}].{key}"), v.to_string(), why));
            }
        }
        if matches!(op, Op::Mirror(_)) && i + 1 != ops.len() {
            return Some((
                format!("[{i}]"),
                "`mirror`".to_string(),
                "mirror comes last: the ops after it would work on the unmirrored source",
            ));
        }
        if op.is_core() {
            let rank = core_rank(op);
            if other_seen || last_core.is_some_and(|r| r >= rank) {
                return Some((
                    format!("[{i}]"),
                    format!("`{}`", op.name()),
                    "the core passes come first, once each, in the order root, fk, ik",
                ));
            }
            last_core = Some(rank);
        } else {
            other_seen = true;
        }
    }
    None
}

fn core_rank(op: &Op) -> u8 {
    match op {
        Op::Root(_) => 0,
        Op::Fk(_) => 1,
        _ => 2,
    }
}

/// The effect of the core passes after `RetargetOptions::root`/`fk`/`ik` and the stack:
/// the alpha of each (0: off).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Core {
    pub root: f32,
    pub fk: f32,
    pub ik: f32,
}

impl RetargetOptions {
    /// The planting op whose ground and contacts a clip's retarget takes (the first `Plant` that
    /// is on), or `None` without one.
    pub fn planting(&self) -> Option<&PlantOp> {
        self.ops.iter().find_map(|o| match o {
            Op::Plant(p) if o.on() => Some(p),
            _ => None,
        })
    }

    /// Checks the stack (see [`check_ops`]).
    pub(crate) fn check_ops(&self) -> Result<(), RetargetError> {
        match check_ops(&self.ops) {
            Some((key, value, why)) => Err(RetargetError::BadOption(format!(
                "ops{key} = {value}: {why}"
            ))),
            None => Ok(()),
        }
    }

    /// Each core pass's alpha: 0 when its flag is off or its op disabled.
    pub(crate) fn core(&self) -> Core {
        let alpha = |flag: bool, pick: fn(&Op) -> Option<PassOp>| {
            let op = self.ops.iter().find_map(pick).unwrap_or_default();
            if flag && op.enabled {
                op.alpha
            } else {
                0.0
            }
        };
        Core {
            root: alpha(self.root, |o| match o {
                Op::Root(p) => Some(*p),
                _ => None,
            }),
            fk: alpha(self.fk, |o| match o {
                Op::Fk(p) => Some(*p),
                _ => None,
            }),
            ik: alpha(self.ik, |o| match o {
                Op::Ik(p) => Some(*p),
                _ => None,
            }),
        }
    }

    /// Whether any op after the core passes is on (planting, floor, filter).
    pub fn has_extra_ops(&self) -> bool {
        self.ops.iter().any(|o| !o.is_core() && o.on())
    }

    /// These options with only the core passes: the ops after them left out (what reports
    /// compare the stack's effect against).
    pub fn core_only(&self) -> RetargetOptions {
        RetargetOptions {
            ops: self.ops.iter().filter(|o| o.is_core()).cloned().collect(),
            ..self.clone()
        }
    }

    /// The `Mirror` op, when it is on.
    pub fn mirror_op(&self) -> Option<MirrorOp> {
        self.ops.iter().find_map(|o| match o {
            Op::Mirror(m) if o.on() => Some(*m),
            _ => None,
        })
    }

    /// These options without the `Mirror` op: what the reports measure the retarget by (a
    /// mirrored clip's left side follows the source's right).
    pub fn unmirrored(&self) -> RetargetOptions {
        RetargetOptions {
            ops: self
                .ops
                .iter()
                .filter(|o| !matches!(o, Op::Mirror(_)))
                .cloned()
                .collect(),
            ..self.clone()
        }
    }

    /// Whether the stack needs leg limbs (planting, the floor, poles, stride) whatever the IK
    /// pass does.
    pub(crate) fn needs_legs(&self) -> bool {
        self.ops.iter().any(|o| {
            o.on() && matches!(o, Op::Plant(_) | Op::Floor(_) | Op::Pole(_) | Op::Stride(_))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_passes_come_first_in_order_and_numbers_in_range() {
        let floor = Op::Floor(FloorOp::default());
        let pass = Op::Ik(PassOp::default());
        assert_eq!(check_ops(&[pass.clone(), floor.clone()]), None);
        let (key, _, _) = check_ops(&[floor, pass]).unwrap();
        assert_eq!(key, "[1]");
        let (key, _, _) =
            check_ops(&[Op::Ik(PassOp::default()), Op::Root(PassOp::default())]).unwrap();
        assert_eq!(key, "[1]");
        let bad = Op::Plant(PlantOp {
            alpha: 1.5,
            ..PlantOp::default()
        });
        assert_eq!(check_ops(&[bad]).unwrap().0, "[0].alpha");
        let bad = Op::Floor(FloorOp {
            snap_m: 0.3,
            ..FloorOp::default()
        });
        assert_eq!(check_ops(&[bad]).unwrap().0, "[0].blend_m");
        let mirror = Op::Mirror(MirrorOp::default());
        assert_eq!(
            check_ops(&[Op::Fk(PassOp::default()), mirror.clone()]),
            None
        );
        let (key, _, _) = check_ops(&[mirror, Op::Floor(FloorOp::default())]).unwrap();
        assert_eq!(key, "[0]");
        let bad = Op::Mirror(MirrorOp {
            snap_deg: 45.0,
            ..MirrorOp::default()
        });
        assert_eq!(check_ops(&[bad]).unwrap().0, "[0].snap_deg");
    }

    #[test]
    fn core_alphas_follow_flags_and_ops() {
        let mut o = RetargetOptions::default();
        assert_eq!(
            o.core(),
            Core {
                root: 1.0,
                fk: 1.0,
                ik: 1.0
            }
        );
        o.ops = vec![Op::Fk(PassOp {
            enabled: true,
            alpha: 0.5,
        })];
        o.ik = false;
        assert_eq!(
            o.core(),
            Core {
                root: 1.0,
                fk: 0.5,
                ik: 0.0
            }
        );
    }
}
