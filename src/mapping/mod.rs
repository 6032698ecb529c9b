//! Mapping a skeleton's bones to a profile's bones.
//!
//! [`map_skeleton`] combines, in order of precedence: a bone-map file's entries
//! ([`BoneMapFile`]), the humanoid map a VRM/VRMA file declares (a VRM bone it leaves out stays
//! unmapped), bones that carry the profile's
//! own names where the hierarchy agrees (a normalized skeleton maps to itself), and the
//! auto-mapper, which scores candidates on names, hierarchy, rest-pose geometry and skin data
//! and then picks one consistent assignment for the whole skeleton. The result is deterministic, and every mapped
//! bone carries a confidence and a short reason. [`Symmetry`] pairs a mapped skeleton's bones left
//! with right for mirroring. This module imports `model` and `profile`.

mod aim;
mod by_name;
mod exact;
mod fallback;
mod file;
mod generic;
mod humanoid;
pub mod names;
mod report;
mod symmetry;
mod vrm;

pub use file::{BoneMapFile, BoneMapFileError};
pub use report::{MapReport, MappedReport};
pub use symmetry::{MirrorAxis, Symmetry};

#[cfg(test)]
pub(crate) mod testing;

use crate::model::{
    BoneId, DeclaredMap, Model, Pose, Skeleton, SkeletonId, Transform, Warning, WarningCode,
};
use crate::profile::{MapperKind, Profile, ProfileBoneId, Tail};
use serde::Serialize;

/// Options of [`map_skeleton`].
#[derive(Debug, Clone, Default)]
pub struct MapOptions {
    /// Entries that win over everything else (from `--bone-map`).
    pub overrides: Option<BoneMapFile>,
    /// Ignore the humanoid map a VRM/VRMA extension declares and auto-map instead.
    pub ignore_declared: bool,
}

/// How a bone came to be mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A bone-map file said so.
    Override,
    /// The file's VRM humanoid extension said so.
    Declared,
    /// The auto-mapper chose it.
    Auto,
}

/// One mapped profile bone.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Mapped {
    /// The source bone.
    pub bone: BoneId,
    /// How sure the mapper is, 0..=1.
    pub confidence: f32,
    /// Where the decision came from.
    pub origin: Origin,
    /// A short reason, such as `name "LeftForeArm"; 2nd bone of the left arm`.
    pub reason: String,
}

/// The mapping of one skeleton to a profile.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneMap {
    /// One entry per profile bone, in profile order.
    pub entries: Vec<Option<Mapped>>,
    /// Problems found.
    pub warnings: Vec<Warning>,
}

impl BoneMap {
    /// Whether this map can be a map of `skeleton` to `profile`: one entry per profile bone, every
    /// mapped bone inside the skeleton. Stages refuse maps that do not fit.
    pub fn fits(&self, skeleton: &Skeleton, profile: &Profile) -> bool {
        self.entries.len() == profile.bones.len()
            && self
                .entries
                .iter()
                .flatten()
                .all(|m| m.bone.index() < skeleton.bones.len())
    }

    /// The source bone mapped to a profile bone.
    pub fn get(&self, id: ProfileBoneId) -> Option<BoneId> {
        self.entries[id.index()].as_ref().map(|m| m.bone)
    }

    /// The source bone mapped to the profile bone of this name.
    pub fn by_name(&self, profile: &Profile, name: &str) -> Option<BoneId> {
        profile.find(name).and_then(|id| self.get(id))
    }

    /// The profile bone a source bone is mapped to, if any.
    pub fn profile_bone_of(&self, bone: BoneId) -> Option<ProfileBoneId> {
        self.entries
            .iter()
            .position(|e| e.as_ref().is_some_and(|m| m.bone == bone))
            .map(|i| ProfileBoneId(i as u32))
    }

    /// Required profile bones with no source bone.
    pub fn missing_required(&self, profile: &Profile) -> Vec<ProfileBoneId> {
        profile
            .ids()
            .filter(|&id| profile.bone(id).required && self.get(id).is_none())
            .collect()
    }

