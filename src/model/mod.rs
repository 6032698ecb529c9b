//! The plain in-memory model every stage works on: skeletons (flat bones, parents before
//! children), their skins, and clips with typed tracks per bone.
//!
//! It also holds the math every stage shares: the one root-to-leaf pass that turns local values
//! into world values ([`Skeleton::accumulate`]) and the angle helpers ([`angle_deg`],
//! [`turn_deg`], [`arc`]), and the reflection of poses across a plane ([`Reflection`]).
//!
//! This module knows nothing of glTF or files and imports nothing else of this crate. Bones refer
//! to their source (a glTF node index) only as plain numbers so that reports can name them.

mod bind;
mod clip;
mod frames;
mod math;
mod pose;
mod reflect;
mod reread;
mod transform;
mod warning;

pub use bind::{blend, fold_bind, BindFold, SkinBind};
pub use clip::{
    BoneTracks, Channel, Clip, Curve, Interpolation, OpaqueKind, OpaqueTrack, Spans, Track,
    TrackValue,
};
pub use frames::{FrameRuns, Run, RunSampler, FRAMES_PER_RUN};
pub use reread::{drop_rereadable, has_dropped_keys, reread_clip, RereadableKeys};
/// A `HashMap` with rustc's FxHash, several times cheaper than the default SipHash on the
/// crate's own small keys (indices, the bits of numbers, a profile's words). For maps only
/// looked up in, never walked (what comes out must not depend on their order), and whose
/// stored keys no input chooses to collide.
pub(crate) type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;
pub use math::{angle_deg, arc, pole, turn_deg, yaw_of};
pub use pose::Pose;
pub use reflect::Reflection;
pub use transform::Transform;
pub use warning::{Warning, WarningCode};

use glam::{Mat4, Quat};
use serde::Serialize;

/// The largest extent of `points` along any axis (0 for none).
pub fn extent(points: &[glam::Vec3]) -> f32 {
    let lo = points
        .iter()
        .copied()
        .fold(glam::Vec3::INFINITY, glam::Vec3::min);
    let hi = points
        .iter()
        .copied()
        .fold(glam::Vec3::NEG_INFINITY, glam::Vec3::max);
    (hi - lo).max_element().max(0.0)
}

/// Index of a bone in [`Skeleton::bones`].
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
pub struct BoneId(pub u32);

impl BoneId {
    /// The index as `usize`, for indexing `Skeleton::bones`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Index of a skeleton in [`Model::skeletons`]; serializes as a plain number.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct SkeletonId(pub u32);

impl SkeletonId {
    /// The index as `usize`, for indexing `Model::skeletons`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for SkeletonId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// One bone of a skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// Display name; unnamed glTF nodes get `node<index>`.
    pub name: String,
    /// Parent bone; `None` for a root. A parent always has a smaller index.
    pub parent: Option<BoneId>,
    /// Rest transform, local to the parent bone (or to [`Skeleton::base`] for a root).
    pub rest: Transform,
    /// Whether the bone is a joint of a skin (it deforms a mesh), as opposed to a node that only
    /// connects joints or hangs below them (helpers, end sites).
    pub is_joint: bool,
    /// Whether some vertex carries weight on this bone: `Some(false)` for a joint no vertex
    /// uses (an IK or control bone) and for bones that are no joint; `None` when unknown
    /// (compressed mesh data, a skin no mesh uses, a model built in code).
    pub weighted: Option<bool>,
    /// Index of the glTF node this bone was read from, if any.
    pub node: Option<u32>,
}

/// Where a skeleton's declared humanoid bone map comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub enum DeclaredSource {
    /// The `VRM` extension (VRM 0.x).
    Vrm0,
    /// The `VRMC_vrm` extension (VRM 1.0).
    Vrm1,
    /// The `VRMC_vrm_animation` extension (VRMA).
    VrmAnimation,
}

/// A humanoid bone map the file itself declares: (bone id as the file names it, bone).
#[derive(Debug, Clone, PartialEq)]
pub struct DeclaredMap {
    /// Which extension declared it.
    pub source: DeclaredSource,
    /// Entries sorted by name, such as `("leftUpperArm", BoneId(12))`.
    pub bones: Vec<(String, BoneId)>,
}

