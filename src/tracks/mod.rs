//! Track stripping: removes the channels a normalized skeleton's clips do not need (channels that
//! are not bone transforms, translations of bones other than Root and Hips, tracks of unmapped
//! bones, channels that only hold the rest), each by an option with a documented default, and
//! reports per clip what went and why. Also plays clips of one skeleton on another by bone name
//! ([`rebind`]) and joins companion clips back ([`rejoin`]). Pure over the model; imports `model`,
//! `profile` and `mapping`.

#[cfg(test)]
mod tests;

use crate::mapping::BoneMap;
use crate::model::{
    turn_deg, BoneId, BoneTracks, Channel, Clip, Interpolation, Model, OpaqueKind, Skeleton,
    SkeletonId, Track, TrackValue, Warning, WarningCode,
};
use crate::profile::Profile;
use documented::DocumentedFields;
use glam::{Mat4, Quat, Vec3};
use serde::{Deserialize, Serialize};

/// What becomes of the tracks of bones the map leaves unmapped.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum UnmappedBones {
    /// Leave them in their clips.
    #[default]
    Keep,
    /// Remove them.
    Remove,
    /// Move them to a companion clip named `<clip>.unmapped` (see [`COMPANION_SUFFIX`]).
    Separate,
}

/// The suffix of companion clips made by [`UnmappedBones::Separate`].
pub const COMPANION_SUFFIX: &str = ".unmapped";

/// Options of [`strip`]. Every field has a default; a settings file may give any of them.
#[derive(
    Debug, Clone, PartialEq, Serialize, Deserialize, DocumentedFields, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct TrackOptions {
    /// Remove every channel that is not a bone's translation, rotation or scale: morph-target
    /// weights, `KHR_animation_pointer` channels, nodes outside the skeleton. Default: false.
    pub except_bone_transform: bool,
    /// Remove the translation tracks of bones other than `position_bones`. A bone that some
    /// clip moves away from its rest by more than `tolerance` keeps its translation tracks in
    /// every clip, with a `translation_motion` warning: such a rig moves by translation, and
    /// removing them would break it. Default: true.
    pub unimportant_positions: bool,
    /// Profile bones whose translation tracks are always kept. Default: ["Root", "Hips"].
    pub position_bones: Vec<String>,
    /// Tracks of bones the map leaves unmapped: `keep`, `remove`, or `separate` (move them to a
    /// companion clip `<clip>.unmapped`). Default: keep.
    pub unmapped_bones: UnmappedBones,
    /// Remove channels whose every key equals the bone's rest within `tolerance`. Players keep
    /// the previous clip's pose for a bone without a channel, so this is off by default.
    /// Default: false.
    pub drop_rest_channels: bool,
    /// How close to the rest a channel must stay to count as the rest: translations as a
    /// fraction of the skeleton's height, rotations in radians, scales as a fraction. Removing
    /// such a channel moves no joint by more than about this fraction of the height.
    /// Default: 1e-5.
    pub tolerance: f32,
}

impl Default for TrackOptions {
    fn default() -> Self {
        TrackOptions {
            except_bone_transform: false,
            unimportant_positions: true,
            position_bones: vec!["Root".into(), "Hips".into()],
            unmapped_bones: UnmappedBones::Keep,
            drop_rest_channels: false,
            tolerance: 1e-5,
        }
    }
}

/// Why a track was removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StripReason {
    /// Not a bone transform (`except_bone_transform`).
    NotBoneTransform,
    /// A translation of a bone other than the position bones, holding its rest
    /// (`unimportant_positions`).
    UnimportantPosition,
    /// A track of an unmapped bone (`unmapped_bones: remove`).
    UnmappedBone,
    /// Moved to the companion clip (`unmapped_bones: separate`).
    Separated,
    /// Every key equals the rest (`drop_rest_channels`).
    AtRest,
}

