//! The retarget workflow: normalize both sides, choose the source's clips, build the per-pair
//! plan once, retarget every clip with it, name the new clips by one policy, add them to the
//! target and measure them. Works on models; reads and writes no files.

use super::{normalize, NormalizeError, NormalizeOptions, NormalizeReport};
use crate::check::retarget::{
    effector_errors, mirror_check, ops_check, retarget as measure, NotMeasured, RetargetCheck,
};
use crate::mapping::BoneMap;
use crate::model::{Clip, Model, SkeletonId, Warning, WarningCode};
use crate::profile::Profile;
use crate::rest::{carry_back, KeyMap, RestoreError};
use crate::retarget::kept_base::{as_read, folded, kept_turn, turned_roots};
use crate::retarget::{
    retarget_clip_with, stood_on_feet, Plan, RetargetError, RetargetOptions, Retargeter, Rig,
};
use crate::tracks::COMPANION_SUFFIX;
use serde::{Deserialize, Serialize};

/// What to do when a new clip's name is already a clip of the target, or another new clip's.
/// Names are compared ignoring case (Unicode lower case): engines and DCCs that look clips up
/// without case would merge `walk` into `Walk` or overwrite it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OnClash {
    /// Keep the target's clip and name the new one `NAME (retargeted)` (then
    /// `NAME (retargeted 2)`, … until no clip has that name, ignoring case); the report names the
    /// clip it would have clashed with ([`RetargetedClip::clashed_with`]).
    #[default]
    Rename,
    /// Replace the target's clip: it is dropped and the new one keeps its name
    /// ([`RetargetedClip::replaced`]).
    Replace,
    /// Refuse the whole retarget ([`RetargetRunError::ClipTaken`]), changing nothing: the user
    /// chooses a prefix or suffix.
    Refuse,
}

/// How the new clips are named: `prefix` + source clip name + `suffix`, then `on_clash`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClipNaming {
    /// Put before each source clip's name.
    pub prefix: String,
    /// Put after each source clip's name.
    pub suffix: String,
    /// When the name is taken.
    pub on_clash: OnClash,
}

/// A new clip's name, and the target clip it clashed with: kept (the new one renamed), or
/// replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NewName {
    pub name: String,
    pub clashed_with: Option<String>,
    pub replaced: Option<String>,
}

/// Whether two clip names are the same ignoring case.
fn same_name(a: &str, b: &str) -> bool {
    a == b || a.to_lowercase() == b.to_lowercase()
}

impl ClipNaming {
    /// The new names of `clips`: none the same as another ignoring case, nor as a clip of
    /// `taken` (the target's), unless that one is replaced; `Err` with the first name taken
    /// when the policy refuses.
    pub(super) fn names(&self, clips: &[&str], taken: &[&str]) -> Result<Vec<NewName>, String> {
        let mut out: Vec<NewName> = Vec::with_capacity(clips.len());
        for clip in clips {
            let name = format!("{}{clip}{}", self.prefix, self.suffix);
            let theirs = |n: &str| {
                taken
                    .iter()
                    .find(|t| same_name(t, n))
                    .map(|t| t.to_string())
            };
            let ours = |n: &str, out: &[NewName]| out.iter().any(|o| same_name(&o.name, n));
            let clash = theirs(&name);
            if !ours(&name, &out) && clash.is_none() {
                out.push(NewName {
                    name,
                    clashed_with: None,
                    replaced: None,
                });
                continue;
            }
            if self.on_clash == OnClash::Refuse {
                return Err(clash.unwrap_or(name));
            }
            if self.on_clash == OnClash::Replace && !ours(&name, &out) {
                out.push(NewName {
                    name,
                    clashed_with: clash.clone(),
                    replaced: clash,
                });
                continue;
            }
            let free = std::iter::once(format!("{name} (retargeted)"))
                .chain((2..).map(|k| format!("{name} (retargeted {k})")))
                .find(|n| !ours(n, &out) && theirs(n).is_none())
                .expect("an unbounded sequence of names has a free one");
            out.push(NewName {
                name: free,
                clashed_with: clash,
                replaced: None,
            });
        }
        Ok(out)
    }
}

