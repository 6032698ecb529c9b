//! BVH (Biovision hierarchy) motion-capture text ↔ the [`model`](crate::model).
//!
//! A sibling of `gltf_io` and the only module that knows BVH. [`read`] turns one BVH file (one
//! hierarchy, one motion) into a [`Model`] with one skeleton and one clip, in metres and Y-up
//! like glTF, plus what `inspect` should state about the file ([`BvhInfo`]: the unit guessed or
//! given, the scale applied, frames, frame time, rotation orders). [`write`] turns a skeleton and
//! one of its clips into BVH text. Neither touches files; both work on strings. Imports only
//! `model`.
//!
//! BVH conventions used here:
//! - The rotation channels of a joint, listed left to right, compose as
//!   `R = R_first · R_second · R_third` (intrinsic rotations in listed order), angles in degrees.
//!   This is what Blender's importer does (`io_anim_bvh/import_bvh.py` builds
//!   `Euler(bvh_rot, rot_order_str[::-1])`, and a Blender euler of order `"XYZ"` is the matrix
//!   `Rz · Ry · Rx`, so the reversed listed order gives the listed product).
//! - Position channels give the joint's whole local translation: on the root and on any other
//!   joint they replace the `OFFSET` (Blender's importer subtracts the rest head from them).
//! - An `End Site` becomes a leaf bone named `<parent>_end` that is no skin joint.
//! - Bone scale cannot be expressed in BVH: [`write`] refuses it.

mod error;
mod parse;
mod read;
mod write;

#[cfg(test)]
mod tests;

pub use error::BvhError;
pub use read::read;
pub use write::{write, write_moving_base};

use crate::model::Model;
use serde::Serialize;

/// Largest number of joints (end sites included) a BVH file may declare.
pub const MAX_BONES: usize = 65_536;

/// Options of [`read`].
#[derive(Debug, Clone, PartialEq)]
pub struct BvhOptions {
    /// Metres per file unit; `None` guesses the unit from the skeleton's rest height
    /// ([`LengthUnit::guess`]). The CLI's `--bvh-scale`.
    pub scale: Option<f32>,
    /// Name of the clip (the CLI passes the file stem).
    pub clip_name: String,
}

impl Default for BvhOptions {
    fn default() -> Self {
        BvhOptions {
            scale: None,
            clip_name: "motion".into(),
        }
    }
}

/// Options of [`write`].
#[derive(Debug, Clone, PartialEq)]
pub struct BvhWriteOptions {
    /// Rotation channel order written on every joint.
    pub order: RotationOrder,
    /// Frames per second to sample the clip at; `None` uses the clip's own key rate when every
    /// track is keyed at the same uniform rate, else 30.
    pub fps: Option<f32>,
    /// File units per model unit: 1 writes metres, 100 centimetres.
    pub scale: f32,
}

impl Default for BvhWriteOptions {
    fn default() -> Self {
        BvhWriteOptions {
            order: RotationOrder::Zxy,
            fps: None,
            scale: 1.0,
        }
    }
}

/// An order of the three rotation channels, as listed in `CHANNELS`; `Zxy` means
/// `Zrotation Xrotation Yrotation`, the matrix `Rz · Rx · Ry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[allow(missing_docs, reason = "the six orders name themselves")]
pub enum RotationOrder {
    Xyz,
    Xzy,
    Yxz,
    Yzx,
    Zxy,
    Zyx,
}

impl RotationOrder {
    /// The six orders.
    pub const ALL: [RotationOrder; 6] = [
        RotationOrder::Xyz,
        RotationOrder::Xzy,
        RotationOrder::Yxz,
        RotationOrder::Yzx,
        RotationOrder::Zxy,
        RotationOrder::Zyx,
    ];

    /// The axes in listed order, 0 = X, 1 = Y, 2 = Z.
    pub fn axes(self) -> [usize; 3] {
        match self {
            RotationOrder::Xyz => [0, 1, 2],
            RotationOrder::Xzy => [0, 2, 1],
            RotationOrder::Yxz => [1, 0, 2],
            RotationOrder::Yzx => [1, 2, 0],
            RotationOrder::Zxy => [2, 0, 1],
            RotationOrder::Zyx => [2, 1, 0],
        }
    }

