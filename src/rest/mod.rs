//! The rest fix: turns a mapped skeleton's rest into the profile's T-pose facing +Z, with each
//! mapped bone's +Y pointing at its child, while every animated frame, the skin and attached
//! meshes look exactly as before. Implements steps 1–6 of `math.md`:
//!
//! 1. fold the nodes above the skeleton (0.01 scales, axis swaps) into it, and turn a character
//!    that faces −Z or sideways so that it faces +Z: the whole scene turns with it (recorded in
//!    [`Model::scene_turn`]), or, keeping the scene's transform, the node above the skeleton
//!    keeps the opposite turn;
//! 2. silhouette: rotate mapped bones about their joints so they point where the profile's
//!    bones point (with a second line fixing the roll of hands and hips; feet keep their pitch),
//!    carrying along the next joint of a chain that hangs elsewhere (an IK layout's foot), after
//!    giving every changed bone a one-key track of its old rest where a clip lacked one;
//! 3. overwrite axes: mapped bones take the profile's global rest rotation (+Y at their tail;
//!    bones with a non-uniform scale by quarter turns only), unmapped bones keep their global
//!    rotation, joints stay where they are;
//! 4. convert every key exactly (all interpolations, tangents included);
//! 5. fix inverse bind matrices and attached nodes;
//! 6. optionally divide root and hips translation keys by the hips height;
//! 7. move each skin's bind into the skeleton's space, or with `rebind` into the new rest
//!    ([`crate::model::fold_bind`]), for the writer to bake into the vertices.
//!
//! Pure over the model; imports `model`, `profile` and `mapping`.

mod convert;
mod lanes;
mod pose;
mod restore;
mod sim;

pub use restore::{carry_back, KeyMap, RestoreError};

use crate::mapping::BoneMap;
use crate::model::{fold_bind, Clip, Model, Problem, Skeleton, SkeletonId, SkinBind, Warning};
use crate::profile::Profile;
use serde::{Deserialize, Serialize};

/// What the rest fix does. Every field has a documented default and a `normalize` flag.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Serialize,
    Deserialize,
    documented::DocumentedFields,
    schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct RestOptions {
    /// Fold the transforms of the nodes above the skeleton (a 0.01 scale, a Z-up rotation)
    /// into its bones, keys and skin, so the skeleton lives in scene space in metres.
    /// Default: true.
    pub apply_node_transforms: bool,
    /// Turn a character that faces −Z (VRM 0.x) or sideways so that it faces +Z. The whole
    /// scene turns with it (meshes, cameras, other nodes), leaving identity transforms on the
    /// nodes above the skeleton, unless `keep_scene_transform`. Default: true.
    pub fix_facing: bool,
    /// Keep the scene as it was: turn the character inside its skeleton and give the node
    /// above the skeleton the opposite turn, so it faces +Z in its own space but in the scene
    /// it faces as before, and that node carries a transform. Default: false.
    pub keep_scene_transform: bool,
    /// Rotate mapped bones at rest so they point where the profile's bones point (A-pose →
    /// T-pose). Keys are not changed by this, so animated frames still match; the mesh at rest
    /// moves into the T-pose. Default: true.
    pub fix_silhouette: bool,
    /// Bones whose direction differs from the profile's by at most this angle are left alone
    /// by the silhouette fix, in degrees. 0 aligns every mapped bone exactly, so two normalized
    /// rigs correspond exactly; Godot uses 15. Default: 0.
    pub silhouette_threshold_deg: f32,
    /// Profile bones (such as `LeftFoot`) the silhouette fix leaves alone. Default: none.
    pub silhouette_skip: Vec<String>,
    /// Align feet fully with the profile (flat, toes forward) instead of keeping their own
    /// pitch and turning only their yaw. Default: false.
    pub flatten_feet: bool,
    /// Give mapped bones the profile's global rest rotation (unmapped bones always keep
    /// theirs). Default: true.
    pub overwrite_axes: bool,
    /// Divide the root and hips translation keys by the hips height and record that height in
    /// the clip (`extras.skelnorm.motion_scale`), so root motion is proportional to leg length.
    /// This changes how the clip plays on this skeleton alone. Default: false.
    pub motion_scale: bool,
    /// Make the bind pose the new rest: the vertices of every skinned mesh are baked into the
    /// T-pose by linear blend skinning and the inverse bind matrices come from the new rest, so
    /// clients that build the rest from the inverse bind matrices (Blender) show the T-pose.
    /// Not exact where a vertex has several joints (the report gives the largest vertex
    /// displacement). Off, the mesh keeps its bind shape, moved exactly into the skeleton's
    /// space (upright, in metres, facing +Z). Default: false.
    pub rebind: bool,
    /// Leave every skin's bind as the file had it: vertex data untouched, inverse bind
    /// matrices changed only by the bones' change of frame, so each joint's skinning matrix
    /// (`J · IBM`) stays the same at every frame. Clients that build their rest from the binds
    /// (Blender) then show the original bind (its units, axes and facing). Excludes `rebind`.
    /// Default: false.
    pub keep_bind: bool,
}