/// A skin: which bones deform a mesh, with their inverse bind matrices.
#[derive(Debug, Clone, PartialEq)]
pub struct Skin {
    /// Name of the skin, possibly empty.
    pub name: String,
    /// The joints, in the skin's own joint order (what `JOINTS_0` indexes).
    pub joints: Vec<BoneId>,
    /// One inverse bind matrix per joint, mapping the mesh's bind space into the joint's space.
    pub inverse_bind_matrices: Vec<Mat4>,
    /// Index of the glTF skin this was read from, if any.
    pub source: Option<u32>,
    /// Per joint, the matrix `B_j` that moves the vertices this skin deforms into a new bind
    /// when the file is written: a vertex `v` weighted `w_j` becomes `Σ w_j · B_j · v` (normals,
    /// tangents and morph target deltas by the linear parts), and joint j's inverse bind matrix
    /// is written as `IBM_j · B_j⁻¹`, so every joint's skinning matrix `J · IBM` here keeps
    /// describing the same skin. Empty (the vertices stay as read) unless a stage sets it
    /// ([`fold_bind`]).
    pub bake: Vec<Mat4>,
    /// Why the vertices this skin deforms cannot be rewritten (a Draco-compressed primitive, a
    /// mesh also drawn without this skin), naming the mesh; `None` when they can, or when no
    /// mesh uses the skin.
    pub fixed_vertices: Option<String>,
    /// Whether no mesh uses this skin (as read): its bind then places nothing, and
    /// [`fold_bind`] makes it the rest.
    pub meshless: bool,
}

/// A node that is not a bone but hangs from one (a mesh, a prop, a camera): it follows the bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Attachment {
    /// Name of the node.
    pub name: String,
    /// The bone it hangs from.
    pub parent: BoneId,
    /// Its transform local to the bone.
    pub transform: Transform,
    /// Index of the glTF node, if any.
    pub node: Option<u32>,
}

/// A skeleton: a forest of bones stored flat, parents before children.
#[derive(Debug, Clone, PartialEq)]
pub struct Skeleton {
    /// Name (the armature node's name, or `skeleton <n>`).
    pub name: String,
    /// Bones, every parent before its children.
    pub bones: Vec<Bone>,
    /// Skins that use these bones.
    pub skins: Vec<Skin>,
    /// Non-bone nodes hanging from bones.
    pub attachments: Vec<Attachment>,
    /// World transform of the space the root bones live in: the product of the transforms of the
    /// nodes above the skeleton (an armature node with a 0.01 scale, a Z-up correction).
    pub base: Mat4,
    /// The glTF nodes above the skeleton, from the scene root down to the roots' parent.
    pub base_nodes: Vec<u32>,
    /// The humanoid bone map the file declares (VRM), if any.
    pub declared: Option<DeclaredMap>,
}

/// Everything skelnorm understands of a file: its skeletons and their clips.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Model {
    /// Skeletons, in a stable order (by their first node).
    pub skeletons: Vec<Skeleton>,
    /// Clips; each names the skeleton it animates.
    pub clips: Vec<Clip>,
    /// The file's named nodes that are not bones (meshes, armatures, attachments, cameras), so
    /// that stages renaming bones can keep names unique. Changing a name here renames the node.
    pub other_nodes: Vec<NodeName>,
    /// A turn the whole scene takes about its origin, relative to the file as read (identity
    /// then): writers turn every node the model does not place itself (meshes, cameras, nodes
    /// hanging from the scene) by it. Bones and attachments already include it. The rest fix
    /// sets it when it turns a character to face +Z.
    pub scene_turn: Quat,
    /// The turn the file's clients give the whole scene when they load it: 180° about +Y for a
    /// convention whose characters face −Z (VRM 0.x: three-vrm's `rotateVRM0`, UniVRM, the Godot
    /// VRM add-on), identity otherwise. The rest fix makes the character face +Z, T-posed, as
    /// those clients show it, so in the file it faces the other way. Readers set it; stages keep it.
    pub view_turn: Quat,
    /// Frames the file fixes in bones' spaces without a node of their own (VRM spring-bone
    /// colliders, the look-at origin), in the order the reader found them: they follow their
    /// bone as an [`Attachment`] does, and writers put them back where they came from.
    pub points: Vec<BonePoint>,
}

