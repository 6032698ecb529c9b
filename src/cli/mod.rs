//! Command-line front end: clap argument structs, then one function per subcommand. The only
//! code that prints. Library errors become `skelnorm: <file>: <problem>` on stderr.

mod batch;
mod convert;
mod inspect;
mod map;
mod mirror;
mod normalize;
mod retarget;
mod stages;

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Exit code: done (every input was processed).
pub const EXIT_OK: i32 = 0;
/// Exit code: a file could not be read or written (missing, unreadable, corrupt, or an output
/// that cannot be written or exists with `--existing error`).
pub const EXIT_FILE: i32 = 1;
/// Exit code: usage or configuration error (a bad flag or flag value, a bad settings, profile,
/// bone-map or pose file).
pub const EXIT_USAGE: i32 = 2;
/// Exit code: an input was read but refused: not a humanoid (no skeleton fits the profile), or
/// a stage or validation refused it.
pub const EXIT_REFUSED: i32 = 3;
/// Exit code: nothing to do (no supported input under a folder; no clip to retarget or write).
pub const EXIT_NOTHING: i32 = 4;

/// The exit-code table, as `--help` shows it (README.md has the same table).
const EXIT_CODES_HELP: &str = "\
Exit codes (the same in every command):
  0  done
  1  a file could not be read or written (missing, unreadable or corrupt input; an output that
     cannot be written, or exists with --existing error); batch/validate: some file did
  2  usage: a bad flag or flag value, or a bad settings, profile, bone-map or pose file
  3  not a humanoid (no skeleton fits the profile), or a stage or validation refused an input;
     batch/validate: some file was refused (validate --strict: or had warnings)
  4  nothing to do: no glTF, GLB, VRM, VRMA, FBX or BVH file under the folders given, or no clip
     to retarget or to write
When several apply (batch, validate), the lowest non-zero code wins.

Existing outputs: every command that writes files takes --existing overwrite|skip|error
(default overwrite): skip leaves an existing output (exit 0, said on stderr), error refuses
(exit 1, naming it).";

#[derive(Parser)]
#[command(
    name = "skelnorm",
    version,
    about = "Normalize humanoid skeletons in glTF/GLB, VRM/VRMA, FBX and BVH files so clips can be shared across characters",
    after_help = EXIT_CODES_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Metres per unit of BVH inputs (such as 0.01 for centimetres); guessed from the
    /// skeleton's height by default.
    #[arg(long, global = true, value_name = "M")]
    bvh_scale: Option<f32>,
}

/// How every command reads its inputs (set once from the global flags).
static READ_OPTIONS: std::sync::OnceLock<skelnorm::io::ReadOptions> = std::sync::OnceLock::new();

/// The global read options.
fn read_options() -> skelnorm::io::ReadOptions {
    READ_OPTIONS.get_or_init(Default::default).clone()
}

/// A document a command reads once and keeps until the process ends, where it is never freed:
/// the system takes its memory back at exit at once, while freeing a large document's many
/// allocations one by one was 9% of converting a 30 MB file (issue 19).
type Kept = std::mem::ManuallyDrop<skelnorm::gltf_io::Document>;

/// Reads an input of any supported format with the global read options.
fn read(path: &std::path::Path) -> Result<Kept, skelnorm::gltf_io::Error> {
    skelnorm::io::read(path, READ_OPTIONS.get_or_init(Default::default)).map(Kept::new)
}

/// [`read`], calling `with_skeletons` with the model's skeletons as soon as they are read, while
/// the clips are read (see `io::read_and`).
fn read_and(
    path: &std::path::Path,
    with_skeletons: skelnorm::gltf_io::WithSkeletons,
) -> Result<Kept, skelnorm::gltf_io::Error> {
    let options = READ_OPTIONS.get_or_init(Default::default);
    skelnorm::io::read_and(path, options, with_skeletons).map(Kept::new)
}

/// [`read`] for a file only looked at, never written (faster: see `io::read_for_viewing`).
fn read_for_viewing(path: &std::path::Path) -> Result<Kept, skelnorm::gltf_io::Error> {
    skelnorm::io::read_for_viewing(path, READ_OPTIONS.get_or_init(Default::default)).map(Kept::new)
}