/// One removed channel.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RemovedTrack {
    /// The bone, or what the channel animates for channels that are not bone transforms.
    pub target: String,
    /// `translation`, `rotation`, `scale`, `weights` or `pointer`.
    pub channel: String,
    /// Which option removed the channel.
    pub reason: StripReason,
}

/// A translation track kept because it moves its bone.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MovingTranslation {
    /// The bone.
    pub bone: String,
    /// How far its keys leave the rest, as a fraction of the skeleton's height.
    pub deviation: f32,
}

/// What stripping did to one clip.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ClipStrip {
    /// The clip.
    pub clip: String,
    /// Channels removed (or moved to the companion clip), with the reason.
    pub removed: Vec<RemovedTrack>,
    /// Translation tracks of bones other than the position bones, kept because some clip of
    /// the skeleton moves the bone by translation (the deviation is this clip's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub kept_moving: Vec<MovingTranslation>,
    /// The companion clip made from it, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub companion: Option<String>,
    /// Whether the clip lost every channel and was removed (a glTF animation needs one).
    pub emptied: bool,
}

/// What [`strip`] did to one skeleton's clips.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StripReport {
    /// Per clip of the skeleton, in model order (companions not included).
    pub clips: Vec<ClipStrip>,
    /// Channels removed from the skeleton's clips, companions' moves included.
    pub removed_tracks: usize,
    /// Companion clips added.
    pub companions: Vec<String>,
    /// Moving translation tracks that were kept and clips emptied, with the bones or clips concerned.
    pub warnings: Vec<Warning>,
}

/// Why [`strip`] changed nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TrackError {
    /// The skeleton index does not exist.
    #[error("there is no skeleton {0}")]
    NoSkeleton(SkeletonId),
    /// The map was made for another skeleton.
    #[error("the bone map does not fit skeleton `{0}`")]
    MapMismatch(String),
    /// `position_bones` names a bone the profile does not have.
    #[error("position bone `{bone}`: the `{profile}` profile has no such bone")]
    UnknownBone {
        /// The name given.
        bone: String,
        /// The profile.
        profile: String,
    },
    /// The tolerance is negative or not finite.
    #[error("tolerance {0}: must be a finite number of at least 0")]
    Tolerance(f32),
}

/// Every reason [`strip`] has to refuse skeleton `k` of `model` (the first found): what it
/// checks before it changes anything. Stages before it (the rest fix) do not change the answer.
pub(crate) fn check(
    model: &Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &TrackOptions,
) -> Result<(), TrackError> {
    let s = model.get_skeleton(k).ok_or(TrackError::NoSkeleton(k))?;
    if !map.fits(s, profile) {
        return Err(TrackError::MapMismatch(s.name.clone()));
    }
    if !(options.tolerance >= 0.0 && options.tolerance.is_finite()) {
        return Err(TrackError::Tolerance(options.tolerance));
    }
    if let Some(name) = options
        .position_bones
        .iter()
        .find(|n| profile.find(n).is_none())
    {
        return Err(TrackError::UnknownBone {
            bone: name.clone(),
            profile: profile.name.clone(),
        });
    }
    Ok(())
}