    /// The profile bones whose mapped joints make `id`'s tail (what the bone points at): its
    /// tail bone if mapped, else the nearest mapped bone down every child branch of the
    /// profile. `None` when the bone has no tail or some branch has no mapped bone (so
    /// `UpperChest` needs the neck and both shoulders, or the bones below them).
    pub fn tail_bones(&self, profile: &Profile, id: ProfileBoneId) -> Option<Vec<ProfileBoneId>> {
        match profile.bone(id).tail {
            Tail::End => None,
            Tail::Bone(b) if self.get(b).is_some() => Some(vec![b]),
            _ => {
                let mut out = Vec::new();
                for c in profile.children(id) {
                    let found = self.nearest_mapped(profile, c);
                    if found.is_empty() {
                        return None;
                    }
                    out.extend(found);
                }
                (!out.is_empty()).then_some(out)
            }
        }
    }

    /// [`BoneMap::tail_bones`] when every one of them hangs below the bone `id` maps to, so
    /// that turning the bone carries its tail along; `None` otherwise (in IK layouts a shin's
    /// foot may hang from the root).
    pub fn attached_tail_bones(
        &self,
        skeleton: &Skeleton,
        profile: &Profile,
        id: ProfileBoneId,
    ) -> Option<Vec<ProfileBoneId>> {
        let b = self.get(id)?;
        let tails = self.tail_bones(profile, id)?;
        tails
            .iter()
            .all(|&t| self.get(t).is_some_and(|tb| skeleton.is_ancestor(b, tb)))
            .then_some(tails)
    }

    fn nearest_mapped(&self, profile: &Profile, id: ProfileBoneId) -> Vec<ProfileBoneId> {
        if self.get(id).is_some() {
            return vec![id];
        }
        profile
            .children(id)
            .flat_map(|c| self.nearest_mapped(profile, c))
            .collect()
    }

    /// Source bones no profile bone maps to, in bone order.
    pub fn unmapped_source(&self, skeleton: &Skeleton) -> Vec<BoneId> {
        let mut used = vec![false; skeleton.bones.len()];
        for m in self.entries.iter().flatten() {
            used[m.bone.index()] = true;
        }
        (0..skeleton.bones.len() as u32)
            .map(BoneId)
            .filter(|b| !used[b.index()])
            .collect()
    }
}

/// Maps a skeleton's bones to a profile. Never fails: what cannot be mapped is left unmapped
/// and reported in [`BoneMap::warnings`] (a missing required bone is a
/// [`WarningCode::RequiredMissing`] warning; callers decide whether that is an error).
///
/// The humanoid mapper reads the body from the rest. Where the rest cannot decide (it finds no
/// hips in it, or the rest lies along one line or at one point), names and the hierarchy map
/// the skeleton alone ([`by_name`]). [`map_in_model`] first tries the pose of a clip's first
/// frame. See [`fallback`].
pub fn map_skeleton(skeleton: &Skeleton, profile: &Profile, options: &MapOptions) -> BoneMap {
    map_posed(skeleton, None, profile, options)
}

/// [`map_skeleton`] for skeleton `k` of `model`, where a rest that cannot decide takes its
/// geometry from the first frame of the skeleton's first clip (a BVH whose offsets all lie
/// along one axis, its pose only in the frames), with a [`WarningCode::RestFromFrame`]
/// warning; where that frame cannot decide either, names and the hierarchy map it alone.
pub fn map_in_model(
    model: &Model,
    k: SkeletonId,
    profile: &Profile,
    options: &MapOptions,
) -> BoneMap {
    let skeleton = model.skeleton(k);
    let frame = model
        .clips
        .iter()
        .find(|c| c.skeleton == k && c.validate(skeleton).is_empty())
        .map(|c| {
            let time = c.sample_times(None).first().copied().unwrap_or(0.0);
            (c.name.as_str(), Pose::sample(skeleton, c, time).locals)
        });
    map_posed(skeleton, frame, profile, options)
}

