//! `skelnorm batch`, `skelnorm validate` and `skelnorm report merge`: whole trees in parallel,
//! with a progress bar on a terminal, per-folder settings, name rules, shards, and JSON/HTML
//! reports.

use super::stages::StageFlags;
use super::Failure;
use skelnorm::batch::{self, Existing, Job, Naming, Shard};
use skelnorm::pipeline::RetargetOutput;
use skelnorm::report::{render_html, FailureKind, FileReport, Report, Status, Summary};
use skelnorm::settings::{ResolveError, Resolved, Settings};
use std::io::IsTerminal;
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

/// `report` subcommands.
#[derive(clap::Subcommand, Debug, Clone)]
pub enum ReportCommand {
    /// Join the JSON reports of shard runs into one.
    Merge {
        /// The shard reports.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// The merged JSON report.
        #[arg(short = 'o', long, value_name = "ALL")]
        output: PathBuf,
        /// Also write the merged HTML report.
        #[arg(long, value_name = "HTML")]
        html: Option<PathBuf>,
        #[command(flatten)]
        existing: super::ExistingFlag,
        /// Also print the merged report on stdout.
        #[arg(long)]
        json: bool,
    },
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
                .map_err(|f| ResolveError::Invalid(super::usage_text(f)))?;
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

/// A progress bar on stderr when it is a terminal and not `--quiet`.
fn progress_bar(total: usize, quiet: bool) -> indicatif::ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} files, {rate}, eta {eta} {msg}",
    ) {
        bar.set_style(style.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = w.write_str(&files_per_second(state.per_sec()));
            },
        ));
    }
    bar
}

/// A rate of files per second with one decimal (`12.3 files/s`).
fn files_per_second(rate: f64) -> String {
    format!("{rate:.1} files/s")
}

/// `n` and the noun, singular for one (`1 file`, `2 files`).
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The one-line summary of a run (`506 files: 480 ok, 20 with warnings, 4 refused, 2 failed, 12
/// skipped in 3.2 s`); the time only when `seconds` is given.
fn summary_line(s: &Summary, seconds: Option<f64>) -> String {
    let time = seconds.map(|t| format!(" in {t:.1} s")).unwrap_or_default();
    format!(
        "{}: {} ok, {} with warnings, {} refused, {} failed, {} skipped{time}",
        count(s.files, "file", "files"),
        s.ok,
        s.warnings,
        s.refused,
        s.failed,
        s.skipped
    )
}

/// The exit code of a run: 1 when some file could not be read or written, else 3 when some was
/// refused (or, when `strict`, has warnings), else 0.
fn run_code(report: &Report, strict: bool) -> i32 {
    // (A report merged from older runs holds refusals as failed files of kind `refused`.)
    let failed = |kind: FailureKind| {
        report.files.iter().any(|f| {
            matches!(f.status, Status::Failed | Status::Refused)
                && f.failure.unwrap_or(FailureKind::File) == kind
        })
    };
    if failed(FailureKind::File) {
        super::EXIT_FILE
    } else if failed(FailureKind::Refused) || (strict && report.summary.warnings > 0) {
        super::EXIT_REFUSED
    } else {
        super::EXIT_OK
    }
}

/// The message of a run that found no supported file under `paths`.
fn nothing_to_do(paths: &[&Path], unsupported: usize) -> Failure {
    let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Failure::Nothing(format!(
        "no glTF, GLB, VRM, VRMA, FBX or BVH files under {} ({} skipped)",
        paths.join(", "),
        count(unsupported, "other file", "other files")
    ))
}

fn write_reports(report: &Report, json: Option<&Path>, html: Option<&Path>) -> Result<(), Failure> {
    if let Some(p) = json {
        let text = serde_json::to_vec_pretty(report)?;
        skelnorm::gltf_io::write_file(p, &text)
            .map_err(|e| anyhow::anyhow!("{}: cannot write the report: {e}", p.display()))?;
    }
    if let Some(p) = html {
        skelnorm::gltf_io::write_file(p, render_html(report).as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: cannot write the report: {e}", p.display()))?;
    }
    Ok(())
}

fn one_line(f: &FileReport) -> Option<String> {
    match f.status {
        Status::Failed | Status::Refused => Some(format!(
            "skelnorm: {}: {}",
            f.input,
            f.error.as_deref().unwrap_or("failed")
        )),
        Status::Warnings => Some(format!(
            "skelnorm: {}: warning: {}",
            f.input,
            f.warnings
                .first()
                .map(ToString::to_string)
                .unwrap_or_default()
        )),
        _ => None,
    }
}

/// `path` made absolute without creating it: its nearest existing ancestor canonicalized, the
/// rest appended.
fn absolute(path: &Path) -> Result<PathBuf, Failure> {
    let path = std::path::absolute(path)?;
    let mut existing = path.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        rest.push(
            existing
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_default(),
        );
        existing = existing.parent().unwrap_or(Path::new("/"));
    }
    let mut out = existing.canonicalize()?;
    out.extend(rest.iter().rev());
    Ok(out)
}

