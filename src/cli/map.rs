//! `skelnorm map`: map each skeleton's bones to a profile; print text or JSON, optionally write
//! an editable bone-map file.

use super::Failure;
use anyhow::Context;
use skelnorm::gltf_io;
use skelnorm::mapping::{map_skeleton, BoneMapFile, MapReport};
use skelnorm::model::SkeletonId;
use skelnorm::report::{map_text, FailureKind, FileReport, Report, Status};
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
    let doc = super::read(file)?;
    let model = &doc.model;
    let chosen: Vec<SkeletonId> = match skeleton {
        Some(k) => vec![super::skeleton_id(file, model, k)?],
        None => model.skeleton_ids().collect(),
    };
    if chosen.is_empty() {
        return Err(Failure::Refused(format!(
            "{}: has no skeleton to map",
            file.display()
        )));
    }
    if output.is_some() && chosen.len() != 1 {
        return Err(Failure::Usage(format!(
            "{}: has {} skeletons; choose one with --skeleton to write a bone map",
            file.display(),
            chosen.len()
        )));
    }
    let maps: Vec<_> = chosen
        .iter()
        .map(|&k| map_skeleton(model.skeleton(k), &profile, &options))
        .collect();
    let reports: Vec<MapReport> = chosen
        .iter()
        .zip(&maps)
        .map(|(&k, m)| m.report(model.skeleton(k), &profile))
        .collect();
    let partial: Vec<String> = reports
        .iter()
        .filter(|r| !r.missing_required.is_empty())
        .map(|r| {
            format!(
                "skeleton `{}` lacks {}",
                r.skeleton,
                r.missing_required.join(", ")
            )
        })
        .collect();
    let refusal = (!partial.is_empty() && !allow_partial).then(|| {
        format!(
            "{}: not a {} skeleton: {} (use --allow-partial to accept a partial map)",
            file.display(),
            profile.name,
            partial.join("; ")
        )
    });
    let mut f = FileReport::new(file.display().to_string());
    f.add_reader_warnings(&doc.warnings);
    f.set_map(&reports);
    f.time_ms = start.elapsed().as_secs_f64() * 1e3;
    f.settle();
    if let Some(why) = &refusal {
        (f.status, f.failure, f.error) = (
            Status::Refused,
            Some(FailureKind::Refused),
            Some(why.clone()),
        );
    }
    print(file, &reports, &Report::single("map", f), json)?;
    if let Some(why) = refusal {
        eprintln!("skelnorm: {why}");
        return Ok(super::EXIT_REFUSED);
    }
    if let (Some((out, existing)), [k]) = (output, chosen.as_slice()) {
        super::check_not_input(file, out)?;
        if !existing.proceed(out)? {
            return Ok(super::EXIT_OK);
        }
        let text = BoneMapFile::write_ron(&maps[0], model.skeleton(*k), &profile);
        gltf_io::write_file(out, text.as_bytes())
            .with_context(|| format!("{}: cannot write the bone map", out.display()))?;
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