impl Default for RestOptions {
    fn default() -> Self {
        RestOptions {
            apply_node_transforms: true,
            fix_facing: true,
            keep_scene_transform: false,
            fix_silhouette: true,
            silhouette_threshold_deg: 0.0,
            silhouette_skip: Vec::new(),
            flatten_feet: false,
            overwrite_axes: true,
            motion_scale: false,
            rebind: false,
            keep_bind: false,
        }
    }
}

/// Why the rest fix refused a skeleton; nothing was changed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RestError {
    /// There is no skeleton with this index.
    #[error("skeleton {0} does not exist")]
    NoSkeleton(SkeletonId),
    /// The map was made for another skeleton or profile.
    #[error("the bone map does not fit skeleton `{0}` and the profile")]
    MapMismatch(String),
    /// The skeleton or one of its clips breaks a model rule.
    #[error("skeleton `{skeleton}` is not valid: {}", problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Invalid {
        /// The skeleton.
        skeleton: String,
        /// Every broken rule.
        problems: Vec<Problem>,
    },
    /// A bone's rest has a zero scale on some axis (a hidden bone), which no T-pose can
    /// represent. (A mirrored bone, negative on some axes, is folded or kept.)
    #[error(
        "bone `{bone}`: rest scale {scale:?} has a zero axis, so its rest cannot be normalized"
    )]
    Scale {
        /// The bone.
        bone: String,
        /// Its local rest scale.
        scale: [f32; 3],
    },
    /// An option names a bone the profile does not have.
    #[error("silhouette_skip: the profile has no bone `{0}`")]
    UnknownBone(String),
    /// `rebind` and `keep_bind` were both asked for.
    #[error(
        "rebind and keep_bind exclude each other: the bind is either made the new rest or kept"
    )]
    BindOptions,
}

/// What the rest fix did to one bone.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BoneRest {
    /// The bone's name.
    pub bone: String,
    /// The profile bone it is mapped to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Rotation the silhouette fix gave the bone at rest, degrees.
    pub silhouette_deg: f32,
    /// Angle between the bone's old and new global rest frames, degrees.
    pub axes_deg: f32,
}

/// What the nodes above the skeleton did and what became of them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BaseFold {
    /// Whether they were folded into the skeleton.
    pub folded: bool,
    /// Their scale (0.01 for centimetre exports), the first axis's if not uniform.
    pub scale: f32,
    /// Their rotation, degrees.
    pub rotation_deg: f32,
}

/// What the rest fix did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RestReport {
    /// The nodes above the skeleton.
    pub base: BaseFold,
    /// Turn about +Y that made the character face +Z, degrees (0, 90, 180 or -90).
    pub facing_turn_deg: f32,
    /// Whether the whole scene took that turn (true), or only the skeleton, inside a node that
    /// keeps the opposite turn (false).
    pub scene_turned: bool,
    /// Rotation and translation tracks added (one key holding the old rest) so clips keep
    /// their pose.
    pub complemented_tracks: usize,
    /// Hips height the root and hips translation keys were divided by, metres.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motion_scale: Option<f32>,
    /// Per bone, in skeleton order.
    pub bones: Vec<BoneRest>,
    /// What the fix skipped or limited (base not folded, no facing, no tail, …), with the bone or clip.
    pub warnings: Vec<Warning>,
    /// Per skin, the bind its mesh moves into when written (step 7).
    pub bind: Vec<SkinBind>,
    /// How keys were converted, to convert clips back ([`carry_back`]).
    #[serde(skip)]
    pub keys: KeyMap,
    /// The rotation of the space the new rest was made in (and is to be judged in, see
    /// `check::rest_in`), applied to the space the roots live in: the scene's, or,
    /// keeping the scene's transform, the skeleton's own space, where it faces +Z.
    #[serde(skip)]
    pub frame: glam::Quat,
}