/// [`read`] for a file only written again as read, or looked at without its key values
/// (`inspect`) (faster still: see `io::read_to_copy`); kept
/// until the process ends as [`Kept`] is.
fn read_to_copy(
    path: &std::path::Path,
) -> Result<std::mem::ManuallyDrop<skelnorm::gltf_io::AsRead>, skelnorm::gltf_io::Error> {
    skelnorm::io::read_to_copy(path, READ_OPTIONS.get_or_init(Default::default))
        .map(std::mem::ManuallyDrop::new)
}

#[derive(Subcommand)]
enum Command {
    /// Show a file's skeletons (tree, rest, world positions), clips, and what can be told at a
    /// glance: height and units, up axis, facing, A- or T-pose, naming convention.
    Inspect {
        /// A .gltf, .glb, .vrm, .vrma, .fbx or .bvh file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Map each skeleton's bones to a profile (the built-in humanoid by default): names,
    /// hierarchy and rest-pose geometry decide; a VRM humanoid map is used as declared. Exits 3
    /// when a required bone is missing (unless --allow-partial) or the file has no skeleton.
    Map {
        /// A .gltf, .glb, .vrm, .vrma, .fbx or .bvh file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Write the map as an editable bone-map RON file (pass it back with --bone-map).
        #[arg(short = 'o', long, value_name = "MAP")]
        output: Option<PathBuf>,
        /// Map only this skeleton (by index, as `inspect` lists them).
        #[arg(long, value_name = "N")]
        skeleton: Option<usize>,
        /// Accept a map that lacks required bones (exit 0 instead of 3).
        #[arg(long)]
        allow_partial: bool,
        #[command(flatten)]
        map: map::MapArgs,
        #[command(flatten)]
        existing: ExistingFlag,
    },
    /// Normalize a file: map its bones, then fix the rest (fold node transforms, face +Z,
    /// T-pose, profile axes) with every clip, skin and attached mesh converted so that every
    /// animated frame looks the same. Exits 3 when no skeleton fits the profile.
    Normalize(normalize::NormalizeArgs),
    /// Retarget clips from one character (or a clip-only file such as VRMA) onto another by
    /// chains: both are normalized in memory, then each target bone takes the source's change
    /// at the same place along its chain, the pelvis moves as the source's scaled by the legs'
    /// length ratio, and leg IK puts the feet where the source's go, scaled. Writes the target with the new
    /// clips and reports the measures per clip.
    Retarget(retarget::RetargetArgs),
    /// Normalize (or, with --retarget-to, retarget) every .gltf, .glb, .vrm, .vrma, .fbx and
    /// .bvh file under a folder, in parallel, mirroring the tree into the output folder. A `skelnorm.ron` in a
    /// folder sets the options for it and below (the nearest wins); flags win over all. Exit 1
    /// if some input could not be read or written, 3 if some was refused (each is reported), 4
    /// if the folder holds no supported file.
    Batch(batch::BatchArgs),
    /// Check files or folders as `batch` would, writing nothing (for import hooks): exit 1 if
    /// some file could not be read, 3 if some was refused (or, with --strict, has warnings), 4
    /// if there is no supported file; one line per failed file on stderr.
    Validate(batch::ValidateArgs),
    /// Work with run reports.
    #[command(subcommand)]
    Report(batch::ReportCommand),
    /// Settings files and report shapes: `--dump-defaults` prints every option with its
    /// documentation and default, as a settings file for `normalize --settings`;
    /// `--json-schema` prints the JSON Schema of every command's `--json` report.
    Config {
        /// Print every option with its documentation and default (valid RON).
        #[arg(long, conflicts_with = "json_schema")]
        dump_defaults: bool,
        /// Print the JSON Schema of the reports (`schemas/report.schema.json`).
        #[arg(long)]
        json_schema: bool,
    },
    /// Convert any input (glTF, GLB, VRM, VRMA, FBX, BVH) to .gltf or .glb (a lossless round
    /// trip between glTF containers), or one clip to .bvh.
    Convert(convert::ConvertArgs),
    /// Mirror clips left ↔ right across the character's own sagittal plane: each bone takes its
    /// counterpart's motion reflected (pairs through the profile, then by side markers in names
    /// such as `hand.L`/`hand.R`), center bones mirror in place, root motion is mirrored. The
    /// file keeps its rests and names; mirrored clips replace the originals, or with --suffix
    /// are added beside them. Exits 3 when no left/right pair shows the plane (give --axis).
    Mirror(mirror::MirrorArgs),
}

/// Parses the command line, runs the command and returns the exit code.
pub fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
            let _ = e.print();
            return code;
        }
    };
    if let Some(scale) = cli.bvh_scale {
        if !(scale > 0.0 && scale.is_finite()) {
            eprintln!(
                "skelnorm: --bvh-scale {scale}: must be a positive number of metres per unit"
            );
            return EXIT_USAGE;
        }
    }
    let _ = READ_OPTIONS.set(skelnorm::io::ReadOptions {
        bvh_scale: cli.bvh_scale,
    });
    let json = json_context(&cli.command);
    let result = match cli.command {
        Command::Inspect { file, json } => inspect::run(&file, json).map(|()| EXIT_OK),
        Command::Map {
            file,
            json,
            output,
            skeleton,
            allow_partial,
            map,
            existing,
        } => map::run(
            &file,
            &map,
            json,
            output.as_deref().map(|o| (o, &existing)),
            skeleton,
            allow_partial,
        ),
        Command::Normalize(args) => normalize::run(&args),
        Command::Retarget(args) => retarget::run(&args),
        Command::Batch(args) => batch::run_batch(&args),
        Command::Validate(args) => batch::run_validate(&args),
        Command::Report(cmd) => batch::run_report(&cmd),
        Command::Config {
            dump_defaults,
            json_schema,
        } => config(dump_defaults, json_schema),
        Command::Convert(args) => convert::run(&args),
        Command::Mirror(args) => mirror::run(&args),
    };
    if let (Err(f), Some((command, input))) = (&result, json) {
        let printed = REPORT_PRINTED.load(std::sync::atomic::Ordering::Relaxed);
        if !printed && !matches!(f, Failure::Input(e) if is_broken_pipe(e)) {
            print_failure(command, input, f);
        }
    }
    match result {
        Ok(code) => code,
        Err(Failure::Usage(msg)) => {
            eprintln!("skelnorm: {msg}");
            EXIT_USAGE
        }
        Err(Failure::Input(e)) if is_broken_pipe(&e) => EXIT_OK,
        Err(Failure::Input(e)) => {
            eprintln!("skelnorm: {e:#}");
            EXIT_FILE
        }
        Err(Failure::Refused(msg)) => {
            eprintln!("skelnorm: {msg}");
            EXIT_REFUSED
        }
        Err(Failure::Nothing(msg)) => {
            eprintln!("skelnorm: {msg}");
            EXIT_NOTHING
        }
    }
}

