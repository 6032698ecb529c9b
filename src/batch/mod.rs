//! Batch runs over folder trees: find the glTF files, take each folder's settings (the nearest
//! `skelnorm.ron` above a file), name outputs by rules, leave existing outputs alone or not,
//! process a stable shard of the files, in parallel, and give one report entry per file. A bad
//! file is reported and the run goes on. Inputs are only read; outputs are written atomically.
//! Each file is normalized by [`jobs::normalize_document`](crate::jobs::normalize_document), as
//! `skelnorm normalize` normalizes one. Imports `gltf_io`, `io`, `jobs`, `pipeline`, `settings`,
//! `mapping`, `profile`, `model` and `report`; prints nothing (progress goes to a callback).

mod folder;
mod picture;
mod preview;

use crate::gltf_io::{self, Document};
use crate::jobs::{
    normalize_document, Destination, DocumentError, DocumentNormalized, NormalizeDocument,
};
use crate::pipeline::{
    carry_clips_back, drop_replaced, normalize, retarget_onto, ClipNaming, NormalizeOptions,
    NormalizeReport, RetargetJob, RetargetOutput, RetargetRunError, Side,
};
use crate::report::{FailureKind, FileReport, Report, Status};
use crate::settings::{ResolveError, Resolved, Settings};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The name of a folder's settings file.
pub const SETTINGS_FILE: &str = "skelnorm.ron";

pub use crate::jobs::Existing;
pub use folder::{batch_folder, plan_batch, BatchFolder, BatchPlan};

/// How output names are made from input names: `replace` each FROM by TO in the file's stem,
/// then `prefix` + stem + `suffix`; the extension stays (a batch run sets it first where the
/// output's container differs from the input's: FBX and BVH inputs become `.glb`, and with
/// `--retarget-to` every output takes the character's extension).
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

/// A shard that is not `K/N` with `0 ≤ K < N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}`: a shard is K/N with 0 ≤ K < N (such as 0/3)")]
pub struct ShardError(pub String);

impl std::str::FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(s.to_string());
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

/// Turns a folder's settings (defaults when it has none) into options: the command line's flags
/// written over them, then [`Settings::resolve`].
pub type Resolver<'a> = dyn Fn(&Settings) -> Result<Resolved, ResolveError> + Sync + 'a;

/// Why a batch run could not start (a file that fails is a report entry, not an error).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// A settings file cannot be read or parsed.
    #[error(transparent)]
    Settings(#[from] crate::settings::SettingsError),
    /// Settings do not resolve (a file they name, or a value).
    #[error("{}{source}", origin.as_ref().map(|o| format!("{}: ", o.display())).unwrap_or_default())]
    Resolve {
        /// The settings file, when not the defaults or `--settings`.
        origin: Option<PathBuf>,
        /// What is wrong.
        source: ResolveError,
    },
    /// The worker threads cannot start.
    #[error("cannot start {jobs} worker threads: {source}")]
    Threads {
        /// How many were asked for.
        jobs: usize,
        /// Why.
        source: rayon::ThreadPoolBuildError,
    },
    /// The `--retarget-to` character cannot be read or normalized.
    #[error("{}: {message}", path.display())]
    Target {
        /// Its path.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

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
    /// What the outputs of `retarget_to` hold (as `retarget`'s: the character as it came plus
    /// the new clips, by default).
    pub retarget_output: RetargetOutput,
    /// The settings of files under no `skelnorm.ron` (the defaults, or `--settings`).
    pub base: Settings,
    /// Options per folder settings.
    pub resolve: &'a Resolver<'a>,
    /// How inputs are read (the BVH unit).
    pub read: crate::io::ReadOptions,
    /// Files found that skelnorm does not read (see [`find_unsupported`]): reported as skipped.
    pub unsupported: Vec<(PathBuf, PathBuf)>,
    /// Only these of `files` and `unsupported` (paths relative to their folder) are processed
    /// and reported, the others still counting where outputs would collide: a part of a run
    /// whose parts together report what the whole run would.
    pub only: Option<Vec<PathBuf>>,
}

impl Job<'_> {
    /// Whether the run processes `(root, file)` (one of `files` or `unsupported`): every file,
    /// or those of [`Job::only`].
    pub fn chosen(&self, (root, file): &(PathBuf, PathBuf)) -> bool {
        let rel = file.strip_prefix(root).unwrap_or(file);
        self.only
            .as_ref()
            .is_none_or(|only| only.iter().any(|o| o == rel))
    }
}

