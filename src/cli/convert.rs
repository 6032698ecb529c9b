//! `skelnorm convert`: any input (glTF, GLB, VRM, VRMA, FBX, BVH) to glTF or GLB, or one clip to
//! BVH; and the BVH output flags `mirror` and `retarget` share.

use super::Failure;
use skelnorm::bvh_io::{BvhWriteOptions, RotationOrder};
use skelnorm::jobs::{convert_file, ConvertFile, Outcome};
use skelnorm::report::Report;
use std::path::{Path, PathBuf};

/// What `--bvh-order` takes: the rotation channels' order in the BVH written.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OrderArg {
    /// Xrotation Yrotation Zrotation.
    Xyz,
    /// Xrotation Zrotation Yrotation.
    Xzy,
    /// Yrotation Xrotation Zrotation.
    Yxz,
    /// Yrotation Zrotation Xrotation.
    Yzx,
    /// Zrotation Xrotation Yrotation (the usual order of mocap files).
    #[default]
    Zxy,
    /// Zrotation Yrotation Xrotation.
    Zyx,
}

/// Flags of BVH output.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct BvhOutArgs {
    /// Rotation channel order of a BVH output.
    #[arg(long, value_enum, value_name = "ORDER", default_value = "zxy")]
    pub bvh_order: OrderArg,
    /// Frames per second of a BVH output (default: the clip's own key rate, else 30).
    #[arg(long, value_name = "FPS")]
    pub bvh_fps: Option<f32>,
    /// Length unit of a BVH output.
    #[arg(long, value_enum, value_name = "UNIT", default_value = "cm")]
    pub bvh_unit: UnitArg,
}

/// What `--bvh-unit` takes.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnitArg {
    /// Centimetres (most mocap tools).
    #[default]
    Cm,
    /// Metres.
    M,
}

impl BvhOutArgs {
    /// The BVH writer's options the flags give.
    pub fn options(&self) -> BvhWriteOptions {
        BvhWriteOptions {
            order: match self.bvh_order {
                OrderArg::Xyz => RotationOrder::Xyz,
                OrderArg::Xzy => RotationOrder::Xzy,
                OrderArg::Yxz => RotationOrder::Yxz,
                OrderArg::Yzx => RotationOrder::Yzx,
                OrderArg::Zxy => RotationOrder::Zxy,
                OrderArg::Zyx => RotationOrder::Zyx,
            },
            fps: self.bvh_fps,
            scale: match self.bvh_unit {
                UnitArg::Cm => 100.0,
                UnitArg::M => 1.0,
            },
        }
    }
}

/// Everything `convert` takes.
#[derive(clap::Args, Debug, Clone)]
#[command(
    group(clap::ArgGroup::new("out").required(true).args(["output", "output_flag"])),
    override_usage = "skelnorm convert [OPTIONS] <INPUT> <OUTPUT>\n       skelnorm convert [OPTIONS] <INPUT> -o <OUT>"
)]
pub struct ConvertArgs {
    /// The input file: .gltf, .glb, .vrm, .vrma, .fbx or .bvh.
    pub input: PathBuf,
    /// The output file; its extension picks the format: .gltf, .glb (.vrm/.vrma are GLB), or
    /// .bvh (one clip). Never the input itself. Also taken as `-o OUT`, as the other commands do.
    #[arg(value_name = "OUTPUT")]
    pub output: Option<PathBuf>,
    /// The output file, as every other command takes it (the same as the OUTPUT argument; give one).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output_flag: Option<PathBuf>,
    /// The clip a BVH output holds (needed when the input has more than one).
    #[arg(long, value_name = "NAME")]
    pub clip: Option<String>,
    #[command(flatten)]
    pub bvh: BvhOutArgs,
    #[command(flatten)]
    pub existing: super::ExistingFlag,
    /// Print the report (the formats, skeletons and clips written) as JSON.
    #[arg(long)]
    pub json: bool,
}

impl ConvertArgs {
    /// The output, given as the second argument or with `-o` (clap requires exactly one).
    fn output(&self) -> &Path {
        self.output
            .as_deref()
            .or(self.output_flag.as_deref())
            .unwrap_or_else(|| Path::new(""))
    }
}

/// Runs `convert`.
pub fn run(args: &ConvertArgs) -> Result<i32, Failure> {
    let start = std::time::Instant::now();
    let output = args.output();
    let job = ConvertFile {
        input: &args.input,
        output,
        read: &super::read_options(),
        existing: args.existing.existing.into(),
        clip: args.clip.as_deref(),
        bvh: &args.bvh.options(),
    };
    let mut file = match convert_file(&job)? {
        Outcome::Written(file) => file,
        Outcome::Skipped(file) => return super::skipped(*file, "convert", output, args.json),
    };
    file.time_ms = start.elapsed().as_secs_f64() * 1e3;
    if args.json {
        super::print_json(&Report::single("convert", file))?;
    }
    Ok(super::EXIT_OK)
}
