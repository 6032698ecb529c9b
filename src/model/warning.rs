//! One warning type for every stage: a stable code, a sentence for people, and what it concerns
//! (bones, clips, a chain). Reports carry them as they are; renderers use [`WarningCode::as_str`].

use serde::{Deserialize, Serialize};

/// What a warning is about: one code per situation, stable across versions (the JSON reports and
/// scripts match on [`WarningCode::as_str`]).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// Mapping: a required profile bone has no source bone.
    RequiredMissing,
    /// Mapping: left and right could not be told apart with confidence (or names and geometry
    /// disagree).
    AmbiguousSide,
    /// Mapping: two profile bones were given the same source bone (by a bone-map file).
    ClaimedTwice,
    /// Mapping: a mapped bone's profile parent maps to a source bone that is not its ancestor.
    ParentOrder,
    /// Mapping: a bone-map file or VRM extension names a bone that does not exist.
    UnknownBone,
    /// Mapping: a mapped bone does not hang below the bone its profile parent maps to, as in IK
    /// layouts (feet hanging from the root, legs from a `Body` bone above the hips); stages drive
    /// it from its chain.
    IkLayout,
    /// Mapping: no legs were found: the hips and spine were found from the arms and head, and the
    /// legs are left unmapped.
    UpperBody,
    /// Mapping: the rest shows no body (laid flat, collinear, folded to one point), so the
    /// bones were mapped on the first frame of a clip.
    RestFromFrame,
    /// Mapping: neither the rest nor a clip's first frame shows a body, so the bones were mapped
    /// by their names and the hierarchy alone.
    NamesOnly,
    /// Rest fix: the nodes above the skeleton were not folded in (non-uniform or negative scale,
    /// animated, or shared with another skeleton); the skeleton is normalized in their space.
    BaseNotFolded,
    /// Rest fix: a bone whose rest mirrors (a negative scale on some axes: a 3ds Max Biped
    /// nub) with no vertex weight on it and nothing hanging from it had the reflection folded
    /// out: its scale made positive in the rest and its keys, its inverse bind matrix to match,
    /// so every skinning matrix stays.
    MirrorFolded,
    /// Rest fix: a bone whose rest mirrors but whose reflection cannot be folded out exactly
    /// (vertex weights on it, bones hanging from it, or scale keys that change sign) is kept as
    /// it is, reflection and all, with every bone below it: their frames are not turned, and
    /// only the turns of the bones above carry them.
    MirrorKept,
    /// Rest fix: facing could not be found (no legs, arms or shoulders on both sides).
    NoFacing,
    /// Rest fix: the character was turned to face +Z inside its skeleton while the node above
    /// keeps the opposite turn (the scene could not turn as one), so in the scene it faces as
    /// before.
    SceneKept,
    /// Rest fix: a mapped bone has no tail target, so the silhouette fix skipped it.
    NoTail,
    /// Rest fix: the root's or hips' tail lies more than 90° from the profile's direction (a
    /// spine starting below the hips joint), so the silhouette fix skipped it (its +Y still
    /// points at the tail).
    TailReversed,
    /// Rest fix: bones with a non-uniform rest scale or scale keys turn their axes by quarter
    /// turns only (the silhouette fix still turns them), because no other change of frame
    /// keeps such bones exact; names them and how far mapped ones stay off the profile's frame.
    NonUniformScale,
    /// Rest fix: motion scale was asked for but the hips height is about 0.
    NoMotionScale,
    /// Retarget plan: a target chain has no mapped bones, or no source chain to take from: it
    /// keeps its rest.
    ChainUnmatched,
    /// Retarget plan: a target chain took the source chain of the closest name (profiles
    /// differ).
    ChainByFuzzyName,
    /// Retarget plan: IK was asked for but a side lacks the limb's bones.
    IkUnavailable,
    /// Retarget plan: a chain's bone hangs elsewhere (an IK layout): the target's follows the
    /// chain, the source's drives where it hangs, by its global change.
    Detached,
    /// Track stripping: translation tracks of non-position bones move their bones: they were
    /// kept.
    TranslationMotion,
    /// Track stripping: a clip lost every channel and was removed.
    ClipEmptied,
    /// Renaming: another skeleton's bone or armature holds the name: this one took a suffixed
    /// name.
    NameTaken,
    /// Normalizing: a skeleton was left as it is (it does not fit the profile, or another one was
    /// chosen).
    SkeletonSkipped,
    /// Mirroring: bones on one side (by their profile bone or name) have no counterpart on the
    /// other: they mirror in place.
    MirrorUnpaired,
    /// Mirroring: bones hang from a bone that is not their counterpart's parent's counterpart
    /// (a prop on one hand): their keys were resampled instead of mapped one to one.
    MirrorResampled,
    /// Reading: the glTF breaks a rule of the specification that the reader can live with.
    GltfInvalid,
    /// Reading: a primitive's skin weights cannot be read (compressed or malformed), so which
    /// joints carry weight is unknown.
    WeightsUnknown,
    /// Reading: a node's matrix has shear, which a translation, rotation and scale drop.
    MatrixShear,
    /// Reading FBX: something of the file was converted approximately or dropped (cameras,
    /// lights, unsupported deformers, ...).
    FbxNote,
    /// Reading BVH: no unit fits the skeleton's height: it was read as metres.
    BvhUnitUnknown,
    /// Reading BVH: a joint name was used twice: the later joint took a suffixed name.
    BvhRenamed,
    /// Rest fix: a skin keeps its bind because its vertices cannot be rewritten (a compressed
    /// or shared mesh): clients that build the rest from the inverse bind matrices show it apart.
    BindKept,
    /// Retargeting: the source's hips rest on the floor, its feet below it (a clip-only file):
    /// its rest was stood on its feet, the hips raised, so that the clip's moves read from
    /// standing.
    SourceStood,
}

