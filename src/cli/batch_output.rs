//! What `batch` and `validate` show and write: the progress bar on a terminal, one line per failed
//! file, the summary line, the exit code, the JSON/HTML reports; and `skelnorm report merge`.

use super::batch::RunArgs;
use super::Failure;
use skelnorm::report::{render_html, FailureKind, FileReport, Report, Status, Summary};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

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

/// A progress bar on stderr when it is a terminal and not `--quiet`.
pub fn progress_bar(total: usize, quiet: bool) -> indicatif::ProgressBar {
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
pub fn nothing_to_do(paths: &[&Path], unsupported: usize) -> Failure {
    let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    Failure::Nothing(format!(
        "no glTF, GLB, VRM, VRMA, FBX or BVH files under {} ({} skipped)",
        paths.join(", "),
        count(unsupported, "other file", "other files")
    ))
}

fn write_reports(report: &Report, json: Option<&Path>, html: Option<&Path>) -> Result<(), Failure> {
    if let Some(p) = json {
        super::write_report(p, &serde_json::to_vec_pretty(report)?)?;
    }
    if let Some(p) = html {
        super::write_report(p, render_html(report).as_bytes())?;
    }
    Ok(())
}

pub fn one_line(f: &FileReport) -> Option<String> {
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

/// The end of a `batch` or `validate` run: writes the reports asked for, prints the summary
/// line, and gives the exit code (4 with its message when there was nothing to do).
pub fn finish(
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
