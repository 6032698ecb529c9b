//! Mirroring clips left ↔ right across the character's own sagittal plane.
//!
//! Each bone takes its counterpart's motion, reflected: bones mapped to a left or right profile
//! bone pair through the profile (`LeftHand` ↔ `RightHand`), other bones by the side marker in
//! their names (`hand.L` ↔ `hand.R`, `hand_l` ↔ `hand_r`, `mixamorig:LeftHandIndex4` ↔
//! `mixamorig:RightHandIndex4`, `LThumb` ↔ `RThumb`), and the rest (spine, head, props) mirror in
//! place. The plane's normal is the skeleton's left–right axis, found from the rest positions of
//! the pairs (snapped to an axis of the skeleton's space when close) or given. Root motion is
//! mirrored across the plane through the root's rest joint.
//!
//! Work happens in the skeleton's space on global rotations relative to each bone's own rest,
//! so any rest works, normalized or not: see [`Mirror`] for the math and what is exact. Mirroring
//! twice gives the clip back. Channels the model does not interpret (morph weights, other nodes)
//! are not mirrored.
//!
//! [`mirror`] is the stage over a model; [`Mirror`] mirrors single poses at run time without
//! allocating. The pairing is `mapping`'s [`Symmetry`](crate::mapping::Symmetry), the math
//! `model`'s [`Reflection`](crate::model::Reflection), both shared with the retarget stack's
//! `Mirror` op. This module imports `model`, `profile` and `mapping`.

mod clip;
mod pose;
#[cfg(test)]
mod tests;

pub use crate::mapping::MirrorAxis;
pub use crate::profile::counterpart_names;
pub use clip::mirror_clip;
pub use pose::Mirror;

use crate::mapping::BoneMap;
use crate::model::{BoneId, Model, SkeletonId, Warning, WarningCode};
use crate::profile::Profile;
use serde::Serialize;

/// Options of [`mirror`].
#[derive(Debug, Clone, PartialEq)]
pub struct MirrorOptions {
    /// Clips of the skeleton to mirror, by name; all of them when empty.
    pub clips: Vec<String>,
    /// `None`: the mirrored clips replace the originals (same name, same place in the file,
    /// other channels such as morph weights kept). `Some(s)`: they are added beside them, named
    /// `<clip><s>` (bone channels only).
    pub suffix: Option<String>,
    /// The plane's normal.
    pub axis: MirrorAxis,
    /// With [`MirrorAxis::Auto`], a found normal within this many degrees of an axis of the
    /// skeleton's space is snapped to it (rigs are built with their left–right axis on an axis;
    /// rest poses are seldom exactly symmetric). In 0..45.
    pub snap_deg: f32,
}

impl Default for MirrorOptions {
    fn default() -> Self {
        MirrorOptions {
            clips: Vec::new(),
            suffix: None,
            axis: MirrorAxis::Auto,
            snap_deg: 5.0,
        }
    }
}

/// Why mirroring changed nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MirrorError {
    /// The model has no such skeleton.
    #[error("there is no skeleton {0} (the file has {1})")]
    NoSkeleton(SkeletonId, usize),
    /// The bone map is not a map of this skeleton to this profile.
    #[error("skeleton `{skeleton}`: the bone map does not fit it")]
    MapMismatch {
        /// The skeleton.
        skeleton: String,
    },
    /// A clip asked for is not a clip of the skeleton.
    #[error("no clip `{clip}` (it has: {})", available.join(", "))]
    NoClip {
        /// The name asked for.
        clip: String,
        /// The skeleton's clips.
        available: Vec<String>,
    },
    /// A mirrored clip's name (with the suffix) is a clip already.
    #[error("already has a clip `{0}`; choose another suffix")]
    ClipTaken(String),
    /// A clip breaks a rule of a valid clip.
    #[error("clip `{clip}`: {problem}")]
    BadClip {
        /// The clip.
        clip: String,
        /// The first broken rule.
        problem: String,
    },
    /// No bone pair to find the left–right axis from.
    #[error(
        "skeleton `{skeleton}`: no left/right bone pair to find the sagittal plane from \
         (give the axis)"
    )]
    NoPlane {
        /// The skeleton.
        skeleton: String,
    },
    /// An option is out of range.
    #[error("{0}")]
    BadOption(String),
    /// A pose has the wrong number of bones.
    #[error("a pose has {got} bones, the skeleton {want}")]
    PoseSize {
        /// Bones in the pose.
        got: usize,
        /// Bones in the skeleton.
        want: usize,
    },
}