/// The command's name and input when it was asked for JSON on stdout (`--json`): a failure then
/// prints a report too, so a script reading stdout always gets one.
fn json_context(command: &Command) -> Option<(&'static str, String)> {
    let shown = |p: &std::path::Path| p.display().to_string();
    match command {
        Command::Inspect { file, json: true } => Some(("inspect", shown(file))),
        Command::Map {
            file, json: true, ..
        } => Some(("map", shown(file))),
        Command::Normalize(a) if a.json => Some(("normalize", shown(&a.input))),
        Command::Retarget(a) if a.json => Some(("retarget", shown(&a.source))),
        Command::Convert(a) if a.json => Some(("convert", shown(&a.input))),
        Command::Mirror(a) if a.json => Some(("mirror", shown(&a.input))),
        Command::Batch(a) if a.run.json => Some(("batch", shown(&a.input))),
        Command::Report(batch::ReportCommand::Merge {
            reports,
            json: true,
            ..
        }) => Some((
            "merge",
            reports
                .iter()
                .map(|p| shown(p))
                .collect::<Vec<_>>()
                .join(", "),
        )),
        Command::Validate(a) if a.run.json => Some((
            "validate",
            a.paths
                .iter()
                .map(|p| shown(p))
                .collect::<Vec<_>>()
                .join(", "),
        )),
        _ => None,
    }
}

/// Prints the JSON report of a command that failed before it had one: its input, failed.
fn print_failure(command: &str, input: String, failure: &Failure) {
    use skelnorm::report::{FailureKind, FileReport, Report};
    let (kind, message) = match failure {
        Failure::Usage(m) => (FailureKind::Usage, m.clone()),
        Failure::Input(e) => (FailureKind::File, format!("{e:#}")),
        Failure::Refused(m) => (FailureKind::Refused, m.clone()),
        Failure::Nothing(m) => (FailureKind::Nothing, m.clone()),
    };
    let report = Report::single(command, FileReport::failed(input, kind, message, 0.0));
    let _ = print_json(&report);
}