/// A frame fixed in a bone's space: a point (its translation), a length (its uniform scale) or
/// a direction (its rotation applied to +Y), whatever the file means by it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BonePoint {
    /// The skeleton of the bone.
    pub skeleton: SkeletonId,
    /// The bone whose space it is in.
    pub bone: BoneId,
    /// The frame, local to the bone.
    pub transform: Transform,
}

/// The name of a glTF node that is not a bone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeName {
    /// The glTF node index.
    pub node: u32,
    /// Its name.
    pub name: String,
}

impl Model {
    /// The skeleton `id`; panics when the model has no such skeleton (stages check their
    /// skeleton first, see [`Model::get_skeleton`]).
    pub fn skeleton(&self, id: SkeletonId) -> &Skeleton {
        &self.skeletons[id.index()]
    }

    /// The skeleton `id`, mutably; panics when the model has no such skeleton.
    pub fn skeleton_mut(&mut self, id: SkeletonId) -> &mut Skeleton {
        &mut self.skeletons[id.index()]
    }

    /// The skeleton `id`, or `None` when the model has no such skeleton.
    pub fn get_skeleton(&self, id: SkeletonId) -> Option<&Skeleton> {
        self.skeletons.get(id.index())
    }

    /// The ids of every skeleton, in order.
    pub fn skeleton_ids(&self) -> impl ExactSizeIterator<Item = SkeletonId> {
        (0..self.skeletons.len() as u32).map(SkeletonId)
    }

    /// Checks every skeleton and clip ([`Skeleton::validate`], [`Clip::validate`]).
    pub fn validate(&self) -> Vec<Problem> {
        let mut out: Vec<Problem> = self.skeletons.iter().flat_map(Skeleton::validate).collect();
        for clip in &self.clips {
            match self.get_skeleton(clip.skeleton) {
                Some(s) => out.extend(clip.validate(s)),
                None => out.push(Problem {
                    rule: 1,
                    message: format!(
                        "clip `{}`: skeleton {} does not exist",
                        clip.name, clip.skeleton
                    ),
                }),
            }
        }
        out
    }
}

/// A broken rule of a [`Skeleton`] or [`Clip`], numbered as on their `validate` methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Number of the rule that is broken.
    pub rule: u8,
    /// What is wrong, naming the bone, skin or track.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "rule {}: {}", self.rule, self.message)
    }
}

impl Skeleton {
    /// Whether bone `a` is a proper ancestor of bone `b`.
    pub fn is_ancestor(&self, a: BoneId, b: BoneId) -> bool {
        let mut at = self.bones[b.index()].parent;
        while let Some(p) = at {
            if p == a {
                return true;
            }
            at = self.bones[p.index()].parent;
        }
        false
    }