/// Drops from `clips` (up to index `before`: the clips the model had before the new ones were
/// added) the clips that new clips replaced ([`OnClash::Replace`], [`RetargetedClip::replaced`]).
pub fn drop_replaced(clips: &mut Vec<Clip>, before: usize, report: &RetargetReport) {
    let replaced: Vec<&str> = report
        .clips
        .iter()
        .filter_map(|c| c.replaced.as_deref())
        .collect();
    let mut i = 0;
    clips.retain(|c| {
        i += 1;
        i > before || !replaced.contains(&c.name.as_str())
    });
}

/// What [`retarget`] leaves in the target model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RetargetOutput {
    /// The target exactly as it came (its names, rests, node transforms, clips) plus the new
    /// clips, converted into its own rests: clips for the user's own character.
    #[default]
    Original,
    /// The target normalized (profile names, T-pose rests, facing +Z) plus the new clips.
    Normalized,
    /// As [`RetargetOutput::Original`], but only the new clips: with the target's skeleton
    /// (its nodes and rests, no meshes), written as an animation-only file, the way engines
    /// import animation; or, for a VRM target, a clip of it written as a VRM animation (the
    /// `.vrma` writer), which needs the clip in the target's own rests, as this output leaves
    /// it.
    AnimationOnly,
}

/// Options of [`retarget`]: how each side is normalized, which clips, how they are retargeted,
/// named and measured.
#[derive(Debug, Clone, Default)]
pub struct RetargetJob {
    /// Normalizing the source (`skeleton` chooses its skeleton; the first that fits by
    /// default).
    pub source: NormalizeOptions,
    /// Normalizing the target.
    pub target: NormalizeOptions,
    /// The retarget passes, chains and sampling rate.
    pub retarget: RetargetOptions,
    /// Source clips to retarget, by name; every clip of the source skeleton when empty
    /// (companion clips of unmapped bones never).
    pub clips: Vec<String>,
    /// Names of the new clips.
    pub naming: ClipNaming,
    /// Measure each new clip against its source ([`crate::check::retarget`]).
    pub measure: bool,
    /// What the target model holds afterwards.
    pub output: RetargetOutput,
}

/// A normalized model's skeleton chosen for retargeting: the first one normalized.
#[derive(Debug, Clone)]
pub struct Side {
    /// The skeleton in its model.
    pub index: SkeletonId,
    /// Its bone map (to the normalized bones).
    pub map: BoneMap,
    /// How the rest fix converted its keys, if it ran: what converts new clips back into the
    /// skeleton's own rests ([`carry_clips_back`]).
    pub keys: Option<KeyMap>,
}

impl Side {
    /// The first skeleton `report` normalized, if any.
    pub fn of(report: &NormalizeReport) -> Option<Side> {
        report
            .skeletons
            .iter()
            .find(|s| s.skipped.is_none())
            .map(|s| Side {
                index: s.index,
                map: s.bone_map.clone(),
                keys: s.rest.as_ref().map(|r| r.keys.clone()),
            })
    }
}

/// One new clip.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RetargetedClip {
    /// The source clip.
    pub source_clip: String,
    /// The new clip in the target.
    pub clip: String,
    /// The target's own clip whose name the new one would have had (the same ignoring case):
    /// kept, the new clip renamed ([`OnClash::Rename`]), or replaced. (A new clip renamed
    /// because another new clip has its name has none.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clashed_with: Option<String>,
    /// The target's own clip the new one replaced ([`OnClash::Replace`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
    /// Keys per track.
    pub frames: usize,
    /// The measures against the source clip, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<RetargetCheck>,
}

/// What [`retarget_onto`] did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RetargetReport {
    /// The source skeleton's name.
    pub source_skeleton: String,
    /// The target skeleton's name.
    pub target_skeleton: String,
    /// How chains were paired (one plan for every clip).
    pub plan: Plan,
    /// The new clips, in source order.
    pub clips: Vec<RetargetedClip>,
}