    /// The order of these axes, if they are three different ones.
    pub fn from_axes(axes: [usize; 3]) -> Option<RotationOrder> {
        RotationOrder::ALL.into_iter().find(|o| o.axes() == axes)
    }

    /// The name, `XYZ` … `ZYX`.
    pub fn as_str(self) -> &'static str {
        match self {
            RotationOrder::Xyz => "XYZ",
            RotationOrder::Xzy => "XZY",
            RotationOrder::Yxz => "YXZ",
            RotationOrder::Yzx => "YZX",
            RotationOrder::Zxy => "ZXY",
            RotationOrder::Zyx => "ZYX",
        }
    }
}

/// A length unit a BVH file may be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LengthUnit {
    /// Metres.
    Metre,
    /// Centimetres (most mocap suits, Bandai Namco, LAFAN1).
    Centimetre,
    /// Millimetres.
    Millimetre,
    /// Inches.
    Inch,
    /// The CMU motion-capture database's unit: its ASF files declare `:units length 0.45`, one
    /// unit being 1/0.45 inch (5.644 cm); its BVH conversions keep it.
    CmuUnit,
}

impl LengthUnit {
    /// Metres per unit.
    pub fn metres(self) -> f32 {
        match self {
            LengthUnit::Metre => 1.0,
            LengthUnit::Centimetre => 0.01,
            LengthUnit::Millimetre => 0.001,
            LengthUnit::Inch => 0.0254,
            LengthUnit::CmuUnit => 0.0254 / 0.45,
        }
    }

    /// Guesses the unit from a humanoid's rest height in file units, taking an adult of 1.2 to
    /// 2.2 m as the likely subject: metres for 0.5–3, CMU units for 20–45 (CMU skeletons measure
    /// about 30), inches for 45–90, centimetres for 90–300, millimetres for 900–3000; `None`
    /// outside these bands.
    pub fn guess(height: f32) -> Option<LengthUnit> {
        let bands = [
            (0.5, 3.0, LengthUnit::Metre),
            (20.0, 45.0, LengthUnit::CmuUnit),
            (45.0, 90.0, LengthUnit::Inch),
            (90.0, 300.0, LengthUnit::Centimetre),
            (900.0, 3000.0, LengthUnit::Millimetre),
        ];
        bands
            .into_iter()
            .find(|(lo, hi, _)| (*lo..*hi).contains(&height))
            .map(|(_, _, u)| u)
    }
}

/// How the scale of a read was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ScaleSource {
    /// Given in [`BvhOptions::scale`].
    Given,
    /// Guessed from the rest height ([`LengthUnit::guess`]).
    Guessed,
    /// The height fits no unit: the file is read unscaled (1 unit = 1 m).
    Unknown,
}

/// What `inspect` states about a BVH file.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct BvhInfo {
    /// Rest height of the skeleton in file units ([`crate::model::Skeleton::height`] before
    /// scaling).
    pub file_height: f32,
    /// The unit guessed, if any (`None` when the scale was given or nothing fits).
    pub unit: Option<LengthUnit>,
    /// Metres per file unit applied to every offset and position.
    pub scale: f32,
    /// How `scale` was chosen.
    pub scale_source: ScaleSource,
    /// Number of frames.
    pub frames: usize,
    /// Seconds per frame.
    pub frame_time: f32,
    /// Distinct rotation orders of joints with three rotation channels, in order of first use.
    pub rotation_orders: Vec<RotationOrder>,
    /// Number of `ROOT` joints.
    pub roots: usize,
    /// Number of joints (`ROOT` and `JOINT`).
    pub joints: usize,
    /// Number of `End Site` blocks.
    pub end_sites: usize,
    /// Joint names changed to keep names unique: (name in the file, bone name).
    pub renamed: Vec<(String, String)>,
}

/// A BVH file read into the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Bvh {
    /// One skeleton and, when the file has frames, one clip of it.
    pub model: Model,
    /// What the file declared and what the read decided.
    pub info: BvhInfo,
}