/// Every file under `root` that skelnorm reads (`.gltf`, `.glb`, `.vrm`, `.vrma`, `.fbx`,
/// `.bvh`), or `root` itself if it is a file, sorted, each with the folder its relative path
/// starts from.
pub fn find_files(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    if root.is_file() {
        let base = root.parent().map(Path::to_path_buf).unwrap_or_default();
        return vec![(base, root.to_path_buf())];
    }
    let mut out: Vec<(PathBuf, PathBuf)> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && crate::io::is_supported(e.path()))
        .map(|e| (root.to_path_buf(), e.into_path()))
        .collect();
    out.sort();
    out
}

/// Files that travel with models and are no models themselves (buffers, textures, settings,
/// notes): not reported.
const COMPANIONS: &[&str] = &[
    "bin", "png", "jpg", "jpeg", "webp", "ktx2", "dds", "tga", "bmp", "tif", "tiff", "psd", "exr",
    "hdr", "ron", "txt", "md", "json", "html", "css", "js",
];

/// Every other file under `root` (a folder) that is no companion file: models in formats
/// skelnorm does not read (`.obj`, `.dae`, `.blend`…), which a run reports as skipped.
pub fn find_unsupported(root: &Path) -> Vec<(PathBuf, PathBuf)> {
    if root.is_file() {
        return Vec::new();
    }
    let mut out: Vec<(PathBuf, PathBuf)> = walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        // Hidden folders (`.git`) hold no models.
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && !crate::io::is_supported(e.path()))
        .filter(|e| {
            let ext = e
                .path()
                .extension()
                .and_then(|x| x.to_str())
                .map(str::to_ascii_lowercase);
            !ext.is_some_and(|x| COMPANIONS.contains(&x.as_str()))
                && !e.file_name().to_string_lossy().starts_with('.')
        })
        .map(|e| (root.to_path_buf(), e.into_path()))
        .collect();
    out.sort();
    out
}