/// Why [`retarget`] changed nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RetargetRunError {
    /// The source could not be normalized.
    #[error("the source: {0}")]
    Source(NormalizeError),
    /// The target could not be normalized.
    #[error("the target: {0}")]
    Target(NormalizeError),
    /// A clip asked for is not in the source.
    #[error("no clip `{clip}` (it has: {})", available.join(", "))]
    NoClip {
        /// The name asked for.
        clip: String,
        /// The source's clips.
        available: Vec<String>,
    },
    /// The source has no clips of its skeleton.
    #[error("has no clips to retarget")]
    NoClips,
    /// A new clip's name is taken in the target (with [`OnClash::Refuse`]).
    #[error("already has a clip `{0}`")]
    ClipTaken(String),
    /// Retargeting refused the pair or the options.
    #[error(transparent)]
    Retarget(#[from] RetargetError),
    /// A new clip could not be converted into the target's own rests.
    #[error(transparent)]
    Restore(#[from] RestoreError),
}

/// Normalizes `source` (in place) and `target`, then retargets the source's clips onto the
/// target (see [`retarget_onto`]) and leaves in `target` what `job.output` asks for: by default
/// the target as it came plus the new clips in its own rests. On error the target is unchanged.
///
/// The source is normalized as the target's clients show a scene (it takes the target's
/// [`Model::view_turn`]): onto a VRM 0.x character, whose file faces −Z, a clip that faces +Z
/// in its own file is turned to face −Z with it, so both play facing +Z in a VRM 0.x client.
pub fn retarget(
    source: &mut Model,
    target: &mut Model,
    profile: &Profile,
    job: &RetargetJob,
) -> Result<RetargetReport, RetargetRunError> {
    source.view_turn = target.view_turn;
    let s = normalize(source, profile, &job.source).map_err(RetargetRunError::Source)?;
    let mut normalized = target.clone();
    let t = normalize(&mut normalized, profile, &job.target).map_err(RetargetRunError::Target)?;
    let (s, t) = (
        Side::of(&s).expect("normalize succeeded, so a skeleton fits"),
        Side::of(&t).expect("normalize succeeded, so a skeleton fits"),
    );
    let before = normalized.clips.len();
    let report = retarget_onto((source, &s), (&mut normalized, &t), profile, job)?;
    if job.output == RetargetOutput::Normalized {
        drop_replaced(&mut normalized.clips, before, &report);
        *target = normalized;
    } else {
        carry_clips_back(target, &normalized, before, &t, &report, job.output)?;
    }
    Ok(report)
}

/// Adds to `original` (the model `normalized` was normalized from) the clips of `normalized`
/// from index `from` on (new clips of skeleton `side`, retargeted as `report` says), converted
/// into its own rests (see [`carry_back`]; as they are when the rest fix did not run). Its own
/// clips go ([`RetargetOutput::AnimationOnly`]) or stay, less those the new ones replaced. On
/// error `original` is unchanged.
pub fn carry_clips_back(
    original: &mut Model,
    normalized: &Model,
    from: usize,
    side: &Side,
    report: &RetargetReport,
    output: RetargetOutput,
) -> Result<(), RestoreError> {
    let new = normalized.clips[from.min(normalized.clips.len())..]
        .iter()
        .map(|c| match &side.keys {
            Some(keys) => carry_back(
                c,
                keys,
                normalized.skeleton(side.index),
                original.skeleton(side.index),
            ),
            None => Ok(c.clone()),
        })
        .collect::<Result<Vec<Clip>, RestoreError>>()?;
    if output == RetargetOutput::AnimationOnly {
        original.clips.clear();
    }
    let own = original.clips.len();
    drop_replaced(&mut original.clips, own, report);
    original.clips.extend(new);
    Ok(())
}

/// Retargets the clips of an already normalized `source` onto an already normalized `target`:
/// one plan for the pair, every chosen clip retargeted with it, named by `job.naming`, added to
/// `target`. Checks everything first: on error the target is unchanged. Both sides must have
/// been normalized under the same [`Model::view_turn`] (as [`retarget`] does), so that they face
/// +Z in one space. A side whose nodes kept above tilt its up axis is read with that turn folded
/// into its root bones, and the target's new clips are turned back for its kept nodes.
pub fn retarget_onto(
    source: (&Model, &Side),
    target: (&mut Model, &Side),
    profile: &Profile,
    job: &RetargetJob,
) -> Result<RetargetReport, RetargetRunError> {
    let ((source, s), (target, t)) = (source, target);
    let clips = chosen_clips(source, s.index, &job.clips)?;
    let names: Vec<&str> = clips.iter().map(|c| c.name.as_str()).collect();
    // An animation-only output drops the target's own clips: their names are free.
    let taken: Vec<&str> = match job.output {
        RetargetOutput::AnimationOnly => Vec::new(),
        _ => target.clips.iter().map(|c| c.name.as_str()).collect(),
    };
    let new_names = job
        .naming
        .names(&names, &taken)
        .map_err(RetargetRunError::ClipTaken)?;
    // A side whose kept nodes above tilt its up axis is read with that turn folded into its
    // root bones (a copy; the target's new clips are turned back below).
    let (s_turn, t_turn) = (
        kept_turn(source.skeleton(s.index)),
        kept_turn(target.skeleton(t.index)),
    );
    let s_folded = s_turn.map(|q| folded(source.skeleton(s.index), q));
    let t_folded = t_turn.map(|q| folded(target.skeleton(t.index), q));
    let s_skeleton = s_folded.as_ref().unwrap_or(source.skeleton(s.index));
    let folded_clips: Option<Vec<Clip>> = s_turn.map(|q| {
        (clips.iter())
            .map(|c| turned_roots(c, source.skeleton(s.index), q))
            .collect()
    });
    let clips: Vec<&Clip> = match &folded_clips {
        Some(f) => f.iter().collect(),
        None => clips,
    };
    // A source whose rest lies on the floor, its feet below it, stands on its feet for the
    // retarget (the model itself is left as it is).
    let stood = stood_on_feet(s_skeleton, &s.map, profile);
    let s_rig = Rig {
        skeleton: stood.as_ref().map_or(s_skeleton, |(k, _)| k),
        map: &s.map,
        profile,
    };
    let t_rig = Rig {
        skeleton: t_folded.as_ref().unwrap_or(target.skeleton(t.index)),
        map: &t.map,
        profile,
    };
    let mut r = Retargeter::new(&s_rig, &t_rig, &job.retarget)?;
    // With ops after the core passes, the reports compare against the core passes alone.
    let bare_options = job.retarget.core_only();
    let mut bare = match job.measure && job.retarget.has_extra_ops() {
        true => Some(Retargeter::new(&s_rig, &t_rig, &bare_options)?),
        false => None,
    };
    // With the Mirror op, the measures are taken on the clip without it (a mirrored clip's
    // left follows the source's right), and the mirror is measured against that clip.
    let unmirrored_options = job.retarget.unmirrored();
    let mut unmirrored = match job.measure && r.mirror_reflection().is_some() {
        true => Some(Retargeter::new(&s_rig, &t_rig, &unmirrored_options)?),
        false => None,
    };
    let mut new_clips = Vec::with_capacity(clips.len());
    let mut reports = Vec::with_capacity(clips.len());
    for (clip, named) in clips.iter().zip(new_names) {
        let mut new = retarget_clip_with(&mut r, &s_rig, clip, &t_rig, t.index, &job.retarget)?;
        new.name = named.name;
        let plain = match &mut unmirrored {
            Some(u) => Some(retarget_clip_with(
                u,
                &s_rig,
                clip,
                &t_rig,
                t.index,
                &unmirrored_options,
            )?),
            None => None,
        };
        let measured_clip = plain.as_ref().unwrap_or(&new);
        let mut measured = job.measure.then(|| {
            measure(
                (&s_rig, clip),
                (&t_rig, measured_clip),
                r.plan(),
                &unmirrored_options,
            )
        });
        if let (Some(m), Some(b)) = (&mut measured, &mut bare) {
            let without = retarget_clip_with(b, &s_rig, clip, &t_rig, t.index, &bare_options)?;
            let mut ops = ops_check(
                (&s_rig, clip),
                (&t_rig, measured_clip),
                &without,
                r.plan(),
                &unmirrored_options,
            );
            if let (Some(reflection), Some(plain)) = (r.mirror_reflection(), &plain) {
                ops.mirror = Some(mirror_check(&t_rig, &new, plain, reflection, &job.retarget));
            }
            m.ops = Some(ops);
        }
        reports.push(RetargetedClip {
            source_clip: clip.name.clone(),
            clip: new.name.clone(),
            clashed_with: named.clashed_with,
            replaced: named.replaced,
            frames: new
                .tracks
                .iter()
                .find_map(|t| t.rotation.as_ref().map(|r| r.len()))
                .unwrap_or(0),
            measured,
        });
        new_clips.push(match (t_turn, &t_folded) {
            (Some(q), Some(k)) => turned_roots(&new, k, q.inverse()),
            _ => new,
        });
    }
    let mut plan = r.plan().clone();
    plan.warnings.extend(stood.as_ref().map(|(_, w)| w.clone()));
    for (side, sk) in [("source", s_rig.skeleton), ("target", t_rig.skeleton)] {
        plan.warnings.extend(base_unseen(side, sk));
    }
    let report = RetargetReport {
        source_skeleton: s_rig.skeleton.name.clone(),
        target_skeleton: t_rig.skeleton.name.clone(),
        plan,
        clips: reports,
    };
    target.clips.extend(new_clips);
    Ok(report)
}

/// A warning when the nodes kept above `skeleton` (the `source` or `target` as the retarget
/// reads it) turn its up axis off +Y or scale it unevenly: the retarget reads each side in its
/// skeleton's own space, where a uniform scale is absorbed by the legs' ratio, a turn about +Y
/// by the facing, and a tilt with an even scale (a Z-up armature node kept by
/// `rest.apply_node_transforms: false`) is folded into the root bones ([`kept_turn`]), but no
/// uneven or negative scale, so its directions and root motion are taken without it.
fn base_unseen(side: &str, skeleton: &crate::model::Skeleton) -> Option<Warning> {
    let (scale, rotation, _) = skeleton.base.to_scale_rotation_translation();
    let tilt = (rotation * glam::Vec3::Y)
        .angle_between(glam::Vec3::Y)
        .to_degrees();
    let uneven = (scale.max_element() - scale.min_element()).abs() > 1e-4 * scale.max_element();
    (tilt > 0.01 || uneven || scale.min_element() <= 0.0).then(|| {
        Warning::new(
            WarningCode::BaseNotFolded,
            format!(
                "the nodes above the {side} skeleton `{}` stay above it (scale {:?}, its up \
                 turned {tilt:.1}° from +Y): the retarget reads the {side} in its skeleton's own \
                 space, without them, so its directions and root motion are not as shown",
                skeleton.name,
                scale.to_array()
            ),
        )
    })
}

/// Per time of `times` (seconds), how far each hand and foot of `target`'s clip `clip` is from
/// where the scaled source puts it, fraction of the target's height: the series behind
/// [`RetargetCheck`]'s end-effector figures, for `source_clip` retargeted by [`retarget_onto`]
/// with `plan` and `options` (both sides normalized). One entry per hand and foot, or why it is
/// not measured.
pub fn effector_series(
    source: (&Model, &Side, &Clip),
    target: (&Model, &Side, &Clip),
    profile: &Profile,
    plan: &Plan,
    options: &RetargetOptions,
    times: &[f32],
) -> Vec<(String, Result<Vec<f32>, NotMeasured>)> {
    // Each side as `retarget_onto` read it: a kept, tilted base folded into its roots.
    let (ss, sc) = as_read(source.0.skeleton(source.1.index), source.2);
    let (ts, tc) = as_read(target.0.skeleton(target.1.index), target.2);
    let s = Rig {
        skeleton: &ss,
        map: &source.1.map,
        profile,
    };
    let t = Rig {
        skeleton: &ts,
        map: &target.1.map,
        profile,
    };
    effector_errors((&s, &sc), (&t, &tc), plan, options, times)
}

/// The clips of skeleton `index` named in `wanted` (all, when empty; companions never), in
/// model order.
fn chosen_clips<'a>(
    model: &'a Model,
    index: SkeletonId,
    wanted: &[String],
) -> Result<Vec<&'a Clip>, RetargetRunError> {
    let available: Vec<&Clip> = model
        .clips
        .iter()
        .filter(|c| c.skeleton == index && !c.name.ends_with(COMPANION_SUFFIX))
        .collect();
    if let Some(missing) = wanted
        .iter()
        .find(|n| !available.iter().any(|c| &c.name == *n))
    {
        return Err(RetargetRunError::NoClip {
            clip: missing.clone(),
            available: available.iter().map(|c| c.name.clone()).collect(),
        });
    }
    let chosen: Vec<&Clip> = available
        .into_iter()
        .filter(|c| wanted.is_empty() || wanted.contains(&c.name))
        .collect();
    if chosen.is_empty() {
        return Err(RetargetRunError::NoClips);
    }
    Ok(chosen)
}
