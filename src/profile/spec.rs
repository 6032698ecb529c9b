//! The profile file format as written (RON): plain serde types, which the build script also
//! reads (`build.rs` turns the built-in `profiles/humanoid.ron` into JSON, which parses faster),
//! so this file imports only serde.

use serde::{Deserialize, Serialize};

/// A profile file as written: bones refer to each other by name.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileFile {
    /// Name of the profile.
    pub name: String,
    /// The bone root motion lives on.
    #[serde(default)]
    pub root: Option<String>,
    /// The bone whose rest height scales motion.
    #[serde(default)]
    pub scale_base: Option<String>,
    /// Which auto-mapper suits the profile.
    #[serde(default)]
    pub mapper: MapperKind,
    /// Bones, parents before children.
    pub bones: Vec<BoneSpec>,
    /// Chains for retargeting.
    #[serde(default)]
    pub chains: Vec<ChainSpec>,
    /// Words for the name matcher.
    #[serde(default)]
    pub naming: Naming,
}

/// One bone as written in a profile file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoneSpec {
    /// Unique name.
    pub name: String,
    /// Parent bone's name; it must come earlier in the list.
    #[serde(default)]
    pub parent: Option<String>,
    /// Group for reports.
    #[serde(default = "body")]
    pub group: String,
    /// Whether a skeleton must have it.
    #[serde(default)]
    pub required: bool,
    /// Side of the body.
    #[serde(default)]
    pub side: Side,
    /// What the bone points at.
    #[serde(default)]
    pub tail: TailSpec,
    /// Reference origin local to the parent, metres.
    #[serde(default)]
    pub origin: (f32, f32, f32),
    /// Reference rotation local to the parent (x, y, z, w); must be unit length within 1e-3.
    #[serde(default = "identity")]
    pub rotation: (f32, f32, f32, f32),
    /// Name phrases with weights in 0..=1, for the name matcher.
    #[serde(default)]
    pub names: Vec<(String, f32)>,
    /// Second lines fixing the bone's roll in the rest fix, each from one bone's joint to
    /// another's (the knuckle line of a hand, the left–right line of the hips); the first whose
    /// two bones are both mapped is used. Both bones must be at or below this bone.
    #[serde(default)]
    pub roll: Vec<(String, String)>,
    /// The rest fix keeps this bone's own pitch and only turns its yaw (feet), unless asked to
    /// align it fully.
    #[serde(default)]
    pub keep_pitch: bool,
}

fn body() -> String {
    "Body".into()
}

fn identity() -> (f32, f32, f32, f32) {
    (0.0, 0.0, 0.0, 1.0)
}

/// A bone's tail as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TailSpec {
    /// The average of its children.
    #[default]
    Average,
    /// A named descendant.
    Bone(String),
    /// No tail.
    End,
}

/// Side of the body. Left is +X when the character faces +Z.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    /// On the midline.
    #[default]
    Center,
    /// The character's left.
    Left,
    /// The character's right.
    Right,
}

/// Which auto-mapper suits a profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MapperKind {
    /// Names and hierarchy only (any profile).
    #[default]
    Names,
    /// The humanoid mapper: finds legs, spine, arms and fingers from hierarchy and geometry,
    /// with names as evidence. Needs the humanoid profile's bone names.
    Humanoid,
}

/// A chain as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainSpec {
    /// The chain's name, unique in the profile (`LeftArm`); retarget settings refer to it.
    pub name: String,
    /// Bones from start to end.
    pub bones: Vec<String>,
}

/// The words the name matcher knows. All comparisons are case-insensitive.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Naming {
    /// Regexes removed from the start of a name before it is split into words.
    pub prefixes: Vec<String>,
    /// Words with no meaning (`joint`, `bone`).
    pub noise: Vec<String>,
    /// Words marking helper, IK, control or twist bones, which are never mapped.
    pub helpers: Vec<String>,
    /// Words marking secondary bones (twist, roll), mapped only when nothing else fits.
    pub secondary: Vec<String>,
    /// Words marking end bones (tips, end sites), which are never mapped.
    pub ends: Vec<String>,
    /// Words marking a bone inside the palm (a metacarpal).
    pub palm: Vec<String>,
    /// Words meaning "left".
    pub left: Vec<String>,
    /// Words meaning "right".
    pub right: Vec<String>,
    /// Word sequences replaced by others (`thigh` -> `upper leg`).
    pub synonyms: Vec<(String, String)>,
}
