//! `skelnorm batch` and `skelnorm validate`: whole trees in parallel, with per-folder settings,
//! name rules and shards (their progress, summary and reports: `batch_output`).

use super::batch_output::{finish, nothing_to_do, one_line, progress_bar};
pub use super::batch_output::{run_report, ReportCommand};
use super::stages::StageFlags;
use super::Failure;
use skelnorm::batch::{self, plan_batch, BatchFolder, Existing, Job, Naming, Shard};
use skelnorm::pipeline::RetargetOutput;
use skelnorm::report::Status;
use skelnorm::settings::{ResolveError, Resolved, Settings};
use std::path::{Path, PathBuf};

/// Flags shared by batch and validate: threads, progress, settings, reports.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// Worker threads (default: every core).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// A settings file under every folder's own `skelnorm.ron` (the nearest of those wins).
    #[arg(long, value_name = "SETTINGS")]
    pub settings: Option<PathBuf>,
    #[command(flatten)]
    pub map: super::map::MapArgs,
    /// Write the JSON report here.
    #[arg(long, value_name = "REPORT")]
    pub report: Option<PathBuf>,
    /// Write the HTML report (one self-contained page with pictures) here.
    #[arg(long, value_name = "HTML")]
    pub html: Option<PathBuf>,
    /// Print the JSON report on stdout (the summary line stays on stderr).
    #[arg(long)]
    pub json: bool,
    /// Skip measuring the invariants.
    #[arg(long)]
    pub no_check: bool,
    #[command(flatten)]
    pub stages: StageFlags,
}

/// Everything `batch` takes.
#[derive(clap::Args, Debug, Clone)]
pub struct BatchArgs {
    /// The folder to process (every .gltf, .glb, .vrm, .vrma, .fbx and .bvh below it).
    pub input: PathBuf,
    /// The output folder: the input tree is mirrored below it. It must not be inside the input.
    #[arg(short = 'o', long, value_name = "OUT_DIR")]
    pub output: PathBuf,
    /// Put this before every output file's name.
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub prefix: String,
    /// Put this after every output file's name (before the extension).
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub suffix: String,
    /// Replace FROM by TO in every output file's name (repeatable, applied in order).
    #[arg(long, value_name = "FROM=TO")]
    pub replace: Vec<String>,
    #[command(flatten)]
    pub existing: super::ExistingFlag,
    /// Process only shard K of N (files split by a stable hash of their relative path).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Retarget every file's clips onto this character (one output per input: the character with
    /// the clips).
    ///
    /// Each output holds the character, so it is named after its input with the character's
    /// extension: `.gltf` for a .gltf character (with a .bin beside each output), `.vrm` for a
    /// .vrm character, `.glb` for any other. `walk.vrma`, `walk.bvh`, `walk.fbx` or `walk.vrm`
    /// onto `hero.glb` all write `walk.glb` (--prefix, --suffix and --replace apply to the stem
    /// as usual); two inputs that would write the same output fail rather than overwrite.
    #[arg(long, value_name = "TARGET")]
    pub retarget_to: Option<PathBuf>,
    /// A bone-map RON file for the `--retarget-to` character only (it replaces --bone-map
    /// there; the files take --bone-map, or their settings' `map.source_bone_map`).
    #[arg(long, value_name = "MAP", requires = "retarget_to")]
    pub target_bone_map: Option<PathBuf>,
    /// With --retarget-to: write the character normalized (profile names, T-pose rests,
    /// facing +Z) with the new clips, instead of the character as it came.
    #[arg(long, requires = "retarget_to", conflicts_with = "animation_only")]
    pub normalized: bool,
    /// With --retarget-to: write only the character's skeleton (no meshes) and the new clips
    /// (as .glb for a .vrm character).
    #[arg(long, requires = "retarget_to")]
    pub animation_only: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Everything `validate` takes.
#[derive(clap::Args, Debug, Clone)]
pub struct ValidateArgs {
    /// Files or folders to check (.gltf, .glb, .vrm, .vrma, .fbx and .bvh files; folders are
    /// searched for them).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Count warnings as failures (exit 3).
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

impl RunArgs {
    /// The per-folder resolver: settings (a folder's file, or `--settings`, or the defaults) with
    /// the flags written over them, resolved.
    fn resolver(&self) -> impl Fn(&Settings) -> Result<Resolved, ResolveError> + Sync + '_ {
        move |s: &Settings| {
            let mut s = s.clone();
            self.map.apply(&mut s);
            self.stages
                .apply(&mut s)
                .map_err(|f| ResolveError::Invalid(f.row().1))?;
            s.normalize.check &= !self.no_check;
            s.resolve()
        }
    }