impl WarningCode {
    /// The code as it appears in reports, such as `no_tail`.
    pub const fn as_str(self) -> &'static str {
        match self {
            WarningCode::RequiredMissing => "required_missing",
            WarningCode::AmbiguousSide => "ambiguous_side",
            WarningCode::ClaimedTwice => "claimed_twice",
            WarningCode::ParentOrder => "parent_order",
            WarningCode::UnknownBone => "unknown_bone",
            WarningCode::IkLayout => "ik_layout",
            WarningCode::UpperBody => "upper_body",
            WarningCode::RestFromFrame => "rest_from_frame",
            WarningCode::NamesOnly => "names_only",
            WarningCode::BaseNotFolded => "base_not_folded",
            WarningCode::NoFacing => "no_facing",
            WarningCode::SceneKept => "scene_kept",
            WarningCode::MirrorFolded => "mirror_folded",
            WarningCode::MirrorKept => "mirror_kept",
            WarningCode::NoTail => "no_tail",
            WarningCode::TailReversed => "tail_reversed",
            WarningCode::NonUniformScale => "non_uniform_scale",
            WarningCode::NoMotionScale => "no_motion_scale",
            WarningCode::ChainUnmatched => "chain_unmatched",
            WarningCode::ChainByFuzzyName => "chain_by_fuzzy_name",
            WarningCode::IkUnavailable => "ik_unavailable",
            WarningCode::Detached => "detached",
            WarningCode::TranslationMotion => "translation_motion",
            WarningCode::ClipEmptied => "clip_emptied",
            WarningCode::NameTaken => "name_taken",
            WarningCode::SkeletonSkipped => "skeleton_skipped",
            WarningCode::MirrorUnpaired => "mirror_unpaired",
            WarningCode::MirrorResampled => "mirror_resampled",
            WarningCode::GltfInvalid => "gltf_invalid",
            WarningCode::WeightsUnknown => "weights_unknown",
            WarningCode::MatrixShear => "matrix_shear",
            WarningCode::FbxNote => "fbx_note",
            WarningCode::BvhUnitUnknown => "bvh_unit_unknown",
            WarningCode::BvhRenamed => "bvh_renamed",
            WarningCode::BindKept => "bind_kept",
            WarningCode::SourceStood => "source_stood",
        }
    }
}

impl std::fmt::Display for WarningCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something the user should know about; the stage went on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Warning {
    /// What kind.
    pub code: WarningCode,
    /// A sentence for people.
    pub message: String,
    /// The skeleton concerned (its name), set where warnings of several skeletons are gathered
    /// (a file's report); stages leave it out.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub skeleton: Option<String>,
    /// The bones concerned (profile names for mapping; the skeleton's names elsewhere), if any.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub bones: Vec<String>,
    /// The clips concerned, if any.
    #[serde(skip_serializing_if = "Vec::is_empty", default)]
    pub clips: Vec<String>,
    /// The retarget chain concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub chain: Option<String>,
}

impl Warning {
    /// A warning about nothing in particular (no skeleton, bones, clips or chain).
    pub fn new(code: WarningCode, message: impl Into<String>) -> Warning {
        Warning {
            code,
            message: message.into(),
            skeleton: None,
            bones: Vec::new(),
            clips: Vec::new(),
            chain: None,
        }
    }

    /// The same warning, about the retarget chain `name`.
    pub fn on_chain(mut self, name: &str) -> Warning {
        self.chain = Some(name.to_string());
        self
    }

    /// The same warning, about the skeleton `name`.
    pub fn on_skeleton(mut self, name: &str) -> Warning {
        self.skeleton = Some(name.to_string());
        self
    }
}

impl std::fmt::Display for Warning {
    /// `code: message`, as text reports print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}
