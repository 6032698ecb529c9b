//! Skeleton profiles: the bones a normalized skeleton has (names, parents, groups, which are
//! required, where each bone points, its reference rest), the chains retargeting works on, and
//! the words the auto-mapper looks for in bone names.
//!
//! Profiles are RON files (see `profiles/humanoid.ron`, which is built in). Loading validates
//! the whole file and reports every problem, naming the bone. This module imports only `model`.

mod file;
mod prefixes;
mod sides;
mod spec;

pub use prefixes::Prefixes;
pub use sides::counterpart_names;
pub(crate) use sides::words;
pub use spec::{BoneSpec, ChainSpec, MapperKind, Naming, ProfileFile, Side, TailSpec};

use crate::model::Transform;
use glam::{Quat, Vec3};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// The built-in humanoid profile, as shipped in `profiles/humanoid.ron`.
pub const HUMANOID_RON: &str = include_str!("../../profiles/humanoid.ron");

/// [`HUMANOID_RON`] as JSON, written by the build script from the [`ProfileFile`] it reads
/// (`build.rs`): the same file, parsed several times faster than RON (issue 19).
const HUMANOID_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/humanoid.json"));

/// The built-in humanoid profile, once built (see [`Profile::humanoid`]).
static HUMANOID: OnceLock<Profile> = OnceLock::new();

/// Builds the built-in humanoid profile from [`HUMANOID_JSON`].
fn built_in() -> Profile {
    // The built-in file is checked by this module's tests (its JSON gives the file RON gives);
    // it cannot fail at run time.
    let origin = "built-in humanoid profile";
    serde_json::from_str::<ProfileFile>(HUMANOID_JSON)
        .ok()
        .and_then(|spec| spec.validate().ok())
        .map_or_else(|| Profile::from_ron(HUMANOID_RON, origin), Ok)
        .expect("built-in profile is valid")
}

/// Index of a bone in [`Profile::bones`].
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, schemars::JsonSchema,
)]
pub struct ProfileBoneId(pub u32);

impl ProfileBoneId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A tail of a [body bone](Profile::body_bone) further than this from the profile's direction
/// does not count, degrees: the whole body hangs from those bones and already stands upright
/// facing +Z, so such a tail (a spine that starts below the hips joint) says nothing about how
/// they should turn. The rest fix leaves such bones alone and the checks leave them out. A tail
/// square to the profile's direction, give or take 10° (a rest laid flat along one axis, such as
/// the Bandai-Namco dataset's BVH, whose spine leaves the hips sideways), still counts: that
/// body does not stand, and the fix stands it up.
pub const MAX_TAIL_DEG: f32 = 100.0;

/// Where the profile's bone `pk` points: from its reference joint to the mean reference joint of
/// its tail bones `tails` (not normalized). `reference` is [`Profile::reference_positions`].
pub fn reference_tail(reference: &[Vec3], pk: ProfileBoneId, tails: &[ProfileBoneId]) -> Vec3 {
    tails.iter().map(|t| reference[t.index()]).sum::<Vec3>() / tails.len() as f32
        - reference[pk.index()]
}

/// What a bone points at in the rest pose (its tail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// The average of its mapped children's joints.
    Average,
    /// One named child (or descendant) bone's joint.
    Bone(ProfileBoneId),
    /// Nothing: the bone has no tail (a head, a tip).
    End,
}

/// One bone of a profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileBone {
    /// Name (`LeftUpperArm`).
    pub name: String,
    /// Parent; parents come before children.
    pub parent: Option<ProfileBoneId>,
    /// Group, for reports and pictures (`Body`, `Face`, `LeftHand`).
    pub group: String,
    /// Whether a skeleton must have this bone to fit the profile.
    pub required: bool,
    /// Which side of the body the bone is on.
    pub side: Side,
    /// What the bone points at.
    pub tail: Tail,
    /// Reference rest, local to the parent: origin in metres (directions matter, not lengths) and
    /// a unit rotation.
    pub reference: Transform,
    /// Name phrases (words separated by spaces) with a weight in 0..=1.
    pub names: Vec<(Vec<String>, f32)>,
    /// Lines (from one bone's joint to another's) that fix the bone's roll in the rest fix; the
    /// first whose bones are both mapped counts.
    pub roll: Vec<(ProfileBoneId, ProfileBoneId)>,
    /// Whether the rest fix keeps the bone's own pitch by default (feet).
    pub keep_pitch: bool,
}

/// A chain of bones for retargeting, from its start bone down to its end bone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// Name (`LeftArm`).
    pub name: String,
    /// Bones from start to end; each is a descendant of the one before.
    pub bones: Vec<ProfileBoneId>,
}

