//! `skelnorm convert`: any input (glTF, GLB, VRM, VRMA, FBX, BVH) to glTF or GLB, or one clip to
//! BVH; and the BVH writing `retarget -o out.bvh` shares.

use super::Failure;
use skelnorm::bvh_io::{self, BvhWriteOptions, RotationOrder};
use skelnorm::gltf_io;
use skelnorm::model::Model;
use skelnorm::report::{ConvertReport, FileReport, Report};
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
    fn options(&self) -> BvhWriteOptions {
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

/// Whether `path` names a BVH output.
pub fn is_bvh(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("bvh"))
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
    if !is_bvh(output) {
        super::check_output(output)?;
    }
    super::check_not_input(&args.input, output)?;
    // Converting to glTF changes nothing in the model: read it only to write it again as read
    // (its keys checked, not kept); a BVH output samples one clip of the model.
    let (mut file, converted, skeletons, clips) = if is_bvh(output) {
        let doc = super::read_for_viewing(&args.input)?;
        let mut file = FileReport::read(&args.input, &doc.warnings);
        if !args.existing.proceed(output)? {
            return super::skipped(file, "convert", args.json);
        }
        let clip = write_bvh(
            &args.input,
            &doc.model,
            output,
            args.clip.as_deref(),
            &args.bvh,
        )?;
        file.wrote(output);
        let skeletons = doc.model.skeletons.len();
        (file, doc.converted.clone(), skeletons, vec![clip])
    } else {
        let doc = super::read_to_copy(&args.input)?;
        let mut file = FileReport::read(&args.input, doc.warnings());
        if !args.existing.proceed(output)? {
            return super::skipped(file, "convert", args.json);
        }
        doc.write(output)?;
        file.wrote(output);
        let clips = doc.clip_names().map(str::to_string).collect();
        (file, doc.converted().cloned(), doc.skeletons(), clips)
    };
    file.convert = Some(ConvertReport {
        from: extension(&args.input),
        to: extension(output),
        converted,
        skeletons,
        clips,
    });
    file.time_ms = start.elapsed().as_secs_f64() * 1e3;
    file.settle();
    if args.json {
        super::print_json(&Report::single("convert", file))?;
    }
    Ok(super::EXIT_OK)
}

/// A path's extension in lower case (`glb`, `fbx`, ...), naming its format in reports.
fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Writes one clip of `model` (read from `input`) as BVH: the clip named `clip`, or the only
/// one; its skeleton with it.
pub fn write_bvh(
    input: &Path,
    model: &Model,
    output: &Path,
    clip: Option<&str>,
    args: &BvhOutArgs,
) -> Result<String, Failure> {
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    let chosen = match clip {
        Some(name) => model.clips.iter().find(|c| c.name == name).ok_or_else(|| {
            Failure::Usage(format!(
                "{}: no clip `{name}` (it has: {})",
                input.display(),
                names.join(", ")
            ))
        })?,
        None => match model.clips.as_slice() {
            [only] => only,
            [] => {
                return Err(Failure::Nothing(format!(
                    "{}: has no clip to write as BVH",
                    input.display()
                )))
            }
            _ => {
                return Err(Failure::Usage(format!(
                    "{}: has {} clips and a BVH file holds one; choose it with --clip (it has: {})",
                    input.display(),
                    names.len(),
                    names.join(", ")
                )))
            }
        },
    };
    if gltf_io::same_file(input, output) {
        return Err(Failure::Usage(format!(
            "{}: the output is the input file; inputs are never overwritten",
            output.display()
        )));
    }
    let skeleton = model.skeleton(chosen.skeleton);
    let text = bvh_io::write(skeleton, chosen, &args.options())
        .map_err(|e| anyhow::anyhow!("{}: cannot write BVH: {e}", output.display()))?;
    gltf_io::write_file(output, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", output.display()))?;
    Ok(chosen.name.clone())
}