/// One mirrored clip.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MirroredClip {
    /// The clip mirrored.
    pub clip: String,
    /// The mirrored clip's name (the same when it replaced the original).
    pub output: String,
    /// Bones whose keys were resampled (the hierarchy is not symmetric there), by name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resampled: Vec<String>,
    /// Channels of the original that are not bone channels (morph weights, other nodes): kept
    /// unmirrored when the clip is replaced, left out of a clip added beside it.
    pub other_channels: usize,
}

/// What mirroring did to one skeleton.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct MirrorReport {
    /// The skeleton.
    pub skeleton: String,
    /// The plane's unit normal in the skeleton's space.
    pub normal: [f32; 3],
    /// Whether the normal found was snapped to an axis.
    pub snapped: bool,
    /// Bone pairs found through the profile.
    pub mapped_pairs: usize,
    /// Bone pairs found by the side markers in names.
    pub named_pairs: usize,
    /// Bones mirrored in place (center bones, and side bones without a counterpart).
    pub in_place: usize,
    /// Every pair, left bone then right bone, by name.
    pub pairs: Vec<[String; 2]>,
    /// Largest distance of a rest joint from the reflection of its counterpart's rest joint,
    /// divided by the skeleton's size (over bones where the hierarchy is symmetric, see
    /// [`Mirror::is_symmetric`]): 0 for a symmetric rest, where every mirrored joint lands
    /// exactly on the reflection of its counterpart's; otherwise joints may be off by about this
    /// much.
    pub rest_asymmetry: f32,
    /// The clips mirrored.
    pub clips: Vec<MirroredClip>,
    /// Problems found.
    pub warnings: Vec<Warning>,
}

/// Mirrors clips of skeleton `k` of `model` (those `options.clips` names, or all), replacing
/// them or adding the mirrored clips beside them. On error the model is unchanged.
pub fn mirror(
    model: &mut Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &MirrorOptions,
) -> Result<MirrorReport, MirrorError> {
    let skeleton = model
        .get_skeleton(k)
        .ok_or(MirrorError::NoSkeleton(k, model.skeletons.len()))?;
    let chosen = choose(model, k, options)?;
    for &c in &chosen {
        if let Some(p) = model.clips[c].validate(skeleton).first() {
            return Err(MirrorError::BadClip {
                clip: model.clips[c].name.clone(),
                problem: p.to_string(),
            });
        }
    }
    let m = Mirror::new(skeleton, map, profile, options)?;
    let motion_bones: Vec<BoneId> = [profile.root, profile.scale_base]
        .into_iter()
        .flatten()
        .filter_map(|pk| map.get(pk))
        .collect();
    let mut clips = Vec::with_capacity(chosen.len());
    let mut resampled_any = Vec::new();
    let mut outputs = Vec::with_capacity(chosen.len());
    for &c in &chosen {
        let original = &model.clips[c];
        let (mut out, resampled) = mirror_clip(&m, skeleton, original, &motion_bones);
        swap_sided_curves(&mut out.curves, profile);
        let names = resampled
            .iter()
            .map(|b| skeleton.bones[b.index()].name.clone());
        let output = match &options.suffix {
            Some(suffix) => format!("{}{suffix}", original.name),
            None => original.name.clone(),
        };
        let report = MirroredClip {
            clip: original.name.clone(),
            output: output.clone(),
            resampled: names.collect(),
            other_channels: original.opaque.len(),
        };
        resampled_any.extend(resampled);
        clips.push(report);
        if options.suffix.is_some() {
            out.name = output;
            out.source = None;
            out.opaque.clear();
        }
        outputs.push((c, out));
    }
    for (c, out) in outputs {
        if options.suffix.is_some() {
            model.clips.push(out);
        } else {
            model.clips[c] = out;
        }
    }
    let skeleton = model.skeleton(k);
    let mut warnings: Vec<Warning> = m.symmetry.unpaired_warning(skeleton).into_iter().collect();
    resampled_any.sort();
    resampled_any.dedup();
    if !resampled_any.is_empty() {
        let mut w = Warning::new(
            WarningCode::MirrorResampled,
            format!(
                "{} bone(s) hang from a bone that is not their counterpart's parent's \
                 counterpart (a prop on one side, a side bone without counterpart): their keys \
                 were resampled at the key times above them",
                resampled_any.len()
            ),
        );
        w.bones = resampled_any
            .iter()
            .map(|b| skeleton.bones[b.index()].name.clone())
            .collect();
        warnings.push(w);
    }
    let sym = &m.symmetry;
    Ok(MirrorReport {
        skeleton: skeleton.name.clone(),
        normal: m.normal().to_array(),
        snapped: m.snapped,
        mapped_pairs: sym.mapped_pairs,
        named_pairs: sym.named_pairs,
        in_place: (0..skeleton.bones.len())
            .filter(|&i| sym.counterpart[i].index() == i)
            .count(),
        pairs: (0..skeleton.bones.len())
            .filter(|&i| sym.side[i] == crate::profile::Side::Left)
            .map(|i| {
                let name = |b: usize| skeleton.bones[b].name.clone();
                [name(i), name(sym.counterpart[i].index())]
            })
            .collect(),
        rest_asymmetry: m.rest_asymmetry,
        clips,
        warnings,
    })
}