/// Runs `batch`; exit 0 when every input went well, else as [`run_code`]; 4 when the folder
/// holds no supported file.
pub fn run_batch(args: &BatchArgs) -> Result<i32, Failure> {
    if !args.input.exists() {
        return Err(Failure::Input(anyhow::anyhow!(
            "{}: no such folder",
            args.input.display()
        )));
    }
    if !args.input.is_dir() {
        return Err(Failure::Usage(format!(
            "{}: not a folder (batch takes a folder; use normalize for one file)",
            args.input.display()
        )));
    }
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
    let inp = args.input.canonicalize()?;
    if absolute(&args.output)?.starts_with(&inp) {
        return Err(Failure::Usage(format!(
            "{}: the output folder is inside the input folder {}",
            args.output.display(),
            args.input.display()
        )));
    }
    let mut files = batch::find_files(&inp);
    let mut unsupported = batch::find_unsupported(&inp);
    let nothing = files
        .is_empty()
        .then(|| nothing_to_do(&[&args.input], unsupported.len()));
    let out = if nothing.is_some() {
        absolute(&args.output)?
    } else {
        std::fs::create_dir_all(&args.output).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot create the output folder: {e}",
                args.output.display()
            )
        })?;
        args.output.canonicalize()?
    };
    if let Some(s) = shard {
        files.retain(|(root, f)| s.contains(f.strip_prefix(root).unwrap_or(f)));
        unsupported.retain(|(root, f)| s.contains(f.strip_prefix(root).unwrap_or(f)));
    }
    let base = args.run.base_settings()?;
    let flags = args.run.resolver();
    let resolve = |s: &Settings| {
        let mut s = s.clone();
        if let Some(p) = &args.target_bone_map {
            s.map.target_bone_map = Some(super::flag_path(p, s.folder.is_some()));
        }
        flags(&s)
    };
    let job = Job {
        files,
        output: Some(out),
        jobs: args.run.jobs()?,
        existing: args.existing.existing.into(),
        naming: Naming {
            prefix: args.prefix.clone(),
            suffix: args.suffix.clone(),
            replace,
        },
        retarget_to: args.retarget_to.clone(),
        retarget_output: super::retarget_output(args.normalized, args.animation_only),
        base,
        resolve: &resolve,
        read: super::read_options(),
        unsupported,
    };
    let bar = progress_bar(job.files.len(), args.run.quiet);
    let mut report = batch::run(&job, &|f| {
        bar.inc(1);
        if matches!(f.status, Status::Failed | Status::Refused) {
            bar.suspend(|| eprintln!("{}", one_line(f).unwrap_or_default()));
        }
    })
    .map_err(|e| Failure::Usage(e.to_string()))?;
    bar.finish_and_clear();
    report.shard = args.shard.clone();
    finish(&report, &args.run, nothing, false)
}

/// Runs `validate`: the same checks, no outputs; the exit code of [`run_code`], or 4 when there
/// is no supported file.
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

/// The end of a `batch` or `validate` run: writes the reports asked for, prints the summary
/// line, and gives the exit code (4 with its message when there was nothing to do).
fn finish(
    report: &Report,
    run: &RunArgs,
    nothing: Option<Failure>,
    strict: bool,
) -> Result<i32, Failure> {
    write_reports(report, run.report.as_deref(), run.html.as_deref())?;
    if run.json {
        super::print_json(report)?;
    }
    eprintln!(
        "{}",
        summary_line(&report.summary, Some(report.summary.wall_ms / 1000.0))
    );
    match nothing {
        Some(n) => Err(n),
        None => Ok(run_code(report, strict)),
    }
}

/// Runs `report merge`.
pub fn run_report(cmd: &ReportCommand) -> Result<i32, Failure> {
    let ReportCommand::Merge {
        reports,
        output,
        html,
        existing,
        json,
    } = cmd;
    let mut all = Vec::new();
    for p in reports {
        let text =
            std::fs::read(p).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", p.display()))?;
        let r: Report = serde_json::from_slice(&text)
            .map_err(|e| anyhow::anyhow!("{}: not a skelnorm report: {e}", p.display()))?;
        if r.schema != skelnorm::report::SCHEMA {
            return Err(Failure::Usage(format!(
                "{}: a `{}` report; this skelnorm reads `{}`",
                p.display(),
                r.schema,
                skelnorm::report::SCHEMA
            )));
        }
        all.push(r);
    }
    let merged = Report::merge(all).map_err(|e| Failure::Usage(e.to_string()))?;
    if !existing.proceed(output)? {
        return Ok(super::EXIT_OK);
    }
    let html = match html {
        Some(h) if existing.proceed(h)? => Some(h.as_path()),
        _ => None,
    };
    write_reports(&merged, Some(output), html)?;
    if *json {
        super::print_json(&merged)?;
    }
    eprintln!("{}", summary_line(&merged.summary, None));
    Ok(super::EXIT_OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_have_one_decimal_and_counts_agree_in_number() {
        assert_eq!(files_per_second(399.0491), "399.0 files/s");
        assert_eq!(files_per_second(0.04), "0.0 files/s");
        let s = Summary {
            files: 506,
            ok: 480,
            warnings: 20,
            refused: 4,
            failed: 2,
            skipped: 12,
            ..Summary::default()
        };
        assert_eq!(
            summary_line(&s, Some(3.21)),
            "506 files: 480 ok, 20 with warnings, 4 refused, 2 failed, 12 skipped in 3.2 s"
        );
        let one = Summary {
            files: 1,
            ok: 1,
            ..Summary::default()
        };
        assert_eq!(
            summary_line(&one, None),
            "1 file: 1 ok, 0 with warnings, 0 refused, 0 failed, 0 skipped"
        );
    }
}