/// Reads every settings file under the folders of `files` (up to their roots), so that a bad one
/// stops the run before it starts: file → settings, or the first error.
pub fn folder_settings(
    files: &[(PathBuf, PathBuf)],
) -> Result<HashMap<PathBuf, Settings>, crate::settings::SettingsError> {
    let mut out = HashMap::new();
    for (root, file) in files {
        let mut dir = file.parent();
        while let Some(d) = dir {
            let candidate = d.join(SETTINGS_FILE);
            if !out.contains_key(&candidate) && candidate.is_file() {
                let s = Settings::load(&candidate)?;
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
pub fn run(job: &Job, progress: &(dyn Fn(&FileReport) + Sync)) -> Result<Report, BatchError> {
    let start = Instant::now();
    let settings = folder_settings(&job.files)?;
    // Each settings file (and the defaults) resolves once; a bad one stops the run here.
    let mut resolved: HashMap<Option<PathBuf>, Resolved> = HashMap::new();
    let base = (job.resolve)(&job.base).map_err(|source| BatchError::Resolve {
        origin: None,
        source,
    })?;
    resolved.insert(None, base);
    for (path, s) in &settings {
        let r = (job.resolve)(s).map_err(|source| BatchError::Resolve {
            origin: Some(path.clone()),
            source,
        })?;
        resolved.insert(Some(path.clone()), r);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(job.jobs.max(1))
        .build()
        .map_err(|source| BatchError::Threads {
            jobs: job.jobs,
            source,
        })?;
    let target = match &job.retarget_to {
        Some(path) => Some(prepare_target(path, &resolved[&None], &job.read)?),
        None => None,
    };
    let taken = collisions(job);
    let chosen = |f: &&(PathBuf, PathBuf)| job.chosen(f);
    let mine: Vec<&(PathBuf, PathBuf)> = job.files.iter().filter(chosen).collect();
    let mut files: Vec<FileReport> = pool.install(|| {
        mine.par_iter()
            .map(|(root, file)| {
                let options = &resolved[&nearest(&settings, root, file)];
                let report = match taken.get(file) {
                    Some(first) => {
                        let rel = file.strip_prefix(root).unwrap_or(file);
                        let first = first.strip_prefix(root).unwrap_or(first);
                        FileReport::failed(
                            rel.display().to_string(),
                            FailureKind::File,
                            format!(
                                "its output is also the output of {} (rename one, or use --suffix)",
                                first.display()
                            ),
                            0.0,
                        )
                    }
                    None => one_file(job, target.as_ref(), root, file, options),
                };
                progress(&report);
                report
            })
            .collect()
    });
    for (root, file) in job.unsupported.iter().filter(chosen) {
        let rel = file.strip_prefix(root).unwrap_or(file);
        let mut skipped = FileReport::new(rel.display().to_string());
        skipped.status = Status::Skipped;
        skipped.error = Some(format!(
            "not a format skelnorm reads ({}): it reads .gltf, .glb, .vrm, .vrma, .fbx and .bvh",
            rel.extension().map_or_else(
                || "no extension".to_string(),
                |e| format!(".{}", e.to_string_lossy())
            )
        ));
        progress(&skipped);
        files.push(skipped);
    }
    let mut inputs: Vec<String> = job
        .files
        .iter()
        .map(|(r, _)| r.display().to_string())
        .collect();
    inputs.dedup();
    let command = if job.output.is_some() {
        "batch"
    } else {
        "validate"
    };
    let mut report = Report::new(command, inputs);
    report.files = files;
    report.summary.wall_ms = start.elapsed().as_secs_f64() * 1e3;
    report.finish();
    Ok(report)
}

/// One file, never panicking out: a panic inside becomes a failed entry.
fn one_file(
    job: &Job,
    target: Option<&Target>,
    root: &Path,
    file: &Path,
    options: &Resolved,
) -> FileReport {
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
        Ok(Err(e)) => FileReport::failed(name, e.kind(), e.to_string(), ms),
        Err(_) => FileReport::failed(
            name,
            FailureKind::File,
            "internal error (a bug in skelnorm): the file was skipped".into(),
            ms,
        ),
    }
}

/// Why one file failed (its report entry says so; the run goes on).
#[derive(Debug, thiserror::Error)]
enum FileError {
    /// The output exists and `--existing error` is in force.
    #[error("the output {} exists (--existing error; use --existing overwrite or skip)", .0.display())]
    Exists(PathBuf),
    /// The input cannot be read, or the output cannot be built.
    #[error("{0}")]
    Gltf(gltf_io::ErrorKind),
    /// The output cannot be written.
    #[error("{0}")]
    Write(gltf_io::Error),
    /// The output's folder cannot be made.
    #[error("cannot create {}: {source}", dir.display())]
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file has no skeleton that fits to retarget from.
    #[error("no skeleton fits")]
    NoFit,
    /// Retargeting onto `--retarget-to` was refused.
    #[error(transparent)]
    Retarget(#[from] RetargetRunError),
}

impl FileError {
    /// The kind of failure, for the exit code.
    fn kind(&self) -> FailureKind {
        match self {
            FileError::NoFit | FileError::Retarget(_) => FailureKind::Refused,
            FileError::Exists(_)
            | FileError::Gltf(_)
            | FileError::Write(_)
            | FileError::Folder { .. } => FailureKind::File,
        }
    }
}

/// Where the output of `file` (at `rel` below its root) goes, if the job writes outputs: the
/// naming rules applied to its name with the output's extension. With `--retarget-to`, the
/// output holds the character, so it takes the character's container ([`retarget_extension`]:
/// `walk.vrma` onto `hero.glb` writes `walk.glb`); otherwise FBX and BVH inputs become `.glb`
/// and the others keep their extension.
fn output_path(job: &Job, rel: &Path, file: &Path) -> Option<PathBuf> {
    let converted = matches!(
        crate::io::InputFormat::for_path(file),
        Some(crate::io::InputFormat::Fbx | crate::io::InputFormat::Bvh)
    );
    let extension = match &job.retarget_to {
        // An animation-only output holds no character: no VRM.
        Some(character) => Some(match retarget_extension(character) {
            "vrm" if job.retarget_output == RetargetOutput::AnimationOnly => "glb",
            e => e,
        }),
        None => converted.then_some("glb"),
    };
    let rel = match extension {
        Some(e) => rel.with_extension(e),
        None => rel.to_path_buf(),
    };
    job.output.as_ref().map(|o| o.join(job.naming.apply(&rel)))
}

/// The extension of every output of `batch --retarget-to character`: the character's container,
/// since each output is the character with new clips: `gltf` for a `.gltf` character (its
/// buffers in a `.bin` beside each output), `vrm` for a `.vrm` one, `glb` for any other (`.glb`,
/// and `.vrma`, `.fbx`, `.bvh`, which are written as GLB).
fn retarget_extension(character: &Path) -> &'static str {
    let ext = character
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("gltf") => "gltf",
        Some("vrm") => "vrm",
        _ => "glb",
    }
}

/// Inputs whose output another input (earlier in the list) also has, with that input: they
/// fail, rather than one silently overwriting the other (`walk.bvh` beside `walk.glb`).
fn collisions(job: &Job) -> HashMap<PathBuf, PathBuf> {
    let mut claimed: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut out = HashMap::new();
    for (root, file) in &job.files {
        let rel = file.strip_prefix(root).unwrap_or(file);
        if let Some(o) = output_path(job, rel, file) {
            match claimed.get(&o) {
                Some(first) => {
                    out.insert(file.clone(), first.clone());
                }
                None => {
                    claimed.insert(o, file.clone());
                }
            }
        }
    }
    out
}

/// Reads, normalizes (and retargets), writes one file.
fn process(
    job: &Job,
    target: Option<&Target>,
    rel: &Path,
    file: &Path,
    resolved: &Resolved,
) -> Result<FileReport, FileError> {
    let out_path = output_path(job, rel, file);
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
                Existing::Error => return Err(FileError::Exists(out.clone())),
                Existing::Overwrite => {}
            }
        }
    }
    let mut doc = crate::io::read(file, &job.read).map_err(|e| FileError::Gltf(e.kind))?;
    report.add_reader_warnings(&doc.warnings);
    if let Some(t) = target {
        // As `pipeline::retarget`: a source is normalized as the target's clients show a scene
        // (a VRM 0.x target faces −Z in its file), so both face one way.
        doc.model.view_turn = t.doc.model.view_turn;
    }
    // A file retargeted onto `--retarget-to` is a source: the source's bone map applies.
    let options = match target {
        Some(_) => std::borrow::Cow::Owned(NormalizeOptions {
            map: resolved.source_map.clone(),
            ..resolved.normalize.clone()
        }),
        None => std::borrow::Cow::Borrowed(&resolved.normalize),
    };
    let out = out_path.as_deref();
    // Retargeting's warnings follow normalizing's: a source is measured before it is retargeted.
    let destination = match (target, out) {
        (Some(_), _) => Destination::Keep,
        (None, Some(out)) => {
            make_folder(out)?;
            Destination::File(out)
        }
        (None, None) => Destination::Check,
    };
    let to = NormalizeDocument {
        destination,
        threads: check_threads(job),
        keep_before: true,
    };
    let (normalized, before) = match normalize_document(&mut doc, &to, &resolved.profile, &options)
    {
        Ok(DocumentNormalized { report, before }) => (report, before.unwrap_or_default()),
        Err(DocumentError::Refused { error, before }) => {
            // Not a fit (or refused): still picture what was mapped, so the report shows why.
            let before = before.map(|b| *b).unwrap_or_default();
            report.status = Status::Refused;
            report.failure = Some(FailureKind::Refused);
            report.error = Some(error.to_string());
            report.output = None;
            report.pictures = picture::unfit(&before, &resolved.profile, &options.map);
            return Ok(report);
        }
        // Validate builds the output only: its failure is the file's, as a read's is.
        Err(DocumentError::File(e)) if out.is_none() => return Err(FileError::Gltf(e.kind)),
        Err(DocumentError::File(e)) => return Err(FileError::Write(e)),
    };
    report.pictures = picture::pictures(&before, &doc.model, &normalized, &resolved.profile);
    if target.is_none() {
        report.previews =
            preview::normalize_previews(&before, &doc.model, &normalized, &resolved.profile);
    }
    drop(before); // the model as read: what pictures and previews compare with
    report.set_normalize(&normalized);
    if let Some(target) = target {
        let mut written = retarget_to(
            target,
            &doc,
            &normalized,
            resolved,
            job.retarget_output,
            &mut report,
        )?;
        prepare(&mut written, out)?;
        put(&written, out)?;
    }
    if let Some(out) = out {
        report.size_after = gltf_io::stored_size(out);
    }
    report.settle();
    Ok(report)
}