    /// Checks the rules of a valid skeleton and returns every broken one.
    ///
    /// 1. There is at least one bone.
    /// 2. Every parent exists and comes before its child.
    /// 3. Every rest transform is finite and its rotation is unit length (within 1e-3).
    /// 4. Every skin joint exists, and a skin has one finite inverse bind matrix per joint.
    /// 5. Every attachment hangs from an existing bone and has a finite transform.
    /// 6. `base` is finite and invertible.
    pub fn validate(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let mut bad = |rule, message: String| out.push(Problem { rule, message });
        if self.bones.is_empty() {
            bad(1, "skeleton has no bones".into());
        }
        for (i, bone) in self.bones.iter().enumerate() {
            if let Some(p) = bone.parent {
                if p.index() >= i {
                    bad(
                        2,
                        format!(
                            "bone `{}`: parent {} does not come before it",
                            bone.name, p.0
                        ),
                    );
                }
            }
            if let Err(why) = bone.rest.check() {
                bad(3, format!("bone `{}`: rest {why}", bone.name));
            }
        }
        for (s, skin) in self.skins.iter().enumerate() {
            if let Some(j) = skin.joints.iter().find(|j| j.index() >= self.bones.len()) {
                bad(4, format!("skin {s}: joint {} does not exist", j.0));
            }
            if skin.inverse_bind_matrices.len() != skin.joints.len() {
                bad(
                    4,
                    format!(
                        "skin {s}: {} inverse bind matrices for {} joints",
                        skin.inverse_bind_matrices.len(),
                        skin.joints.len()
                    ),
                );
            }
            if skin.inverse_bind_matrices.iter().any(|m| !m.is_finite()) {
                bad(4, format!("skin {s}: an inverse bind matrix is not finite"));
            }
        }
        for a in &self.attachments {
            if a.parent.index() >= self.bones.len() || a.transform.check().is_err() {
                bad(
                    5,
                    format!("attachment `{}`: bad parent or transform", a.name),
                );
            }
        }
        if !self.base.is_finite() || self.base.determinant().abs() < 1e-12 {
            bad(6, "base transform is not finite and invertible".into());
        }
        out
    }

    /// Looks a bone up by exact name.
    pub fn find(&self, name: &str) -> Option<BoneId> {
        self.bones
            .iter()
            .position(|b| b.name == name)
            .map(|i| BoneId(i as u32))
    }

    /// The children of every bone, in bone order.
    pub fn children(&self) -> Vec<Vec<BoneId>> {
        let mut children = vec![Vec::new(); self.bones.len()];
        for (i, bone) in self.bones.iter().enumerate() {
            if let Some(p) = bone.parent {
                children[p.index()].push(BoneId(i as u32));
            }
        }
        children
    }

    /// Size of the skeleton: the largest extent of its rest joint positions along any axis
    /// (scene units). The unit-free measures divide by it.
    pub fn height(&self) -> f32 {
        let ps: Vec<glam::Vec3> = self
            .rest_world()
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect();
        extent(&ps)
    }