/// Normalizes the rest of skeleton `skeleton` of `model` (and converts its clips) with the bone
/// map `map` to `profile`. Checks everything first: on error the model is unchanged.
pub fn fix_rest(
    model: &mut Model,
    skeleton: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &RestOptions,
) -> Result<RestReport, RestError> {
    check(model, skeleton, map, profile, options)?;
    Ok(fix_rest_checked(model, skeleton, map, profile, options))
}

/// [`fix_rest`] once [`check`] passed with the same arguments: it cannot fail.
pub(crate) fn fix_rest_checked(
    model: &mut Model,
    skeleton: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &RestOptions,
) -> RestReport {
    let mut folded = fold_mirrored_ends(model, skeleton);
    let (kept, why) = mirrored_kept(model, skeleton);
    folded.extend(why);
    let plan = pose::plan(model, skeleton, map, profile, options, kept);
    let mut report = convert::apply(model, skeleton, plan, options);
    report.warnings.extend(folded);
    if !options.keep_bind {
        let bind = fold_bind(model.skeleton_mut(skeleton), options.rebind);
        report.bind = bind.skins;
        report.warnings.extend(bind.warnings);
    }
    report
}

/// Every reason [`fix_rest`] has to refuse skeleton `k` (the first found): what it checks
/// before it changes anything.
pub(crate) fn check(
    model: &Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &RestOptions,
) -> Result<(), RestError> {
    let s = model.get_skeleton(k).ok_or(RestError::NoSkeleton(k))?;
    let mut problems = s.validate();
    problems.extend(validate_clips(model, k, s));
    if !problems.is_empty() {
        return Err(RestError::Invalid {
            skeleton: s.name.clone(),
            problems,
        });
    }
    if !map.fits(s, profile) {
        return Err(RestError::MapMismatch(s.name.clone()));
    }
    if let Some(b) = s
        .bones
        .iter()
        .find(|b| b.rest.scale.abs().min_element() == 0.0)
    {
        return Err(RestError::Scale {
            bone: b.name.clone(),
            scale: b.rest.scale.to_array(),
        });
    }
    if let Some(n) = options
        .silhouette_skip
        .iter()
        .find(|n| profile.find(n).is_none())
    {
        return Err(RestError::UnknownBone(n.clone()));
    }
    if options.rebind && options.keep_bind {
        return Err(RestError::BindOptions);
    }
    Ok(())
}

/// The bones of skeleton `k` whose rest mirrors (a negative scale on some axes, none zero) and
/// that nothing shows: no vertex weight on them, no child bone or attached node, and scale keys,
/// if any, with the rest's signs in every clip. 3ds Max Biped exports give such nubs a scale of
/// −1. Folding the reflection out of them changes no skinning matrix ([`fold_mirrored_ends`]).
fn mirrored_ends(model: &Model, k: SkeletonId) -> Vec<crate::model::BoneId> {
    let Some(s) = model.get_skeleton(k) else {
        return Vec::new();
    };
    let signs = |v: glam::Vec3| v.cmplt(glam::Vec3::ZERO);
    (0..s.bones.len())
        .filter(|&i| {
            let b = &s.bones[i];
            let scale = b.rest.scale;
            // Most bones stop here: only a mirrored, unweighted bone is looked at further.
            if scale.min_element() >= 0.0
                || scale.abs().min_element() == 0.0
                || b.weighted != Some(false)
            {
                return false;
            }
            let hangs = s
                .bones
                .iter()
                .any(|c| c.parent.is_some_and(|p| p.index() == i))
                || s.attachments.iter().any(|a| a.parent.index() == i);
            let keys_agree = model.clips.iter().filter(|c| c.skeleton == k).all(|c| {
                c.tracks[i].scale.as_ref().is_none_or(|t| {
                    t.values
                        .iter()
                        .all(|v| v.min_element() != 0.0 && signs(*v) == signs(scale))
                })
            });
            !hangs && keys_agree
        })
        .map(|i| crate::model::BoneId(i as u32))
        .collect()
}