/// Strips the clips of skeleton `k` as `options` say; see [`TrackOptions`]. Companion clips are
/// appended to `model.clips`; clips left without any channel are removed. On error nothing
/// changes.
pub fn strip(
    model: &mut Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &TrackOptions,
) -> Result<StripReport, TrackError> {
    check(model, k, map, profile, options)?;
    // The field, not `Model::get_skeleton`: the clips are changed while `s` is in use.
    let s = model
        .skeletons
        .get(k.index())
        .ok_or(TrackError::NoSkeleton(k))?;
    let mut keep_position = vec![false; s.bones.len()];
    for name in &options.position_bones {
        let p = profile.find(name).ok_or_else(|| TrackError::UnknownBone {
            bone: name.clone(),
            profile: profile.name.clone(),
        })?;
        if let Some(b) = map.get(p) {
            keep_position[b.index()] = true;
        }
    }
    let at_rest = AtRest::new(s, options.tolerance);
    let moves = moving_bones(model, k, &at_rest, &keep_position);
    let job = Job {
        skeleton: s,
        options,
        at_rest,
        keep_position: keep_position
            .iter()
            .zip(&moves)
            .map(|(a, b)| *a || *b)
            .collect(),
        mapped: (0..s.bones.len())
            .map(|b| map.profile_bone_of(BoneId(b as u32)).is_some())
            .collect(),
    };
    let mut report = StripReport {
        clips: Vec::new(),
        removed_tracks: 0,
        companions: Vec::new(),
        warnings: Vec::new(),
    };
    let mut companions = Vec::new();
    for clip in model.clips.iter_mut().filter(|c| c.skeleton == k) {
        let (out, companion) = job.clip(clip, k, &keep_position);
        report.removed_tracks += out.removed.len();
        report.clips.push(out);
        companions.extend(companion);
    }
    model
        .clips
        .retain(|c| c.skeleton != k || c.channel_count() > 0 || !c.opaque.is_empty());
    report.companions = companions.iter().map(|c| c.name.clone()).collect();
    model.clips.extend(companions);
    report.warnings = warnings(&report, model.skeleton(k), &moves, &keep_position);
    Ok(report)
}

/// The bones of skeleton `k` that some clip moves away from their rest by translation. Such a
/// bone keeps its translation tracks in every clip: players that carry a bone's pose from one
/// clip into the next need them all. Position bones keep theirs anyway: they are not looked at
/// (false).
fn moving_bones(
    model: &Model,
    k: SkeletonId,
    at_rest: &AtRest,
    position_bone: &[bool],
) -> Vec<bool> {
    (0..model.skeleton(k).bones.len())
        .map(|b| {
            !position_bone[b]
                && model.clips.iter().any(|c| {
                    c.skeleton == k
                        && c.tracks[b]
                            .translation
                            .as_ref()
                            .is_some_and(|t| at_rest.translation_moves(b, t))
                })
        })
        .collect()
}

/// What stripping one skeleton's clips needs to know.
struct Job<'a> {
    skeleton: &'a Skeleton,
    options: &'a TrackOptions,
    at_rest: AtRest<'a>,
    /// Bones whose translation tracks stay: position bones and bones some clip moves.
    keep_position: Vec<bool>,
    mapped: Vec<bool>,
}