    fn base_settings(&self) -> Result<Settings, Failure> {
        super::load_settings(self.settings.as_deref())
    }

    fn jobs(&self) -> Result<usize, Failure> {
        match self.jobs {
            Some(0) => Err(Failure::Usage("--jobs 0: at least one job".into())),
            Some(n) => Ok(n),
            None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}

/// `path` made absolute without creating it: its nearest existing ancestor canonicalized, the
/// rest appended.
pub fn run_batch(args: &BatchArgs) -> Result<i32, Failure> {
    let shard = args
        .shard
        .as_deref()
        .map(str::parse::<Shard>)
        .transpose()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let replace = args
        .replace
        .iter()
        .map(|r| {
            r.split_once('=')
                .filter(|(from, _)| !from.is_empty())
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .ok_or_else(|| Failure::Usage(format!("--replace {r}: expected FROM=TO")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let base = args.run.base_settings()?;
    let flags = args.run.resolver();
    let resolve = |s: &Settings| {
        let mut s = s.clone();
        if let Some(p) = &args.target_bone_map {
            s.map.target_bone_map = Some(super::flag_path(p, s.folder.is_some()));
        }
        flags(&s)
    };
    let job = BatchFolder {
        input: &args.input,
        output: &args.output,
        jobs: args.run.jobs()?,
        existing: args.existing.existing.into(),
        naming: Naming {
            prefix: args.prefix.clone(),
            suffix: args.suffix.clone(),
            replace,
        },
        shard,
        only: None,
        retarget_to: args.retarget_to.clone(),
        retarget_output: super::retarget_output(args.normalized, args.animation_only),
        base,
        resolve: &resolve,
        read: super::read_options(),
    };
    let plan = plan_batch(&job)?;
    let nothing = (plan.found == 0).then(|| nothing_to_do(&[&args.input], plan.unsupported));
    let bar = progress_bar(plan.files(), args.run.quiet);
    let mut report = plan.run(&|f| {
        bar.inc(1);
        if matches!(f.status, Status::Failed | Status::Refused) {
            bar.suspend(|| eprintln!("{}", one_line(f).unwrap_or_default()));
        }
    })?;
    bar.finish_and_clear();
    report.shard = args.shard.clone();
    finish(&report, &args.run, nothing, false)
}

pub fn run_validate(args: &ValidateArgs) -> Result<i32, Failure> {
    let mut files = Vec::new();
    let mut unsupported = Vec::new();
    for p in &args.paths {
        if !p.exists() {
            return Err(Failure::Input(anyhow::anyhow!(
                "{}: no such file or folder",
                p.display()
            )));
        }
        files.extend(batch::find_files(p));
        unsupported.extend(batch::find_unsupported(p));
    }
    let nothing = files.is_empty().then(|| {
        let paths: Vec<&Path> = args.paths.iter().map(PathBuf::as_path).collect();
        nothing_to_do(&paths, unsupported.len())
    });
    let base = args.run.base_settings()?;
    let resolve = args.run.resolver();
    let job = Job {
        files,
        output: None,
        jobs: args.run.jobs()?,
        existing: Existing::Error,
        naming: Naming::default(),
        retarget_to: None,
        retarget_output: RetargetOutput::Original,
        base,
        resolve: &resolve,
        read: super::read_options(),
        unsupported,
        only: None,
    };
    let bar = progress_bar(job.files.len(), args.run.quiet);
    let report = batch::run(&job, &|_| bar.inc(1)).map_err(|e| Failure::Usage(e.to_string()))?;
    bar.finish_and_clear();
    for f in &report.files {
        let failed = matches!(f.status, Status::Failed | Status::Refused);
        if let Some(line) = one_line(f).filter(|_| failed || args.strict) {
            eprintln!("{line}");
        }
    }
    finish(&report, &args.run, nothing, args.strict)
}