/// The rest's map; when it cannot decide ([`fallback`]), the map of `frame` (a clip's name and the local
/// transforms of its first frame), and then the map by names alone.
fn map_posed(
    skeleton: &Skeleton,
    frame: Option<(&str, Vec<Transform>)>,
    profile: &Profile,
    options: &MapOptions,
) -> BoneMap {
    let mut map = fallback::map_undecided(skeleton, frame, profile, options);
    if let Some(declared) = declared(skeleton, options) {
        // Names may fill a map whose rest cannot decide: not with bones the file leaves out.
        for id in vrm::undeclared(declared, profile) {
            let e = &mut map.entries[id.index()];
            if e.as_ref().is_some_and(|m| m.origin != Origin::Override) {
                *e = None;
            }
        }
    }
    check(&mut map, skeleton, profile);
    map
}

/// The humanoid map the skeleton's file declares, unless the options ignore it.
fn declared<'a>(skeleton: &'a Skeleton, options: &MapOptions) -> Option<&'a DeclaredMap> {
    skeleton
        .declared
        .as_ref()
        .filter(|_| !options.ignore_declared)
}

/// The map of `skeleton` as its rest shows it: bone-map file, declared map, exact names, then
/// the auto-mapper (without the warnings of [`check`]).
pub(super) fn map_geometry(
    skeleton: &Skeleton,
    profile: &Profile,
    options: &MapOptions,
) -> BoneMap {
    map_with(skeleton, profile, options, true)
}

/// [`map_geometry`], or with `auto` false only what a bone-map file, a declared map and exact
/// names fix (for a rest whose geometry means nothing).
pub(super) fn map_with(
    skeleton: &Skeleton,
    profile: &Profile,
    options: &MapOptions,
    auto: bool,
) -> BoneMap {
    let mut warnings = Vec::new();
    let mut fixed: Vec<Option<Mapped>> = vec![None; profile.bones.len()];
    let mut forced_empty = vec![false; profile.bones.len()];
    if let Some(o) = &options.overrides {
        o.apply(
            skeleton,
            profile,
            &mut fixed,
            &mut forced_empty,
            &mut warnings,
        );
    }
    if let Some(declared) = declared(skeleton, options) {
        vrm::apply(
            declared,
            skeleton,
            profile,
            &mut fixed,
            &forced_empty,
            &mut warnings,
        );
        for id in vrm::undeclared(declared, profile) {
            forced_empty[id.index()] |= fixed[id.index()].is_none();
        }
    }
    let info: Vec<names::NameInfo> = skeleton
        .bones
        .iter()
        .map(|b| names::analyze(&b.name, profile))
        .collect();
    exact::apply(skeleton, profile, &info, &mut fixed, &forced_empty);
    let mut entries = match profile.mapper {
        _ if !auto => vec![None; profile.bones.len()],
        MapperKind::Humanoid if humanoid::fits(profile) => humanoid::map(
            skeleton,
            profile,
            info,
            &fixed,
            &forced_empty,
            &mut warnings,
        ),
        _ => generic::map(skeleton, profile, &fixed, &forced_empty),
    };
    for (i, f) in fixed.into_iter().enumerate() {
        if let Some(f) = f {
            for e in entries.iter_mut() {
                if e.as_ref().is_some_and(|m| m.bone == f.bone) {
                    *e = None;
                }
            }
            entries[i] = Some(f);
        } else if forced_empty[i] {
            entries[i] = None;
        }
    }
    BoneMap { entries, warnings }
}

/// Adds the warnings every map gets: required bones missing, parents out of order.
fn check(map: &mut BoneMap, skeleton: &Skeleton, profile: &Profile) {
    for id in map.missing_required(profile) {
        let name = &profile.bone(id).name;
        map.warnings.push(Warning {
            code: WarningCode::RequiredMissing,
            skeleton: None,
            message: format!("required bone `{name}` has no source bone"),
            bones: vec![name.clone()],
            clips: Vec::new(),
            chain: None,
        });
    }
    let ik_layout: Vec<String> = map
        .warnings
        .iter()
        .filter(|w| w.code == WarningCode::IkLayout)
        .flat_map(|w| w.bones.iter().cloned())
        .collect();
    for id in profile.ids() {
        let Some(b) = map.get(id) else { continue };
        if ik_layout.contains(&profile.bone(id).name) {
            continue;
        }
        let mut up = profile.bone(id).parent;
        while let Some(p) = up {
            if let Some(pb) = map.get(p) {
                if !skeleton.is_ancestor(pb, b) {
                    let (n, pn) = (&profile.bone(id).name, &profile.bone(p).name);
                    map.warnings.push(Warning {
                        code: WarningCode::ParentOrder,
                        skeleton: None,
                        message: format!(
                            "`{n}` maps to `{}`, which is not below `{}` (mapped to `{pn}`)",
                            skeleton.bones[b.index()].name,
                            skeleton.bones[pb.index()].name
                        ),
                        bones: vec![n.clone()],
                        clips: Vec::new(),
                        chain: None,
                    });
                }
                break;
            }
            up = profile.bone(p).parent;
        }
    }
}

