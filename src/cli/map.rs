//! `skelnorm map`: map each skeleton's bones to a profile; print text or JSON, optionally write
//! an editable bone-map file.

use super::Failure;
use anyhow::Context;
use skelnorm::jobs::{map_file, BoneMaps, MapFile};
use skelnorm::mapping::MapReport;
use skelnorm::report::{map_text, Report};
use skelnorm::settings::Settings;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The flags shared by every command that maps bones.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct MapArgs {
    /// A profile RON file to map to instead of the built-in humanoid.
    #[arg(long, value_name = "PROFILE")]
    pub profile: Option<PathBuf>,
    /// A bone-map RON file (from `skelnorm map -o`); its entries win over auto-mapping.
    #[arg(long, value_name = "MAP")]
    pub bone_map: Option<PathBuf>,
    /// Auto-map even when the file declares a VRM humanoid map.
    #[arg(long)]
    pub ignore_vrm: bool,
}

impl MapArgs {
    /// Writes the flags given into `settings` (they win over the file's).
    pub fn apply(&self, settings: &mut Settings) {
        let path = |p: &PathBuf| super::flag_path(p, settings.folder.is_some());
        if let Some(p) = &self.profile {
            settings.map.profile = Some(path(p));
        }
        if let Some(p) = &self.bone_map {
            settings.map.bone_map = Some(path(p));
        }
        settings.map.ignore_vrm |= self.ignore_vrm;
    }
}

/// Runs `map`; a [`Failure::Refused`] (exit 3) for a partial map or a file without skeletons.
pub fn run(
    file: &Path,
    args: &MapArgs,
    json: bool,
    output: Option<(&Path, &super::ExistingFlag)>,
    skeleton: Option<usize>,
    allow_partial: bool,
) -> Result<i32, Failure> {
    let mut settings = Settings::default();
    args.apply(&mut settings);
    let (profile, options) = settings
        .resolve_map()
        .map_err(|e| Failure::Usage(e.to_string()))?;
    let start = std::time::Instant::now();
    let job = MapFile {
        input: file,
        read: &super::read_options(),
        skeleton,
        allow_partial,
        bone_map_file: output.is_some(),
    };
    let BoneMaps {
        file: mut report,
        reports,
        refusal,
        bone_map_file,
    } = map_file(&job, &profile, &options)?;
    report.time_ms = start.elapsed().as_secs_f64() * 1e3;
    print(file, &reports, &Report::single("map", report), json)?;
    // The template is written even when the map is refused: pre-filled with everything found,
    // it is where the user completes the map.
    let mut written = None;
    if let (Some((out, existing)), Some(text)) = (output, bone_map_file) {
        skelnorm::jobs::check_not_input(file, out)?;
        if existing.proceed(out)? {
            skelnorm::jobs::write_file(out, text.as_bytes())
                .with_context(|| format!("{}: cannot write the bone map", out.display()))?;
            written = Some(out);
        }
    }
    if let Some(why) = refusal {
        eprintln!("skelnorm: {why}");
        if let Some(out) = written {
            eprintln!(
                "skelnorm: wrote {} with the bones found: fill in the missing ones and pass it with --bone-map",
                out.display()
            );
        }
        return Ok(super::EXIT_REFUSED);
    }
    Ok(super::EXIT_OK)
}

fn print(file: &Path, reports: &[MapReport], report: &Report, json: bool) -> Result<(), Failure> {
    if json {
        return super::print_json(report);
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    {
        writeln!(w, "{}", file.display())?;
        for r in reports {
            map_text(&mut w, r)?;
        }
    }
    w.flush()?;
    Ok(())
}
