//! Bone renaming: mapped bones take their profile names, so that clips bind by name across
//! characters; optionally the node above the bones (the armature) takes a fixed name, as
//! Godot's `GeneralSkeleton`. Node names stay unique: a node of this skeleton or a plain node
//! (mesh, camera) already holding a wanted name is moved aside (`Hips` → `Hips_2`); a name held by
//! another skeleton's bone or armature is left to it, and this skeleton's bone takes the suffixed
//! name instead, with a warning. Skins, clips and VRM extensions refer to nodes by index and stay
//! valid. Pure over the model; imports `model`, `profile` and `mapping`.

use crate::mapping::BoneMap;
use crate::model::{BoneId, Model, NodeName, SkeletonId, Warning, WarningCode};
use crate::profile::Profile;
use documented::DocumentedFields;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Options of [`rename`].
#[derive(
    Debug, Clone, Default, PartialEq, Serialize, Deserialize, DocumentedFields, schemars::JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct RenameOptions {
    /// Also give the node above the bones this name (Godot uses `GeneralSkeleton`), adding such
    /// a node when the bones hang straight from the scene. Default: None.
    pub skeleton_name: Option<String>,
}

/// One renamed node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Renamed {
    /// Its name before.
    pub from: String,
    /// Its name now.
    pub to: String,
}

/// What [`rename`] did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RenameReport {
    /// Mapped bones whose name changed.
    pub bones: Vec<Renamed>,
    /// Other nodes moved aside because they held a wanted name.
    pub moved_aside: Vec<Renamed>,
    /// The armature's new name, if it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<Renamed>,
    /// Names already taken elsewhere, with the suffixed names this skeleton took instead.
    pub warnings: Vec<Warning>,
}

/// Why [`rename`] changed nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenameError {
    /// The skeleton index does not exist.
    #[error("there is no skeleton {0}")]
    NoSkeleton(SkeletonId),
    /// The map was made for another skeleton.
    #[error("the bone map does not fit skeleton `{0}`")]
    MapMismatch(String),
    /// The skeleton name is empty.
    #[error("the skeleton name must not be empty")]
    EmptyName,
}

/// Something in the model that holds a node name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holder {
    Bone(SkeletonId, BoneId),
    Node(usize),
    /// A skeleton without a node above its bones (the writer adds one when it is named).
    Skeleton(SkeletonId),
}

/// The model's node names, counted, with the rules of who may be moved aside.
struct Names<'a> {
    model: &'a mut Model,
    k: SkeletonId,
    mapped: Vec<bool>,
    taken: HashMap<String, usize>,
}

impl Names<'_> {
    fn name(&self, h: Holder) -> &str {
        match h {
            Holder::Bone(j, b) => &self.model.skeleton(j).bones[b.index()].name,
            Holder::Node(i) => &self.model.other_nodes[i].name,
            Holder::Skeleton(j) => &self.model.skeleton(j).name,
        }
    }

    /// Renames `h`, keeping the counts and a skeleton's name equal to its armature's.
    fn set(&mut self, h: Holder, name: String) {
        let old = self.name(h).to_string();
        if let Some(n) = self.taken.get_mut(&old) {
            *n = n.saturating_sub(1);
        }
        *self.taken.entry(name.clone()).or_default() += 1;
        match h {
            Holder::Bone(j, b) => self.model.skeleton_mut(j).bones[b.index()].name = name,
            Holder::Node(i) => {
                let node = self.model.other_nodes[i].node;
                for s in &mut self.model.skeletons {
                    if s.base_nodes.last() == Some(&node) {
                        s.name = name.clone();
                    }
                }
                self.model.other_nodes[i].name = name;
            }
            Holder::Skeleton(j) => self.model.skeleton_mut(j).name = name,
        }
    }

    fn holders(&self, name: &str) -> Vec<Holder> {
        let mut out = Vec::new();
        for (j, s) in self.model.skeleton_ids().zip(&self.model.skeletons) {
            for (b, bone) in s.bones.iter().enumerate() {
                if bone.name == name {
                    out.push(Holder::Bone(j, BoneId(b as u32)));
                }
            }
        }
        for (i, n) in self.model.other_nodes.iter().enumerate() {
            if n.name == name {
                out.push(Holder::Node(i));
            }
        }
        out
    }

    /// Whether renaming may move `h` aside: this skeleton's unmapped bones and plain nodes
    /// (not another skeleton's armature).
    fn movable(&self, h: Holder) -> bool {
        match h {
            Holder::Bone(j, b) => j == self.k && !self.mapped[b.index()],
            Holder::Node(i) => {
                let node = self.model.other_nodes[i].node;
                !self
                    .model
                    .skeleton_ids()
                    .zip(&self.model.skeletons)
                    .any(|(j, s)| j != self.k && s.base_nodes.last() == Some(&node))
            }
            Holder::Skeleton(_) => false,
        }
    }

    /// `base_2`, `base_3`, … : the first name nothing holds.
    fn fresh(&self, base: &str) -> String {
        (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|c| self.taken.get(c).copied().unwrap_or(0) == 0)
            .expect("some suffix is free")
    }

    /// Gives `who` the name `wanted`: movable holders move aside; if an unmovable one holds it,
    /// `who` takes a suffixed name. Returns the name given.
    fn claim(&mut self, who: Holder, wanted: &str, aside: &mut Vec<Renamed>) -> String {
        if self.name(who) == wanted {
            return wanted.to_string();
        }
        let holders = self.holders(wanted);
        let name = if holders.iter().all(|&h| self.movable(h)) {
            for h in holders {
                let to = self.fresh(wanted);
                aside.push(Renamed {
                    from: wanted.to_string(),
                    to: to.clone(),
                });
                self.set(h, to);
            }
            wanted.to_string()
        } else {
            self.fresh(wanted)
        };
        self.set(who, name.clone());
        name
    }
}

