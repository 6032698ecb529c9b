//! Batch runs over folder trees: find the glTF files, take each folder's settings (the nearest
//! `skelnorm.ron` above a file), name outputs by rules, leave existing outputs alone or not,
//! process a stable shard of the files, in parallel, and give one report entry per file. A bad
//! file is reported and the run goes on. Inputs are only read; outputs are written atomically.
//! Imports `gltf_io`, `pipeline`, `settings`, `retarget`, `check`, `mapping`, `profile`,
//! `model` and `report`; prints nothing (progress goes to a callback).

mod picture;

use crate::check::retarget::retarget as measure_retarget;
use crate::gltf_io::{self, Document};
use crate::pipeline::{normalize, NormalizeOptions};
use crate::profile::Profile;
use crate::report::{BatchReport, FileReport, Status};
use crate::retarget::{retarget_clip, RetargetOptions, Rig};
use crate::settings::Settings;
use crate::tracks::COMPANION_SUFFIX;
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The name of a folder's settings file.
pub const SETTINGS_FILE: &str = "skelnorm.ron";

/// What to do when an output already exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Existing {
    /// Leave it, and report the input as skipped.
    Skip,
    /// Replace it.
    Overwrite,
    /// Report the input as failed.
    #[default]
    Error,
}

/// How output names are made from input names: `replace` each FROM by TO in the file's stem,
/// then `prefix` + stem + `suffix`; the extension stays.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Naming {
    /// Put before the stem.
    pub prefix: String,
    /// Put after the stem.
    pub suffix: String,
    /// FROM → TO replacements in the stem, in order.
    pub replace: Vec<(String, String)>,
}

impl Naming {
    /// The output path for `rel` (a path relative to the input folder).
    pub fn apply(&self, rel: &Path) -> PathBuf {
        let stem = rel
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let stem = self
            .replace
            .iter()
            .fold(stem, |s, (from, to)| s.replace(from, to));
        let mut name = format!("{}{stem}{}", self.prefix, self.suffix);
        if let Some(ext) = rel.extension() {
            name.push('.');
            name.push_str(&ext.to_string_lossy());
        }
        rel.with_file_name(name)
    }
}

/// One of `count` shards: the files whose relative path hashes to `index`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 0-based.
    pub index: u32,
    /// How many shards in all.
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`{s}`: a shard is K/N with 0 ≤ K < N (such as 0/3)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether `rel` belongs to this shard: FNV-1a of its path with `/` separators, so every
    /// machine and every run agrees.
    pub fn contains(&self, rel: &Path) -> bool {
        let text = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h % self.count as u64 == self.index as u64
    }
}

/// The options one file is processed with, from its folder's settings and the flags.
pub struct Resolved {
    /// The profile.
    pub profile: Profile,
    /// Options of `normalize` for this file (defaults < settings files < flags).
    pub normalize: NormalizeOptions,
    /// Retargeting (with `--retarget-to`).
    pub retarget: RetargetOptions,
}

/// Turns a folder's settings (defaults when it has none) into options, applying the flags.
pub type Resolver<'a> = dyn Fn(&Settings) -> Result<Resolved, String> + Sync + 'a;

/// A batch or validate run.
pub struct Job<'a> {
    /// The files, with the folder they were found under (their paths are reported relative to
    /// it) — see [`find_files`].
    pub files: Vec<(PathBuf, PathBuf)>,
    /// Where outputs go (mirroring the input tree); `None` checks without writing (validate).
    pub output: Option<PathBuf>,
    /// Worker threads.
    pub jobs: usize,
    /// Existing outputs.
    pub existing: Existing,
    /// Output names.
    pub naming: Naming,
    /// A character that every file's clips are retargeted onto.
    pub retarget_to: Option<PathBuf>,
    /// The settings of files under no `skelnorm.ron` (the defaults, or `--settings`).
    pub base: Settings,
    /// Options per folder settings.
    pub resolve: &'a Resolver<'a>,
}

/// Every `.gltf`, `.glb`, `.vrm` and `.vrma` file under `root` (or `root` itself if it is a
/// file), sorted, each with the folder its relative path starts from.
pub fn find_files(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    if root.is_file() {
        let base = root.parent().map(Path::to_path_buf).unwrap_or_default();
        return vec![(base, root.to_path_buf())];
    }
    let mut out: Vec<(PathBuf, PathBuf)> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && gltf_io::Format::for_path(e.path()).is_some())
        .map(|e| (root.to_path_buf(), e.into_path()))
        .collect();
    out.sort();
    out
}