impl Job<'_> {
    /// Strips one clip; returns its report and its companion clip, if one is made.
    fn clip(
        &self,
        clip: &mut Clip,
        k: SkeletonId,
        position_bone: &[bool],
    ) -> (ClipStrip, Option<Clip>) {
        let options = self.options;
        let mut out = ClipStrip {
            clip: clip.name.clone(),
            removed: Vec::new(),
            kept_moving: Vec::new(),
            companion: None,
            emptied: false,
        };
        if options.except_bone_transform {
            strip_opaque(clip, &mut out.removed);
        }
        let separate = options.unmapped_bones == UnmappedBones::Separate
            && !clip.name.ends_with(COMPANION_SUFFIX);
        let mut separated = vec![BoneTracks::default(); self.skeleton.bones.len()];
        for (b, tracks) in clip.tracks.iter_mut().enumerate() {
            self.strip_bone(b, tracks, position_bone, &mut out);
            if let Some(taken) = self.take_unmapped(b, tracks, separate, &mut out.removed) {
                separated[b] = taken;
            }
        }
        let companion = (separate && separated.iter().any(|t| !t.is_empty()))
            .then(|| companion(clip, k, separated));
        out.companion = companion.as_ref().map(|c| c.name.clone());
        out.emptied = clip.channel_count() == 0 && clip.opaque.is_empty();
        (out, companion)
    }

    /// Removes bone `b`'s translation when it is not a position bone (`unimportant_positions`)
    /// and its channels that hold the rest (`drop_rest_channels`); notes translations kept
    /// because the bone moves.
    fn strip_bone(
        &self,
        b: usize,
        tracks: &mut BoneTracks,
        position_bone: &[bool],
        out: &mut ClipStrip,
    ) {
        let options = self.options;
        let bone = &self.skeleton.bones[b].name;
        let mut remove = |channel: Channel, reason| {
            out.removed.push(RemovedTrack {
                target: bone.clone(),
                channel: channel.as_str().to_string(),
                reason,
            })
        };
        if let (true, Some(t)) = (options.unimportant_positions, &tracks.translation) {
            if !self.keep_position[b] {
                tracks.translation = None;
                remove(Channel::Translation, StripReason::UnimportantPosition);
            } else if !position_bone[b] {
                out.kept_moving.push(MovingTranslation {
                    bone: bone.clone(),
                    deviation: self.at_rest.translation(b, t),
                });
            }
        }
        if options.drop_rest_channels {
            self.drop_rest(b, tracks, &mut remove);
        }
    }

    /// Takes the tracks of bone `b` out of its clip if the bone is unmapped and
    /// `unmapped_bones` removes them, or separates them (`separate`: this clip gets a
    /// companion), recording each channel in `removed`. Returns the tracks taken.
    fn take_unmapped(
        &self,
        b: usize,
        tracks: &mut BoneTracks,
        separate: bool,
        removed: &mut Vec<RemovedTrack>,
    ) -> Option<BoneTracks> {
        if self.mapped[b] || tracks.is_empty() {
            return None;
        }
        let reason = match self.options.unmapped_bones {
            UnmappedBones::Remove => StripReason::UnmappedBone,
            UnmappedBones::Separate if separate => StripReason::Separated,
            _ => return None,
        };
        for channel in Channel::ALL.into_iter().filter(|&c| tracks.has(c)) {
            removed.push(RemovedTrack {
                target: self.skeleton.bones[b].name.clone(),
                channel: channel.as_str().to_string(),
                reason,
            });
        }
        Some(std::mem::take(tracks))
    }

    /// Removes bone `b`'s channels that hold the rest (`drop_rest_channels`).
    fn drop_rest(
        &self,
        b: usize,
        tracks: &mut BoneTracks,
        remove: &mut impl FnMut(Channel, StripReason),
    ) {
        let tol = self.options.tolerance;
        if tracks
            .translation
            .as_ref()
            .is_some_and(|t| self.at_rest.translation(b, t) <= tol)
        {
            tracks.translation = None;
            remove(Channel::Translation, StripReason::AtRest);
        }
        if tracks
            .rotation
            .as_ref()
            .is_some_and(|t| self.at_rest.rotation(b, t) <= tol)
        {
            tracks.rotation = None;
            remove(Channel::Rotation, StripReason::AtRest);
        }
        if tracks
            .scale
            .as_ref()
            .is_some_and(|t| self.at_rest.scale(b, t) <= tol)
        {
            tracks.scale = None;
            remove(Channel::Scale, StripReason::AtRest);
        }
    }
}

/// Removes every channel of `clip` that is not a bone transform (`except_bone_transform`),
/// recording each in `removed`.
fn strip_opaque(clip: &mut Clip, removed: &mut Vec<RemovedTrack>) {
    for o in clip.opaque.drain(..) {
        let (target, channel) = match o.kind {
            OpaqueKind::Weights { node } => (format!("node {node}"), "weights".to_string()),
            OpaqueKind::NodeTransform { node, path } => (format!("node {node}"), path),
            OpaqueKind::Pointer { pointer } => (pointer, "pointer".to_string()),
        };
        removed.push(RemovedTrack {
            target,
            channel,
            reason: StripReason::NotBoneTransform,
        });
    }
}

/// The companion clip of `clip` (skeleton `k`) holding the tracks separated from it.
fn companion(clip: &Clip, k: SkeletonId, tracks: Vec<BoneTracks>) -> Clip {
    Clip::new(format!("{}{COMPANION_SUFFIX}", clip.name), k, tracks)
}