/// The threads each file's skin check runs on: the workers that files leave idle (a run never
/// uses more than `jobs` threads; with as many files as jobs, each file's check stays on its
/// own thread).
fn check_threads(job: &Job) -> usize {
    let jobs = job.jobs.max(1);
    (jobs / job.files.len().clamp(1, jobs)).max(1)
}

/// Makes `out`'s folder and lets go of what writing `doc` does not need; nothing without `out`
/// (validate).
fn prepare(doc: &mut Document, out: Option<&Path>) -> Result<(), FileError> {
    if let Some(out) = out {
        make_folder(out)?;
        doc.let_go_of_read_keys();
    }
    Ok(())
}

/// Makes the folder `out` goes in.
fn make_folder(out: &Path) -> Result<(), FileError> {
    match out.parent() {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|source| FileError::Folder {
            dir: dir.to_path_buf(),
            source,
        }),
        None => Ok(()),
    }
}

/// Writes `doc` to `out`; without `out` (validate), checks that the output at least builds.
fn put(doc: &Document, out: Option<&Path>) -> Result<(), FileError> {
    match out {
        Some(out) => doc.write(out).map_err(FileError::Write),
        None => doc
            .to_parts(None)
            .map(drop)
            .map_err(|e| FileError::Gltf(e.kind)),
    }
}

