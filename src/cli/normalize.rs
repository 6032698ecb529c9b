//! `skelnorm normalize`: its flags, resolved over the settings file into the pipeline's options;
//! [`skelnorm::jobs::normalize_file`] maps → fixes the rest → strips tracks → renames and writes
//! the result; this prints a summary, or the JSON report (the mapping, the per-bone changes, the
//! removed tracks, the renamed bones, the file sizes and the measured invariants).

use super::map::MapArgs;
use super::stages::StageFlags;
use super::Failure;
use skelnorm::jobs::{normalize_file, NormalizeFile, Normalized, Outcome};
use skelnorm::pipeline::NormalizeOptions;
use skelnorm::profile::Profile;
use skelnorm::report::{normalize_text, Report};
use std::path::PathBuf;

/// Everything `normalize` takes.
#[derive(clap::Args, Debug, Clone)]
pub struct NormalizeArgs {
    /// The input (.gltf, .glb, .vrm, .vrma, .fbx, .bvh); never modified. FBX and BVH inputs
    /// are written as glTF.
    pub input: PathBuf,
    /// The output file; its extension picks the container.
    #[arg(short = 'o', long, value_name = "OUT")]
    pub output: PathBuf,
    /// Write a JSON report: mapping, per-bone rest changes, measured invariants, warnings.
    #[arg(long, value_name = "REPORT")]
    pub report: Option<PathBuf>,
    /// Print the JSON report instead of the text summary.
    #[arg(long)]
    pub json: bool,
    /// Normalize only this skeleton (by index, as `inspect` lists them).
    #[arg(long, value_name = "N")]
    pub skeleton: Option<usize>,
    /// Normalize skeletons that lack any required bones (by default only required end bones,
    /// such as hands or feet, may be missing).
    #[arg(long)]
    pub allow_partial: bool,
    /// Refuse skeletons that lack any required bone (exit 3).
    #[arg(long, conflicts_with = "allow_partial")]
    pub strict: bool,
    /// Skip measuring the invariants (skin, T-pose) for the report.
    #[arg(long)]
    pub no_check: bool,
    /// A settings file (RON; see `skelnorm config --dump-defaults`); flags win over it.
    #[arg(long, value_name = "SETTINGS")]
    pub settings: Option<PathBuf>,
    #[command(flatten)]
    pub map: MapArgs,
    #[command(flatten)]
    pub stages: StageFlags,
    #[command(flatten)]
    pub existing: super::ExistingFlag,
}

impl NormalizeArgs {
    /// Writes the flags given into `settings` (they win over the file's).
    pub fn apply(&self, settings: &mut skelnorm::settings::Settings) -> Result<(), Failure> {
        self.map.apply(settings);
        self.stages.apply(settings)?;
        let n = &mut settings.normalize;
        if self.allow_partial {
            (n.allow_partial, n.strict) = (true, false);
        }
        if self.strict {
            (n.allow_partial, n.strict) = (false, true);
        }
        n.check &= !self.no_check;
        Ok(())
    }
}

/// Runs `normalize`; returns the exit code (0; a [`Failure::Refused`], exit 3, when no skeleton
/// fits the profile or a stage refuses the file).
pub fn run(args: &NormalizeArgs) -> Result<i32, Failure> {
    let start = std::time::Instant::now();
    let job = NormalizeFile {
        input: &args.input,
        output: &args.output,
        read: &super::read_options(),
        existing: args.existing.existing.into(),
        skeleton: args.skeleton,
    };
    job.check()?;
    let (profile, options) = settings(args)?;
    let Normalized { mut file, report } = match normalize_file(&job, &profile, &options)? {
        Outcome::Written(done) => done,
        Outcome::Skipped(file) => {
            return super::skipped(*file, "normalize", &args.output, args.json)
        }
    };
    file.time_ms = start.elapsed().as_secs_f64() * 1e3;
    let summary = file.clone(); // as read and written, before the report fills it
    let json = || {
        file.set_normalize(&report);
        file.settle();
        Report::single("normalize", file)
    };
    super::emit(json, args.report.as_deref(), args.json, |w| {
        normalize_text(w, &summary, &report)
    })?;
    Ok(super::EXIT_OK)
}

/// The profile and options the settings file and flags give (a usage error naming the file or
/// value when they do not).
fn settings(args: &NormalizeArgs) -> Result<(Profile, NormalizeOptions), Failure> {
    let mut settings = super::load_settings(args.settings.as_deref())?;
    args.apply(&mut settings)?;
    let resolved = super::resolve(&settings)?;
    Ok((resolved.profile, resolved.normalize))
}