/// Which bones a mapper may map at all: not named as helpers or ends, and no end site (a node
/// that is no skin joint, in a skinned skeleton, with no such bone among its children).
/// A node below a skin joint whose name names a profile bone outright (score 0.9 or more) is
/// no end site: 3ds Max exports leave Biped bones that no vertex uses out of the skin
/// (businessMan's `Bip001 L Hand`, hellFire's `Bip001 L Calf`, `Foot`, `Toe0`), yet they are
/// that bone (issue 43). Nodes above the skin (a control rig's `Root`) stay as they were.
/// Weightless tip joints are dropped per finger by the humanoid mapper.
pub(crate) fn mappable(
    skeleton: &Skeleton,
    profile: &Profile,
    info: &[names::NameInfo],
    children: &[Vec<BoneId>],
) -> Vec<bool> {
    let n = skeleton.bones.len();
    let skinned = skeleton.bones.iter().any(|b| b.is_joint);
    let layers = rigify_layers(skeleton);
    let mut out = vec![false; n];
    for i in (0..n).rev() {
        let named_out = info[i].helper || info[i].end || layers.as_ref().is_some_and(|l| !l[i]);
        let has_child = children[i].iter().any(|c| out[c.index()]);
        let named = below_joint(skeleton, i) && names_profile_bone(profile, &info[i]);
        let end_site = skinned && !skeleton.bones[i].is_joint && !has_child && !named;
        out[i] = !named_out && !end_site;
    }
    out
}

/// Rigify's generated rigs (issue 43) name their layers: `DEF-` bones deform, `ORG-` bones
/// carry the metarig's bones, `MCH-` bones are mechanism, unprefixed bones are controls
/// (`torso`, `hips`, `chest`, `thigh_fk.L`). Where a skeleton has `DEF-` bones and `ORG-` or
/// `MCH-` bones, the deform layer wins: which bones may be mapped, namely `DEF-` bones, `ORG-`
/// bones with no `DEF-` twin (Rigify's eyes, `ORG-eye.L`) and top bones with no prefix (the
/// `root` control, hanging from no joint). `None` for any other skeleton.
fn rigify_layers(skeleton: &Skeleton) -> Option<Vec<bool>> {
    let has = |p: &str| skeleton.bones.iter().any(|b| b.name.starts_with(p));
    if !has("DEF-") || !(has("ORG-") || has("MCH-")) {
        return None;
    }
    let names: std::collections::HashSet<&str> =
        skeleton.bones.iter().map(|b| b.name.as_str()).collect();
    let layer = |b: &crate::model::Bone| {
        if b.name.starts_with("DEF-") {
            return true;
        }
        if let Some(stem) = b.name.strip_prefix("ORG-") {
            return !names.contains(format!("DEF-{stem}").as_str());
        }
        let top = b.parent.is_none_or(|p| !skeleton.bones[p.index()].is_joint);
        top && !b.name.starts_with("MCH-")
    };
    Some(skeleton.bones.iter().map(layer).collect())
}

/// Whether some ancestor of bone `i` is a skin joint.
fn below_joint(skeleton: &Skeleton, i: usize) -> bool {
    let mut at = skeleton.bones[i].parent;
    while let Some(p) = at {
        if skeleton.bones[p.index()].is_joint {
            return true;
        }
        at = skeleton.bones[p.index()].parent;
    }
    false
}

/// Whether a name names some profile bone outright (a name score of 0.9 or more).
fn names_profile_bone(profile: &Profile, info: &names::NameInfo) -> bool {
    profile.bones.iter().any(|b| names::score(b, info) >= 0.9)
}

#[cfg(test)]
mod tests;