    /// Standing height of the character: the extent of its rest joints along +Y in skeleton
    /// space, the up of a normalized rig (humanoid.md). math.md's retarget measures count in
    /// "the character's height": this, not [`Skeleton::height`], which on a T-posed character
    /// whose arm span is wider than it is tall (RobotExpressive, short legs) is the arm span.
    pub fn stature(&self) -> f32 {
        let (lo, hi) = self
            .rest_positions()
            .iter()
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), p| {
                (lo.min(p.y), hi.max(p.y))
            });
        (hi - lo).max(0.0)
    }

    /// Rest joint positions in the skeleton's space (below [`Skeleton::base`]).
    pub fn rest_positions(&self) -> Vec<glam::Vec3> {
        self.accumulate(
            Mat4::IDENTITY,
            self.bones.iter().map(|b| b.rest),
            |parent, local: Transform| parent * local.to_mat4(),
        )
        .iter()
        .map(|m| m.w_axis.truncate())
        .collect()
    }

    /// World (scene-space) rest matrices of every bone, including [`Skeleton::base`].
    pub fn rest_world(&self) -> Vec<Mat4> {
        let locals: Vec<Mat4> = self.bones.iter().map(|b| b.rest.to_mat4()).collect();
        self.to_world(&locals)
    }

    /// Turns local matrices (one per bone) into world matrices in one forward pass.
    pub fn to_world(&self, locals: &[Mat4]) -> Vec<Mat4> {
        self.accumulate(self.base, locals.iter().copied(), |parent, local| {
            parent * local
        })
    }

    /// The root-to-leaf pass, written once for every kind of transform (`Mat4`, `DMat4`, a
    /// similarity, a rotation with a position): bone `i`'s world value is
    /// `compose(parent's world value, locals[i])`, with `root` standing for the parent of a root
    /// bone (usually [`Skeleton::base`] or the identity). What composing means, normalizing
    /// included, is up to `compose`; it is called once per bone, in bone order, so it may also
    /// record or change things per bone.
    ///
    /// One pass suffices because parents come before their children (rule 2 of
    /// [`Skeleton::validate`]). `locals` gives one value per bone in bone order; the pass stops
    /// at the shorter of `locals` and the bones. (The single local-to-model job of
    /// ozz-animation.)
    pub fn accumulate<W: Copy, L>(
        &self,
        root: W,
        locals: impl IntoIterator<Item = L>,
        mut compose: impl FnMut(W, L) -> W,
    ) -> Vec<W> {
        let mut world: Vec<W> = Vec::with_capacity(self.bones.len());
        for (i, local) in locals.into_iter().take(self.bones.len()).enumerate() {
            let parent = self.parent_world(BoneId(i as u32), root, &world);
            world.push(compose(parent, local));
        }
        world
    }

    /// [`Skeleton::accumulate`] into `world` (one entry per bone, overwritten in bone order),
    /// allocating nothing: for passes repeated every frame.
    pub fn accumulate_into<W: Copy, L>(
        &self,
        root: W,
        locals: impl IntoIterator<Item = L>,
        world: &mut [W],
        mut compose: impl FnMut(W, L) -> W,
    ) {
        for (i, local) in locals.into_iter().take(self.bones.len()).enumerate() {
            world[i] = compose(self.parent_world(BoneId(i as u32), root, world), local);
        }
    }

    /// The world value of `bone`'s parent in `world` (indexed by bone), or `root` for a root
    /// bone: what `bone`'s local value composes with.
    pub fn parent_world<W: Copy>(&self, bone: BoneId, root: W, world: &[W]) -> W {
        self.bones[bone.index()]
            .parent
            .map_or(root, |p| world[p.index()])
    }

    /// Depth of each bone in the hierarchy (roots are 0).
    pub fn depths(&self) -> Vec<usize> {
        let mut depth = vec![0usize; self.bones.len()];
        for (i, bone) in self.bones.iter().enumerate() {
            if let Some(p) = bone.parent {
                depth[i] = depth[p.index()] + 1;
            }
        }
        depth
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use glam::{Quat, Vec3};

    /// A chain of `n` bones `b0`, `b1`, … one unit apart along +Y (for tests of any module).
    pub(crate) fn chain(n: usize) -> Skeleton {
        let bones = (0..n)
            .map(|i| Bone {
                name: format!("b{i}"),
                parent: i.checked_sub(1).map(|p| BoneId(p as u32)),
                rest: Transform::from_translation(Vec3::Y),
                is_joint: true,
                weighted: None,
                node: Some(i as u32),
            })
            .collect();
        Skeleton {
            name: "chain".into(),
            bones,
            skins: vec![],
            attachments: vec![],
            base: Mat4::IDENTITY,
            base_nodes: vec![],
            declared: None,
        }
    }

    #[test]
    fn world_is_product_of_locals() {
        let mut s = chain(3);
        s.bones[1].rest.rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let w = s.rest_world();
        let p = w[2].transform_point3(Vec3::ZERO);
        assert!((p - Vec3::new(-1.0, 2.0, 0.0)).length() < 1e-6, "{p}");
        assert!(s.validate().is_empty());
    }

    #[test]
    fn accumulate_composes_parents_first() {
        let mut s = chain(3);
        s.bones[2].parent = Some(BoneId(0));
        let w = s.accumulate(10, [1, 2, 3], |p, l| p * 10 + l);
        assert_eq!(w, vec![101, 1012, 1013]);
        let mut into = vec![0; 3];
        s.accumulate_into(10, [1, 2, 3], &mut into, |p, l| p * 10 + l);
        assert_eq!(into, w);
        assert_eq!(s.parent_world(BoneId(2), 10, &w), 101);
        assert_eq!(s.parent_world(BoneId(0), 10, &w), 10);
    }

    #[test]
    fn validate_numbers_rules() {
        let mut s = chain(2);
        s.bones[0].parent = Some(BoneId(1));
        s.bones[1].rest.rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
        let rules: Vec<u8> = s.validate().iter().map(|p| p.rule).collect();
        assert_eq!(rules, vec![2, 3]);
    }
}