/// The skeleton-wide warnings of a strip: bones kept because they move, clips emptied.
fn warnings(
    report: &StripReport,
    s: &Skeleton,
    moves: &[bool],
    position_bone: &[bool],
) -> Vec<Warning> {
    let mut out = Vec::new();
    let moving: Vec<String> = (0..s.bones.len())
        .filter(|&b| moves[b] && !position_bone[b])
        .map(|b| s.bones[b].name.clone())
        .collect();
    if !moving.is_empty() {
        let worst = report
            .clips
            .iter()
            .flat_map(|c| &c.kept_moving)
            .map(|m| m.deviation)
            .fold(0.0, f32::max);
        out.push(Warning {
            code: WarningCode::TranslationMotion,
            skeleton: None,
            message: format!(
                "translation keys move {} bone(s) up to {:.2}% of the height away from their rest: the rig \
                 moves by translation, so their translation tracks were kept in every clip",
                moving.len(),
                worst * 100.0
            ),
            bones: moving,
            clips: Vec::new(),
            chain: None,
        });
    }
    let emptied: Vec<String> = report
        .clips
        .iter()
        .filter(|c| c.emptied)
        .map(|c| c.clip.clone())
        .collect();
    if !emptied.is_empty() {
        out.push(Warning {
            code: WarningCode::ClipEmptied,
            skeleton: None,
            message: format!(
                "{} clip(s) lost every channel and were removed",
                emptied.len()
            ),
            bones: Vec::new(),
            clips: emptied,
            chain: None,
        });
    }
    out
}

/// Measures how far channels of a skeleton's bones stay from their rest, without units.
struct AtRest<'a> {
    skeleton: &'a Skeleton,
    /// Each bone's parent rest world matrix (the base for roots): it scales local offsets.
    parents: Vec<Mat4>,
    height: f32,
    tolerance: f32,
}

impl<'a> AtRest<'a> {
    fn new(skeleton: &'a Skeleton, tolerance: f32) -> Self {
        let world = skeleton.rest_world();
        let parents = (0..skeleton.bones.len())
            .map(|b| skeleton.parent_world(BoneId(b as u32), skeleton.base, &world))
            .collect();
        AtRest {
            skeleton,
            parents,
            height: skeleton.height().max(1e-12),
            tolerance,
        }
    }

    /// The length of a move `v` of bone `b`'s translation, in the scene, over the height.
    fn translation_size(&self, b: usize) -> impl Fn(Vec3) -> f32 + '_ {
        let parent = self.parents[b];
        move |v| parent.transform_vector3(v).length() / self.height
    }

    /// Largest distance of a key from the rest translation, in the scene, over the height.
    fn translation(&self, b: usize, t: &Track<Vec3>) -> f32 {
        let rest = self.skeleton.bones[b].rest.translation;
        let size = self.translation_size(b);
        let keys = t.max_distance(rest, |a, r| size(a - r));
        keys.max(self.tangents(t, size))
    }

    /// Whether [`AtRest::translation`] is over the tolerance, told from the first key that is
    /// (the keys after it are not looked at).
    fn translation_moves(&self, b: usize, t: &Track<Vec3>) -> bool {
        let rest = self.skeleton.bones[b].rest.translation;
        let size = self.translation_size(b);
        // A key equal to the rest is a move of size 0, never over the tolerance (at least 0):
        // it is not measured.
        let moves = (0..t.len()).any(|k| {
            let key = t.key(k);
            key != rest && size(key - rest) > self.tolerance
        });
        moves || self.tangents(t, size) > self.tolerance
    }

    /// Largest angle of a key from the rest rotation, radians.
    fn rotation(&self, b: usize, t: &Track<Quat>) -> f32 {
        let rest = self.skeleton.bones[b].rest.rotation;
        let keys = t.max_distance(rest, |a, r| turn_deg(r.conjugate() * a).to_radians());
        // A quaternion tangent's length is about half the angular speed.
        keys.max(self.tangents(t, |q| 2.0 * q.length()))
    }

    /// Largest relative difference of a key from the rest scale.
    fn scale(&self, b: usize, t: &Track<Vec3>) -> f32 {
        let rest = self.skeleton.bones[b].rest.scale;
        let size = rest.abs().max_element().max(1e-12);
        let keys = t.max_distance(rest, |a, r| (a - r).abs().max_element() / size);
        keys.max(self.tangents(t, |v| v.abs().max_element() / size))
    }

    /// For cubic splines, the largest tangent (per second) times the longest key interval: how
    /// far the curve can bulge between keys that all hold the rest. 0 for other tracks; a
    /// tangent over the tolerance makes the track count as moving (infinity).
    fn tangents<T: TrackValue>(&self, t: &Track<T>, size: impl Fn(T) -> f32) -> f32 {
        if t.interpolation != Interpolation::CubicSpline {
            return 0.0;
        }
        let span = t
            .times
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(0.0f32, f32::max);
        let worst = (0..t.len())
            .flat_map(|k| [t.values[3 * k], t.values[3 * k + 2]])
            .map(&size)
            .fold(0.0f32, f32::max);
        let bulge = worst * span;
        if bulge > self.tolerance {
            f32::INFINITY
        } else {
            bulge
        }
    }
}

