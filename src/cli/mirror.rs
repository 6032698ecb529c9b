//! `skelnorm mirror`: its flags; [`skelnorm::jobs::mirror_file`] mirrors clips left ↔ right across
//! the character's sagittal plane and writes the file with the mirrored clips (replacing the
//! originals, or beside them with `--suffix`); this prints the report.

use super::map::MapArgs;
use super::Failure;
use skelnorm::jobs::{mirror_file, MirrorFile, Mirrored, Outcome};
use skelnorm::mirror::{MirrorAxis, MirrorOptions};
use skelnorm::pipeline::MirrorJob;
use skelnorm::report::{mirror_text, Report};
use skelnorm::settings::Settings;
use std::path::PathBuf;

/// What `--axis` takes.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AxisArg {
    /// Found from the rest positions of the left/right bone pairs (snapped to an axis of the
    /// skeleton's space when within 5°).
    #[default]
    Auto,
    /// The plane X = 0 of the skeleton's space (normalized characters: left is +X).
    X,
    /// The plane Y = 0.
    Y,
    /// The plane Z = 0.
    Z,
}

/// Everything `mirror` takes.
#[derive(clap::Args, Debug, Clone)]
pub struct MirrorArgs {
    /// The input: .gltf, .glb, .vrm, .vrma, .fbx or .bvh; never modified.
    pub input: PathBuf,
    /// The output: .gltf or .glb (.vrm/.vrma are GLB) with every clip, or .bvh with one.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// Mirror only this clip (repeatable); every clip by default.
    #[arg(long = "clip", value_name = "NAME")]
    pub clips: Vec<String>,
    /// Keep the originals and add each mirrored clip beside it, named `<clip><TEXT>` (bone
    /// channels only); by default the mirrored clips replace the originals.
    #[arg(long, value_name = "TEXT")]
    pub suffix: Option<String>,
    /// The mirror plane's normal, in the skeleton's space.
    #[arg(long, value_enum, value_name = "AXIS", default_value = "auto")]
    pub axis: AxisArg,
    /// Write a JSON report: per skeleton, the bone pairs, the plane and the clips.
    #[arg(long, value_name = "REPORT")]
    pub report: Option<PathBuf>,
    /// Print the JSON report instead of the text summary.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub map: MapArgs,
    #[command(flatten)]
    pub bvh: super::convert::BvhOutArgs,
    #[command(flatten)]
    pub existing: super::ExistingFlag,
}

impl MirrorArgs {
    fn options(&self) -> MirrorOptions {
        MirrorOptions {
            clips: self.clips.clone(),
            suffix: self.suffix.clone(),
            axis: match self.axis {
                AxisArg::Auto => MirrorAxis::Auto,
                AxisArg::X => MirrorAxis::X,
                AxisArg::Y => MirrorAxis::Y,
                AxisArg::Z => MirrorAxis::Z,
            },
            ..MirrorOptions::default()
        }
    }
}

/// Runs `mirror`; returns the exit code (0; exit 2 for a clip that does not exist or a suffixed
/// name taken, 3 when a skeleton has no left/right pair to find the plane from, 4 when the file
/// has no clips).
pub fn run(args: &MirrorArgs) -> Result<i32, Failure> {
    let file = MirrorFile {
        input: &args.input,
        output: &args.output,
        read: &super::read_options(),
        existing: args.existing.existing.into(),
        bvh: &args.bvh.options(),
    };
    file.check()?;
    let mut settings = Settings::default();
    args.map.apply(&mut settings);
    let (profile, map) = settings
        .resolve_map()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let start = std::time::Instant::now();
    let job = MirrorJob {
        map,
        mirror: args.options(),
    };
    let Mirrored { mut file, report } = match mirror_file(&file, &profile, &job)? {
        Outcome::Written(done) => done,
        Outcome::Skipped(file) => return super::skipped(*file, "mirror", &args.output, args.json),
    };
    file.time_ms = start.elapsed().as_secs_f64() * 1e3;
    let summary = file.clone(); // as read and written, before the report fills it
    let json = || {
        file.set_mirror(&report);
        file.settle();
        Report::single("mirror", file)
    };
    super::emit(json, args.report.as_deref(), args.json, |w| {
        mirror_text(w, &summary, &report)
    })?;
    Ok(super::EXIT_OK)
}