/// Every reason [`rename`] has to refuse skeleton `k` of `model` (the first found): what it
/// checks before it changes anything. Stages before it do not change the answer.
pub(crate) fn check(
    model: &Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &RenameOptions,
) -> Result<(), RenameError> {
    let s = model.get_skeleton(k).ok_or(RenameError::NoSkeleton(k))?;
    if !map.fits(s, profile) {
        return Err(RenameError::MapMismatch(s.name.clone()));
    }
    if options
        .skeleton_name
        .as_deref()
        .is_some_and(|n| n.trim().is_empty())
    {
        return Err(RenameError::EmptyName);
    }
    Ok(())
}

/// Renames skeleton `k`'s mapped bones to their profile names (and its armature, when
/// `options.skeleton_name` is set). On error nothing changes.
pub fn rename(
    model: &mut Model,
    k: SkeletonId,
    map: &BoneMap,
    profile: &Profile,
    options: &RenameOptions,
) -> Result<RenameReport, RenameError> {
    check(model, k, map, profile, options)?;
    let s = model.skeleton(k);
    let mapped = (0..s.bones.len())
        .map(|b| map.profile_bone_of(BoneId(b as u32)).is_some())
        .collect();
    let armature = s.base_nodes.last().copied();
    let mut taken: HashMap<String, usize> = HashMap::new();
    for name in model
        .skeletons
        .iter()
        .flat_map(|s| s.bones.iter().map(|b| &b.name))
        .chain(model.other_nodes.iter().map(|n| &n.name))
    {
        *taken.entry(name.clone()).or_default() += 1;
    }
    let mut names = Names {
        model,
        k,
        mapped,
        taken,
    };
    let mut report = RenameReport {
        bones: Vec::new(),
        moved_aside: Vec::new(),
        skeleton: None,
        warnings: Vec::new(),
    };
    // Mapped bones give up their names first, so that swaps (a bone named `Chest` mapped to
    // Spine and one named `Spine` mapped to Chest) collide with nothing.
    let wanted: Vec<(BoneId, String)> = profile
        .ids()
        .filter_map(|p| map.get(p).map(|b| (b, profile.bone(p).name.clone())))
        .filter(|(b, name)| names.name(Holder::Bone(k, *b)) != name)
        .collect();
    let old: Vec<String> = wanted
        .iter()
        .map(|(b, _)| names.name(Holder::Bone(k, *b)).to_string())
        .collect();
    for (b, _) in &wanted {
        let placeholder = format!("\u{0}{}", b.0);
        names.set(Holder::Bone(k, *b), placeholder);
    }
    let mut taken_elsewhere = Vec::new();
    for ((b, name), from) in wanted.iter().zip(old) {
        let got = names.claim(Holder::Bone(k, *b), name, &mut report.moved_aside);
        if &got != name {
            taken_elsewhere.push(got.clone());
        }
        report.bones.push(Renamed { from, to: got });
    }
    if let Some(wanted) = &options.skeleton_name {
        let who = match armature {
            Some(node) => match names.model.other_nodes.iter().position(|n| n.node == node) {
                Some(i) => Holder::Node(i),
                None => {
                    // An unnamed armature node: give it an entry holding the skeleton's name.
                    let name = names.model.skeleton(k).name.clone();
                    names.model.other_nodes.push(NodeName {
                        node,
                        name: name.clone(),
                    });
                    *names.taken.entry(name).or_default() += 1;
                    Holder::Node(names.model.other_nodes.len() - 1)
                }
            },
            None => Holder::Skeleton(k),
        };
        let from = names.name(who).to_string();
        let got = names.claim(who, wanted, &mut report.moved_aside);
        if &got != wanted {
            taken_elsewhere.push(got.clone());
        }
        if got != from {
            report.skeleton = Some(Renamed { from, to: got });
        }
    }
    if !taken_elsewhere.is_empty() {
        report.warnings.push(Warning {
            code: WarningCode::NameTaken,
            skeleton: None,
            message: format!(
                "{} name(s) are held by another skeleton in the file, so this one took suffixed names",
                taken_elsewhere.len()
            ),
            bones: taken_elsewhere,
            clips: Vec::new(),
            chain: None,
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests;