/// Float curves that name a side (`FootLock_L`, `LeftFootContact`) trade keys with the curve
/// that names the other (`FootLock_R`), as the bones do: a mirrored clip's left foot is locked
/// when the original's right foot was. Names stay where they are; a curve without a counterpart
/// among the clip's curves, or naming no side, is kept as it is.
fn swap_sided_curves(curves: &mut [crate::model::Curve], profile: &Profile) {
    for i in 0..curves.len() {
        let Some((crate::profile::Side::Left, others)) =
            counterpart_names(&curves[i].name, profile)
        else {
            continue;
        };
        let found = others
            .iter()
            .find_map(|o| curves.iter().position(|c| &c.name == o));
        if let Some(j) = found.filter(|&j| j != i) {
            let (low, high) = curves.split_at_mut(i.max(j));
            std::mem::swap(&mut low[i.min(j)].track, &mut high[0].track);
        }
    }
}

/// Indices of the clips of skeleton `k` that `options` chooses; errors for names that are not
/// its clips and for suffixed names already taken.
fn choose(
    model: &Model,
    k: SkeletonId,
    options: &MirrorOptions,
) -> Result<Vec<usize>, MirrorError> {
    let own: Vec<usize> = (0..model.clips.len())
        .filter(|&c| model.clips[c].skeleton == k)
        .collect();
    let chosen: Vec<usize> = if options.clips.is_empty() {
        own.clone()
    } else {
        let mut out = Vec::with_capacity(options.clips.len());
        for name in &options.clips {
            let found = own.iter().copied().find(|&c| model.clips[c].name == *name);
            match found {
                Some(c) if !out.contains(&c) => out.push(c),
                Some(_) => {}
                None => {
                    return Err(MirrorError::NoClip {
                        clip: name.clone(),
                        available: own.iter().map(|&c| model.clips[c].name.clone()).collect(),
                    })
                }
            }
        }
        out
    };
    if let Some(suffix) = &options.suffix {
        let mut taken: Vec<String> = model.clips.iter().map(|c| c.name.clone()).collect();
        for &c in &chosen {
            let name = format!("{}{suffix}", model.clips[c].name);
            if taken.contains(&name) {
                return Err(MirrorError::ClipTaken(name));
            }
            taken.push(name);
        }
    }
    Ok(chosen)
}