/// Prints the report of a file left alone because its output exists (`--existing skip`, said on
/// stderr already), when JSON was asked for; exit 0.
fn skipped(
    mut file: skelnorm::report::FileReport,
    command: &str,
    json: bool,
) -> Result<i32, Failure> {
    file.status = skelnorm::report::Status::Skipped;
    file.error = Some("the output exists (--existing skip)".into());
    if json {
        print_json(&skelnorm::report::Report::single(command, file))?;
    }
    Ok(EXIT_OK)
}

/// Whether the error is a closed output pipe (`skelnorm inspect x | head`): not a failure.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// Why a command failed, one variant per row of the exit-code table.
pub enum Failure {
    /// Bad flags, paths or settings (exit 2).
    Usage(String),
    /// A file could not be read or written; the message names it (exit 1).
    Input(anyhow::Error),
    /// An input was read but refused: not a humanoid, or a stage refused it (exit 3).
    Refused(String),
    /// Nothing to do (exit 4).
    Nothing(String),
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure::Input(e.into())
    }
}

/// Refuses an output path whose extension names no container, before any work is done.
fn check_output(output: &std::path::Path) -> Result<(), Failure> {
    if skelnorm::gltf_io::Format::for_path(output).is_none() {
        return Err(Failure::Usage(format!(
            "{}: the output must end in .gltf, .glb, .vrm or .vrma",
            output.display()
        )));
    }
    Ok(())
}

/// A `--skeleton N` flag as the id of a skeleton of `model` (read from `file`): a usage error
/// naming the file when it has no skeleton `N`.
fn skeleton_id(
    file: &std::path::Path,
    model: &skelnorm::model::Model,
    k: usize,
) -> Result<skelnorm::model::SkeletonId, Failure> {
    match u32::try_from(k) {
        Ok(id) if k < model.skeletons.len() => Ok(skelnorm::model::SkeletonId(id)),
        _ => Err(Failure::Usage(format!(
            "{}: there is no skeleton {k} (the file has {})",
            file.display(),
            model.skeletons.len()
        ))),
    }
}

/// The settings file given (a usage error naming the file when it cannot be read or parsed), or
/// the defaults.
fn load_settings(path: Option<&std::path::Path>) -> Result<skelnorm::settings::Settings, Failure> {
    match path {
        Some(p) => skelnorm::settings::Settings::load(p).map_err(|e| Failure::Usage(e.to_string())),
        None => Ok(skelnorm::settings::Settings::default()),
    }
}

/// A path given as a flag, as text for a [`Settings`](skelnorm::settings::Settings) field: made
/// absolute when the settings came from a file (whose relative paths start at its folder, while a
/// flag's start at the working directory).
fn flag_path(path: &std::path::Path, settings_from_file: bool) -> String {
    let path = if settings_from_file && path.is_relative() {
        std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    };
    path.to_string_lossy().into_owned()
}

/// The message of a failure, for errors that carry text.
fn usage_text(f: Failure) -> String {
    match f {
        Failure::Usage(m) => m,
        Failure::Input(e) => format!("{e:#}"),
        Failure::Refused(m) | Failure::Nothing(m) => m,
    }
}

/// Settings resolved into options; a usage error naming the file or value when they do not.
fn resolve(
    settings: &skelnorm::settings::Settings,
) -> Result<skelnorm::settings::Resolved, Failure> {
    settings
        .resolve()
        .map_err(|e| Failure::Usage(e.to_string()))
}

/// Whether a report was printed on stdout already (a failure after it prints no second one).
static REPORT_PRINTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes a command's report: to `report_file` as JSON if given, and to stdout as JSON when
/// `json`, else as the text `summary`. The report is built only when one of those asks for it.
fn emit(
    report: impl FnOnce() -> skelnorm::report::Report,
    report_file: Option<&std::path::Path>,
    json: bool,
    summary: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    use anyhow::Context;
    use std::io::Write;
    let report = (json || report_file.is_some()).then(report);
    if let (Some(path), Some(report)) = (report_file, &report) {
        let text = serde_json::to_vec_pretty(report)?;
        skelnorm::gltf_io::write_file(path, &text)
            .with_context(|| format!("{}: cannot write the report", path.display()))?;
    }
    match report.filter(|_| json) {
        Some(report) => print_json(&report),
        None => {
            let mut w = std::io::BufWriter::new(std::io::stdout().lock());
            summary(&mut w)?;
            w.flush()?;
            Ok(())
        }
    }
}