/// Reads every settings file under the folders of `files` (up to their roots), so that a bad one
/// stops the run before it starts: file → settings, or the first error.
pub fn folder_settings(files: &[(PathBuf, PathBuf)]) -> Result<HashMap<PathBuf, Settings>, String> {
    let mut out = HashMap::new();
    for (root, file) in files {
        let mut dir = file.parent();
        while let Some(d) = dir {
            let candidate = d.join(SETTINGS_FILE);
            if !out.contains_key(&candidate) && candidate.is_file() {
                let s = Settings::load(&candidate).map_err(|e| e.to_string())?;
                out.insert(candidate, s);
            }
            if d == root.as_path() {
                break;
            }
            dir = d.parent();
        }
    }
    Ok(out)
}

/// The nearest settings file above `file` (within `root`), if any.
fn nearest(found: &HashMap<PathBuf, Settings>, root: &Path, file: &Path) -> Option<PathBuf> {
    let mut dir = file.parent();
    while let Some(d) = dir {
        let candidate = d.join(SETTINGS_FILE);
        if found.contains_key(&candidate) {
            return Some(candidate);
        }
        if d == root {
            return None;
        }
        dir = d.parent();
    }
    None
}

/// Runs the job: every file in parallel on `jobs` threads, calling `progress` after each.
pub fn run(job: &Job, progress: &(dyn Fn(&FileReport) + Sync)) -> Result<BatchReport, String> {
    let start = Instant::now();
    let settings = folder_settings(&job.files)?;
    // Each settings file (and the defaults) resolves once; a bad one stops the run here.
    let mut resolved: HashMap<Option<PathBuf>, Resolved> = HashMap::new();
    resolved.insert(None, (job.resolve)(&job.base)?);
    for (path, s) in &settings {
        let r = (job.resolve)(s).map_err(|e| format!("{}: {e}", path.display()))?;
        resolved.insert(Some(path.clone()), r);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(job.jobs.max(1))
        .build()
        .map_err(|e| format!("cannot start {} worker threads: {e}", job.jobs))?;
    let target = match &job.retarget_to {
        Some(path) => Some(prepare_target(path, &resolved[&None])?),
        None => None,
    };
    let files: Vec<FileReport> = pool.install(|| {
        job.files
            .par_iter()
            .map(|(root, file)| {
                let options = &resolved[&nearest(&settings, root, file)];
                let report = one_file(job, target.as_ref(), root, file, options);
                progress(&report);
                report
            })
            .collect()
    });
    let mut report = BatchReport {
        command: if job.output.is_some() { "batch" } else { "validate" }.into(),
        inputs: {
            let mut v: Vec<String> = job.files.iter().map(|(r, _)| r.display().to_string()).collect();
            v.dedup();
            v
        },
        files,
        ..BatchReport::default()
    };
    report.summary.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    report.finish();
    Ok(report)
}

/// One file, never panicking out: a panic inside becomes a failed entry.
fn one_file(job: &Job, target: Option<&Target>, root: &Path, file: &Path, options: &Resolved) -> FileReport {
    let start = Instant::now();
    let rel = file.strip_prefix(root).unwrap_or(file).to_path_buf();
    let name = rel.display().to_string();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        process(job, target, &rel, file, options)
    }));
    let ms = start.elapsed().as_secs_f64() * 1e3;
    match outcome {
        Ok(Ok(mut r)) => {
            r.input = name;
            r.time_ms = ms;
            r
        }
        Ok(Err(e)) => FileReport::failed(name, e, ms),
        Err(_) => FileReport::failed(
            name,
            "internal error (a bug in skelnorm): the file was skipped".into(),
            ms,
        ),
    }
}