/// The character of `--retarget-to`, normalized once for the whole run.
struct Target {
    /// The character as it came.
    original: Document,
    /// The character normalized.
    doc: Document,
    side: Side,
}

fn prepare_target(
    path: &Path,
    resolved: &Resolved,
    read: &crate::io::ReadOptions,
) -> Result<Target, BatchError> {
    let failed = |message: String| BatchError::Target {
        path: path.to_path_buf(),
        message,
    };
    let original = crate::io::read(path, read).map_err(|e| failed(e.kind.to_string()))?;
    let mut doc = original.clone();
    let options = NormalizeOptions {
        map: resolved.target_map.clone(),
        ..resolved.normalize.clone()
    };
    let report = normalize(&mut doc.model, &resolved.profile, &options)
        .map_err(|e| failed(e.to_string()))?;
    let side = Side::of(&report).ok_or_else(|| failed("no skeleton fits".into()))?;
    Ok(Target {
        original,
        doc,
        side,
    })
}

/// The target character with `source`'s clips retargeted onto it, as `output` asks (by default
/// the character as it came, the new clips in its own rests); a clip whose name the target has
/// takes ` (retargeted)`.
fn retarget_to(
    target: &Target,
    source: &Document,
    normalized: &NormalizeReport,
    resolved: &Resolved,
    output: RetargetOutput,
    report: &mut FileReport,
) -> Result<Document, FileError> {
    let side = Side::of(normalized).ok_or(FileError::NoFit)?;
    let job = RetargetJob {
        retarget: resolved.retarget.clone(),
        naming: ClipNaming {
            on_clash: resolved.on_clash,
            ..ClipNaming::default()
        },
        measure: resolved.normalize.measure,
        ..RetargetJob::default()
    };
    let mut out = target.doc.clone();
    let before = out.model.clips.len();
    let r = retarget_onto(
        (&source.model, &side),
        (&mut out.model, &target.side),
        &resolved.profile,
        &job,
    )?;
    report.target = Some(target.original.path.display().to_string());
    report.set_retarget(&r);
    report.previews = preview::retarget_previews(
        (&source.model, &side),
        (&out.model, &target.side),
        &resolved.profile,
        &r,
        &job,
    );
    if output == RetargetOutput::Normalized {
        drop_replaced(&mut out.model.clips, before, &r);
        return Ok(out);
    }
    let mut original = target.original.clone();
    carry_clips_back(
        &mut original.model,
        &out.model,
        before,
        &target.side,
        &r,
        output,
    )
    .map_err(RetargetRunError::Restore)?;
    if output == RetargetOutput::AnimationOnly {
        return gltf_io::animation_only(&original.model, &original.path)
            .map_err(|e| FileError::Gltf(e.kind));
    }
    Ok(original)
}