/// Prints a report on stdout as JSON.
fn print_json(report: &skelnorm::report::Report) -> Result<(), Failure> {
    use std::io::Write;
    REPORT_PRINTED.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut w, report)?;
    writeln!(w)?;
    w.flush()?;
    Ok(())
}

fn config(dump_defaults: bool, json_schema: bool) -> Result<i32, Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if json_schema {
        serde_json::to_writer_pretty(&mut out, &skelnorm::report::json_schema())?;
        writeln!(out)?;
    } else if dump_defaults {
        out.write_all(skelnorm::settings::Settings::dump_defaults().as_bytes())?;
    } else {
        return Err(Failure::Usage(
            "config: nothing to do (try --dump-defaults or --json-schema)".into(),
        ));
    }
    Ok(EXIT_OK)
}

/// What `--existing` takes: what a command does when an output it would write exists.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingArg {
    /// Replace the existing output (the default of every command: an import hook re-runs on
    /// every import and expects the output replaced).
    Overwrite,
    /// Leave the existing output, say so, and exit 0 (batch: report the input as skipped).
    Skip,
    /// Refuse: exit 1 naming the output (batch: report the input as failed).
    Error,
}

impl From<skelnorm::batch::Existing> for ExistingArg {
    fn from(e: skelnorm::batch::Existing) -> Self {
        use skelnorm::batch::Existing;
        match e {
            Existing::Overwrite => ExistingArg::Overwrite,
            Existing::Skip => ExistingArg::Skip,
            Existing::Error => ExistingArg::Error,
        }
    }
}

impl From<ExistingArg> for skelnorm::batch::Existing {
    fn from(e: ExistingArg) -> Self {
        use skelnorm::batch::Existing;
        match e {
            ExistingArg::Overwrite => Existing::Overwrite,
            ExistingArg::Skip => Existing::Skip,
            ExistingArg::Error => Existing::Error,
        }
    }
}

/// The `--existing` flag of every command that writes files; one default everywhere (the
/// library's [`Existing::default`](skelnorm::batch::Existing)).
#[derive(clap::Args, Debug, Clone)]
pub struct ExistingFlag {
    /// What to do when an output exists: overwrite it (the default), skip it (exit 0, said on
    /// stderr) or error (exit 1 naming it).
    #[arg(
        long,
        value_enum,
        value_name = "WHAT",
        default_value_t = ExistingArg::from(skelnorm::batch::Existing::default())
    )]
    pub existing: ExistingArg,
}

impl ExistingFlag {
    /// Whether to write `output`: true when it does not exist or is to be overwritten; false
    /// (after saying so on stderr) when it exists and is to be skipped; an error naming it when
    /// it exists and `--existing error`.
    pub fn proceed(&self, output: &std::path::Path) -> Result<bool, Failure> {
        if !output.exists() {
            return Ok(true);
        }
        match self.existing {
            ExistingArg::Overwrite => Ok(true),
            ExistingArg::Skip => {
                eprintln!(
                    "skelnorm: {}: exists, left as it is (--existing skip)",
                    output.display()
                );
                Ok(false)
            }
            ExistingArg::Error => Err(Failure::Input(anyhow::anyhow!(
                "{}: the output exists (--existing error; use --existing overwrite or skip)",
                output.display()
            ))),
        }
    }
}

/// Refuses an output that is the input file itself (a usage error naming it), before any work.
fn check_not_input(input: &std::path::Path, output: &std::path::Path) -> Result<(), Failure> {
    if skelnorm::gltf_io::same_file(input, output) {
        return Err(Failure::Usage(format!(
            "{}: the output is the input file; inputs are never overwritten",
            output.display()
        )));
    }
    Ok(())
}

/// The retarget output mode of the `--normalized` and `--animation-only` flags (`retarget`,
/// `batch --retarget-to`); the target as it came by default.
fn retarget_output(normalized: bool, animation_only: bool) -> skelnorm::pipeline::RetargetOutput {
    use skelnorm::pipeline::RetargetOutput;
    if normalized {
        RetargetOutput::Normalized
    } else if animation_only {
        RetargetOutput::AnimationOnly
    } else {
        RetargetOutput::Original
    }
}