/// A validated profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Name (`humanoid`).
    pub name: String,
    /// The bone root motion lives on, if any.
    pub root: Option<ProfileBoneId>,
    /// The bone whose rest height scales motion (the hips), if any.
    pub scale_base: Option<ProfileBoneId>,
    /// Which auto-mapper suits the profile.
    pub mapper: MapperKind,
    /// Bones, parents before children.
    pub bones: Vec<ProfileBone>,
    /// Chains for retargeting.
    pub chains: Vec<Chain>,
    /// Words for the name matcher.
    pub naming: Naming,
    /// The prefix patterns of `naming`, compiled (case-insensitive).
    pub prefixes: Prefixes,
    /// The synonym rules of `naming` as word lists, longest first.
    pub synonym_rules: Vec<(Vec<String>, Vec<String>)>,
    /// Every word the profile's names and naming rules know (for splitting glued side letters
    /// such as `lhand`).
    pub vocabulary: std::collections::HashSet<String>,
}

/// A profile file that could not be loaded; lists every problem found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {}", problems.join("; "))]
pub struct ProfileError {
    /// The file (or `built-in humanoid`).
    pub origin: String,
    /// What is wrong, each naming the bone or chain.
    pub problems: Vec<String>,
}

impl Profile {
    /// The built-in humanoid profile (Godot's SkeletonProfileHumanoid).
    pub fn humanoid() -> &'static Profile {
        HUMANOID.get_or_init(built_in)
    }

    /// The built-in humanoid profile, owned (what [`Profile::humanoid`] gives, cloned). The first
    /// call in a process builds it afresh rather than building the shared one and copying it
    /// (issue 20: a command that resolves its settings once need not pay for both); later
    /// calls copy the shared one.
    pub fn humanoid_owned() -> Profile {
        static ASKED: AtomicBool = AtomicBool::new(false);
        match HUMANOID.get() {
            Some(p) => p.clone(),
            None if !ASKED.swap(true, Ordering::Relaxed) => built_in(),
            None => Profile::humanoid().clone(),
        }
    }

    /// Reads and validates a profile file.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ProfileError {
            origin: origin.clone(),
            problems: vec![format!("cannot read: {e}")],
        })?;
        Profile::from_ron(&text, &origin)
    }

    /// Parses and validates profile text; `origin` names it in errors.
    pub fn from_ron(text: &str, origin: &str) -> Result<Profile, ProfileError> {
        let spec: ProfileFile = ron::from_str(text).map_err(|e| ProfileError {
            origin: origin.into(),
            problems: vec![format!("not a valid profile: {e}")],
        })?;
        spec.validate().map_err(|problems| ProfileError {
            origin: origin.into(),
            problems,
        })
    }

    /// Looks a bone up by name.
    pub fn find(&self, name: &str) -> Option<ProfileBoneId> {
        self.bones
            .iter()
            .position(|b| b.name == name)
            .map(|i| ProfileBoneId(i as u32))
    }

    /// The bone with this id.
    pub fn bone(&self, id: ProfileBoneId) -> &ProfileBone {
        &self.bones[id.index()]
    }

    /// Ids of all bones, in order.
    pub fn ids(&self) -> impl Iterator<Item = ProfileBoneId> {
        (0..self.bones.len() as u32).map(ProfileBoneId)
    }

    /// Global (character-space) reference rotation of every bone: the product of the local
    /// reference rotations from the root down.
    pub fn reference_rotations(&self) -> Vec<Quat> {
        let mut out: Vec<Quat> = Vec::with_capacity(self.bones.len());
        for b in &self.bones {
            let parent = b.parent.map_or(Quat::IDENTITY, |p| out[p.index()]);
            out.push((parent * b.reference.rotation).normalize());
        }
        out
    }

    /// Global (character-space) reference joint positions.
    pub fn reference_positions(&self) -> Vec<Vec3> {
        let rotations = self.reference_rotations();
        let mut out: Vec<Vec3> = Vec::with_capacity(self.bones.len());
        for b in &self.bones {
            let p = match b.parent {
                Some(p) => out[p.index()] + rotations[p.index()] * b.reference.translation,
                None => b.reference.translation,
            };
            out.push(p);
        }
        out
    }

    /// Whether `pk` carries the whole body (the profile's root or scale base, the hips).
    pub fn body_bone(&self, pk: ProfileBoneId) -> bool {
        self.root == Some(pk) || self.scale_base == Some(pk)
    }

    /// The children of a bone, in profile order.
    pub fn children(&self, id: ProfileBoneId) -> impl Iterator<Item = ProfileBoneId> + '_ {
        self.ids().filter(move |&c| self.bone(c).parent == Some(id))
    }

    /// Whether `ancestor` is `bone` or one of its ancestors.
    pub fn is_ancestor(&self, ancestor: ProfileBoneId, bone: ProfileBoneId) -> bool {
        let mut at = Some(bone);
        while let Some(b) = at {
            if b == ancestor {
                return true;
            }
            at = self.bone(b).parent;
        }
        false
    }
}

#[cfg(test)]
mod tests;
