//! Command-line front end: clap argument structs, then one function per subcommand that resolves
//! the flags and settings into options, calls one library job ([`skelnorm::jobs`]) and prints
//! what it returns. The only code that prints; it reads and writes no file itself (the jobs do).
//! Library errors become `skelnorm: <file>: <problem>` on stderr, with the exit code of their row.

mod batch;
mod batch_output;
mod commands;
mod convert;
mod existing;
mod inspect;
mod map;
mod mirror;
mod normalize;
mod retarget;
mod retarget_flags;
mod stages;

use clap::Parser;
use commands::{config, json_context, Cli, Command};
pub use existing::ExistingFlag;
use skelnorm::jobs::JobError;
use skelnorm::report::FailureKind;
use stages::{flag_path, load_settings, resolve};

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

/// How every command reads its inputs (set once from the global flags).
static READ_OPTIONS: std::sync::OnceLock<skelnorm::io::ReadOptions> = std::sync::OnceLock::new();

/// The global read options.
fn read_options() -> skelnorm::io::ReadOptions {
    READ_OPTIONS.get_or_init(Default::default).clone()
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
        Err(Failure::Input(e)) if is_broken_pipe(&e) => EXIT_OK,
        Err(f) => {
            let (kind, message) = f.row();
            eprintln!("skelnorm: {message}");
            match kind {
                FailureKind::File => EXIT_FILE,
                FailureKind::Usage => EXIT_USAGE,
                FailureKind::Refused => EXIT_REFUSED,
                FailureKind::Nothing => EXIT_NOTHING,
            }
        }
    }
}

/// Prints the JSON report of a command that failed before it had one: its input, failed.
fn print_failure(command: &str, input: String, failure: &Failure) {
    use skelnorm::report::{FileReport, Report};
    let (kind, message) = failure.row();
    let report = Report::single(command, FileReport::failed(input, kind, message, 0.0));
    let _ = print_json(&report);
}

/// Says on stderr that `output` exists and was left as it is (`--existing skip`), and prints the
/// report of its input, skipped, when JSON was asked for; exit 0.
fn skipped(
    mut file: skelnorm::report::FileReport,
    command: &str,
    output: &std::path::Path,
    json: bool,
) -> Result<i32, Failure> {
    say_skipped(output);
    file.status = skelnorm::report::Status::Skipped;
    file.error = Some("the output exists (--existing skip)".into());
    if json {
        print_json(&skelnorm::report::Report::single(command, file))?;
    }
    Ok(EXIT_OK)
}

/// Says on stderr that `output` exists and was left as it is (`--existing skip`).
fn say_skipped(output: &std::path::Path) {
    eprintln!(
        "skelnorm: {}: exists, left as it is (--existing skip)",
        output.display()
    );
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

impl Failure {
    /// Its row of the exit-code table, and its message.
    fn row(&self) -> (FailureKind, String) {
        match self {
            Failure::Usage(m) => (FailureKind::Usage, m.clone()),
            Failure::Input(e) => (FailureKind::File, format!("{e:#}")),
            Failure::Refused(m) => (FailureKind::Refused, m.clone()),
            Failure::Nothing(m) => (FailureKind::Nothing, m.clone()),
        }
    }
}

impl From<anyhow::Error> for Failure {
    fn from(e: anyhow::Error) -> Self {
        Failure::Input(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Input(e.into())
    }
}

impl From<serde_json::Error> for Failure {
    fn from(e: serde_json::Error) -> Self {
        Failure::Input(e.into())
    }
}

/// A library job's failure, with the flag that gets past a refusal named.
impl From<JobError> for Failure {
    fn from(e: JobError) -> Self {
        match e {
            JobError::File(e) => Failure::Input(e.into()),
            JobError::Output(m) => Failure::Input(anyhow::anyhow!(m)),
            JobError::Exists(path) => Failure::Input(anyhow::anyhow!(
                "{}: the output exists (--existing error; use --existing overwrite or skip)",
                path.display()
            )),
            JobError::Usage(m) => Failure::Usage(m),
            JobError::Refused { message, hint } => Failure::Refused(match hint {
                Some(skelnorm::jobs::Hint::AllowPartial) => {
                    format!("{message} (use --allow-partial to normalize what is mapped)")
                }
                None => message,
            }),
            JobError::Nothing(m) => Failure::Nothing(m),
        }
    }
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
    use std::io::Write;
    let report = (json || report_file.is_some()).then(report);
    if let (Some(path), Some(report)) = (report_file, &report) {
        write_report(path, &serde_json::to_vec_pretty(report)?)?;
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

/// Writes a report file (JSON or HTML); an error naming it.
fn write_report(path: &std::path::Path, bytes: &[u8]) -> Result<(), Failure> {
    skelnorm::jobs::write_file(path, bytes)
        .map_err(|e| anyhow::anyhow!("{}: cannot write the report: {e}", path.display()).into())
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