/// A clip of one skeleton played on another by bone name, and what did not carry over.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebound {
    /// The clip for the target skeleton (`skeleton` is `target_index`, no glTF source, no
    /// channels that are not bone transforms).
    pub clip: Clip,
    /// Bones of the source with tracks that the target has no bone of the same name for.
    pub missing: Vec<String>,
}

/// Gives `clip` (of skeleton `from`) to skeleton `to` (index `target_index` in its model),
/// pairing bones by name: the way clips are shared between normalized, renamed rigs (and the
/// way engines bind them). Tracks are copied as they are, so the rests of paired bones must
/// correspond: normalize both rigs to one profile first. Translation tracks of the position bones
/// carry the source's units; scale them by the height ratio (or use a motion scale) when the
/// rigs differ in size.
pub fn rebind(clip: &Clip, from: &Skeleton, to: &Skeleton, target_index: SkeletonId) -> Rebound {
    let mut tracks = vec![BoneTracks::default(); to.bones.len()];
    let mut missing = Vec::new();
    for (b, t) in clip.tracks.iter().enumerate() {
        if t.is_empty() {
            continue;
        }
        let name = &from.bones[b].name;
        match to.bones.iter().position(|x| &x.name == name) {
            Some(i) => tracks[i] = t.clone(),
            None => missing.push(name.clone()),
        }
    }
    Rebound {
        clip: Clip {
            motion_scale: clip.motion_scale,
            curves: clip.curves.clone(),
            ..Clip::new(clip.name.clone(), target_index, tracks)
        },
        missing,
    }
}

/// Joins every companion clip (`<clip>.unmapped`) of skeleton `k` back into its clip: the
/// model as it plays when both are played together. Companions without their clip stay.
pub fn rejoin(model: &Model, k: SkeletonId) -> Model {
    let mut out = model.clone();
    out.clips.clear();
    let mut companions = Vec::new();
    for clip in &model.clips {
        match clip.name.strip_suffix(COMPANION_SUFFIX) {
            Some(base) if clip.skeleton == k => companions.push((base, clip)),
            _ => out.clips.push(clip.clone()),
        }
    }
    for (base, companion) in companions {
        let Some(into) = out
            .clips
            .iter_mut()
            .find(|c| c.skeleton == k && c.name == base)
        else {
            out.clips.push(companion.clone());
            continue;
        };
        for (dst, src) in into.tracks.iter_mut().zip(&companion.tracks) {
            dst.translation = dst.translation.take().or_else(|| src.translation.clone());
            dst.rotation = dst.rotation.take().or_else(|| src.rotation.clone());
            dst.scale = dst.scale.take().or_else(|| src.scale.clone());
        }
    }
    out
}