/// Folds the reflection out of skeleton `k`'s [`mirrored_ends`]: each one's rest scale and scale
/// keys take their absolute values, and its inverse bind matrices are multiplied by the same
/// signs on the left, so that `J · IBM` stays the same at every frame. A warning names each.
fn fold_mirrored_ends(model: &mut Model, k: SkeletonId) -> Vec<Warning> {
    let ids = mirrored_ends(model, k);
    let mut warnings = Vec::new();
    for id in ids {
        let s = model.skeleton_mut(k);
        let was = s.bones[id.index()].rest.scale;
        let signs = was.signum();
        s.bones[id.index()].rest.scale = was.abs();
        for skin in &mut s.skins {
            for (j, ibm) in skin.joints.iter().zip(&mut skin.inverse_bind_matrices) {
                if *j == id {
                    *ibm = glam::Mat4::from_scale(signs) * *ibm;
                }
            }
        }
        let name = s.bones[id.index()].name.clone();
        for clip in model.clips.iter_mut().filter(|c| c.skeleton == k) {
            if let Some(t) = &mut clip.tracks[id.index()].scale {
                t.values = t.values.iter().map(|v| *v * signs).collect();
            }
        }
        let mut warning = Warning::new(
            crate::model::WarningCode::MirrorFolded,
            format!(
                "bone `{name}`: its rest mirrored (scale {:?}) with nothing weighted on it or \
                     hanging from it; the reflection was folded out (scale made positive)",
                was.to_array()
            ),
        );
        warning.bones = vec![name];
        warnings.push(warning);
    }
    warnings
}

/// The bones of skeleton `k` that mirror (a negative axis in the rest scale or in a scale key)
/// and that [`fold_mirrored_ends`] cannot fold: rather than refusing the file (Blender imports
/// it), they keep their frames and keys as they are, reflection and all, and so does every
/// bone below them, whose frames the reflection would make inexact to turn. Gives, per bone, whether it is kept, and a
/// warning naming each mirrored bone and why it could not be folded.
fn mirrored_kept(model: &Model, k: SkeletonId) -> (Vec<bool>, Vec<Warning>) {
    let s = model.skeleton(k);
    let clips: Vec<&Clip> = model.clips.iter().filter(|c| c.skeleton == k).collect();
    let negative = |v: &glam::Vec3| v.min_element() < 0.0;
    let mut kept = vec![false; s.bones.len()];
    let mut warnings = Vec::new();
    for (i, b) in s.bones.iter().enumerate() {
        let keys = clips.iter().any(|c| {
            c.tracks[i]
                .scale
                .as_ref()
                .is_some_and(|t| t.values.iter().any(negative))
        });
        let below = b.parent.is_some_and(|p| kept[p.index()]);
        kept[i] = below || negative(&b.rest.scale) || keys;
        if below || !kept[i] {
            continue;
        }
        let mut warning = Warning::new(
            crate::model::WarningCode::MirrorKept,
            format!(
                "bone `{}`: it mirrors (rest scale {:?}) and {}, so the reflection cannot be \
                 folded out exactly; it and the bones below it keep their frames as they were, \
                 carried only by the turns of the bones above",
                b.name,
                b.rest.scale.to_array(),
                why_not_folded(s, &clips, i)
            ),
        );
        warning.bones = vec![b.name.clone()];
        warnings.push(warning);
    }
    (kept, warnings)
}

/// Why mirrored bone `i` of `s` is not one of [`mirrored_ends`] (`clips`: the skeleton's).
fn why_not_folded(s: &Skeleton, clips: &[&Clip], i: usize) -> String {
    let b = &s.bones[i];
    let mut why = Vec::new();
    match b.weighted {
        Some(true) => why.push("vertices are weighted on it"),
        None => why.push("its vertex weights are unknown"),
        Some(false) => {}
    }
    if s.bones
        .iter()
        .any(|c| c.parent.is_some_and(|p| p.index() == i))
        || s.attachments.iter().any(|a| a.parent.index() == i)
    {
        why.push("something hangs from it");
    }
    let signs = |v: &glam::Vec3| v.cmplt(glam::Vec3::ZERO);
    if clips.iter().any(|c| {
        c.tracks[i]
            .scale
            .as_ref()
            .is_some_and(|t| t.values.iter().any(|v| signs(v) != signs(&b.rest.scale)))
    }) {
        why.push("its scale keys' signs differ from its rest's");
    }
    if why.is_empty() {
        why.push("a scale key of it is zero on some axis");
    }
    why.join(" and ")
}

/// The problems of the clips of skeleton `k` (`s`), in clip order.
fn validate_clips(model: &Model, k: SkeletonId, s: &Skeleton) -> Vec<Problem> {
    model
        .clips
        .iter()
        .filter(|c| c.skeleton == k)
        .flat_map(|c| c.validate(s))
        .collect()
}

#[cfg(test)]
mod tests;