/// Reads, normalizes (and retargets), writes one file.
fn process(
    job: &Job,
    target: Option<&Target>,
    rel: &Path,
    file: &Path,
    resolved: &Resolved,
) -> Result<FileReport, String> {
    let out_path = job.output.as_ref().map(|o| o.join(job.naming.apply(rel)));
    let mut report = FileReport::new(rel.display().to_string());
    report.size_before = gltf_io::stored_size(file);
    if let Some(out) = &out_path {
        report.output = Some(out.display().to_string());
        if out.exists() {
            match job.existing {
                Existing::Skip => {
                    report.status = Status::Skipped;
                    report.error = Some("the output exists (--existing skip)".into());
                    return Ok(report);
                }
                Existing::Error => {
                    return Err(format!(
                        "the output {} exists (use --existing skip or overwrite)",
                        out.display()
                    ))
                }
                Existing::Overwrite => {}
            }
        }
    }
    let mut doc = gltf_io::read(file).map_err(|e| e.kind.to_string())?;
    let before = doc.model.clone();
    let normalized = match normalize(&mut doc.model, &resolved.profile, &resolved.normalize) {
        Ok(r) => r,
        Err(e) => {
            // Not a fit (or refused): still picture what was mapped, so the report shows why.
            report.status = Status::Failed;
            report.error = Some(e.to_string());
            report.output = None;
            report.pictures = picture::unfit(&before, &resolved.profile, &resolved.normalize.map);
            return Ok(report);
        }
    };
    report.set_normalize(&normalized);
    report.pictures = picture::pictures(&before, &doc.model, &normalized, &resolved.profile);
    let written = match target {
        Some(target) => retarget_onto(target, &doc, &normalized, resolved, &mut report)?,
        None => doc,
    };
    if let Some(out) = &out_path {
        if let Some(dir) = out.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        written.write(out).map_err(|e| e.to_string())?;
        report.size_after = gltf_io::stored_size(out);
    } else {
        // Validate: the output must at least build.
        written.to_parts(None).map_err(|e| e.kind.to_string())?;
    }
    report.status = if report.warnings.is_empty() {
        Status::Ok
    } else {
        Status::Warnings
    };
    Ok(report)
}

/// The character of `--retarget-to`, normalized once for the whole run.
struct Target {
    doc: Document,
    index: usize,
    map: crate::mapping::BoneMap,
}

fn prepare_target(path: &Path, resolved: &Resolved) -> Result<Target, String> {
    let mut doc = gltf_io::read(path).map_err(|e| e.to_string())?;
    let report = normalize(&mut doc.model, &resolved.profile, &resolved.normalize)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let s = report
        .skeletons
        .into_iter()
        .find(|s| s.skipped.is_none())
        .ok_or_else(|| format!("{}: no skeleton fits", path.display()))?;
    Ok(Target {
        doc,
        index: s.index,
        map: s.bone_map,
    })
}

/// The target character (normalized) with `source`'s clips retargeted onto it.
fn retarget_onto(
    target: &Target,
    source: &Document,
    normalized: &crate::pipeline::NormalizeReport,
    resolved: &Resolved,
    report: &mut FileReport,
) -> Result<Document, String> {
    let s = normalized
        .skeletons
        .iter()
        .find(|s| s.skipped.is_none())
        .ok_or("no skeleton fits")?;
    let mut out = target.doc.clone();
    let (sr, tr) = (
        Rig {
            skeleton: &source.model.skeletons[s.index],
            map: &s.bone_map,
            profile: &resolved.profile,
        },
        Rig {
            skeleton: &target.doc.model.skeletons[target.index],
            map: &target.map,
            profile: &resolved.profile,
        },
    );
    let mut measures = Vec::new();
    for clip in source
        .model
        .clips
        .iter()
        .filter(|c| c.skeleton == s.index && !c.name.ends_with(COMPANION_SUFFIX))
    {
        let r = retarget_clip(&sr, clip, &tr, target.index, &resolved.retarget).map_err(|e| e.to_string())?;
        let m = measure_retarget((&sr, clip), (&tr, &r.clip), &r.plan, &resolved.retarget);
        measures.push(serde_json::json!({ "clip": clip.name, "plan": r.plan, "measured": m }));
        let mut new = r.clip;
        if out.model.clips.iter().any(|c| c.name == new.name) {
            new.name = format!("{} (retargeted)", new.name);
        }
        out.model.clips.push(new);
    }
    if measures.is_empty() {
        return Err("has no clips to retarget".into());
    }
    report.retarget = Some(serde_json::Value::Array(measures));
    Ok(out)
}
