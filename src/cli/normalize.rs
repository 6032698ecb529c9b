//! `skelnorm normalize`: map → rest fix → strip tracks → rename, write the result, print a
//! summary, optionally write a JSON report with the mapping, the per-bone changes, the removed
//! tracks, the renamed bones, the file sizes and the measured invariants.

use super::map::MapArgs;
use super::stages::StageFlags;
use super::{Failure, Kept};
use skelnorm::check::cores;
use skelnorm::gltf_io::{Displacement, Error};
use skelnorm::model::{Model, Skeleton, SkeletonId};
use skelnorm::pipeline::{
    map_skeletons, normalize_mapped_again, Mapped, Measuring, NormalizeError, NormalizeOptions,
    NormalizeReport,
};
use skelnorm::profile::Profile;
use skelnorm::report::{FileReport, NormalizeRun, Report};
use std::path::{Path, PathBuf};

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
    super::check_output(&args.output)?;
    super::check_not_input(&args.input, &args.output)?;
    let start = std::time::Instant::now();
    let (read, ahead) = read_and_settle(args);
    let (profile, mut options, mapped) = ahead?;
    // Kept until the process ends, as the document is (see `Kept`): nothing to free one by one.
    let profile = std::mem::ManuallyDrop::new(profile);
    let allow_partial = options.allow_partial;
    let mut doc = read?;
    // The stages do not look at the JSON: as text it takes a tenth of the memory meanwhile.
    doc.let_go_of_json();
    let file = FileReport::read(&args.input, &doc.warnings);
    if !args.existing.proceed(&args.output)? {
        return super::skipped(file, "normalize", args.json);
    }
    options.skeleton = args
        .skeleton
        .map(|k| super::skeleton_id(&args.input, &doc.model, k))
        .transpose()?;
    // Rebinding moves vertices off the exact skin: measured from the mesh data as read.
    let bind_measure = match options.rest.rebind {
        true => Some(doc.bind_measure()?),
        false => None,
    };
    // The key values the skin check compares with are read again from the file's bytes, clip
    // by clip, rather than kept in a copy of the model (`normalize_mapped_again`).
    let again = doc.values_again();
    // The JSON is readied for writing beside the stages (and the mapping, when it was not made
    // beside the clips' read); then the skin check runs beside the write, on the other cores,
    // then on this one too.
    doc.change_then_write(
        |model| {
            let mapped =
                mapped.unwrap_or_else(|| map_skeletons(&model.skeletons, &profile, &options));
            mapped.and_then(|m| normalize_mapped_again(model, m, &profile, &options, again))
        },
        |normalized, model, write| {
            let mut normalized = normalized;
            if let (Ok((report, _)), Some(m)) = (&mut normalized, &bind_measure) {
                put_displacements(report, &m.measure(model)?);
            }
            finish(args, file, allow_partial, start, normalized, model, write)
        },
    )
}

/// Puts the displacements a rebind measured into the rest reports of their skeletons' skins.
fn put_displacements(report: &mut NormalizeReport, found: &[Displacement]) {
    for d in found {
        let skeleton = report.skeletons.iter_mut().find(|s| s.index == d.skeleton);
        let rest = skeleton.and_then(|s| s.rest.as_mut());
        if let Some(bind) = rest.and_then(|r| r.bind.get_mut(d.skin)) {
            bind.displacement = Some(d.max);
        }
    }
}

/// The rest of [`run`] once the stages ran (`normalized`): reports a refusal, or writes the
/// model (`write`) while its skin is checked, and prints the report.
fn finish(
    args: &NormalizeArgs,
    mut file: FileReport,
    allow_partial: bool,
    start: std::time::Instant,
    normalized: Result<(NormalizeReport, Measuring), NormalizeError>,
    model: &Model,
    write: &dyn Fn(&Path) -> Result<(), Error>,
) -> Result<i32, Failure> {
    let (report, measuring) = match normalized {
        Ok(r) => r,
        Err(e @ NormalizeError::NoFit { .. }) => {
            return Err(Failure::Refused(format!(
                "{}: {e}{}",
                args.input.display(),
                if allow_partial {
                    ""
                } else {
                    " (use --allow-partial to normalize what is mapped)"
                }
            )));
        }
        Err(e @ NormalizeError::NoSkeleton(..)) => {
            return Err(Failure::Usage(format!("{}: {e}", args.input.display())))
        }
        Err(e) => return Err(Failure::Refused(format!("{}: {e}", args.input.display()))),
    };
    let mut report = std::mem::ManuallyDrop::new(report);
    measuring.run_beside(model, &mut report, cores(), || write(&args.output))?;
    file.wrote(&args.output);
    file.time_ms = start.elapsed().as_secs_f64() * 1e3;
    let reader = file.warnings.clone();
    let out = NormalizeRun {
        file: args.input.display().to_string(),
        output: args.output.display().to_string(),
        size_before: file.size_before,
        size_after: file.size_after,
        report: &report,
        reader: &reader,
    };
    let json = || {
        file.set_normalize(&report);
        file.settle();
        Report::single("normalize", file)
    };
    super::emit(json, args.report.as_deref(), args.json, |w| {
        out.write_text(w)
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

/// What `normalize` needs of the file beside its settings, made as soon as its skeletons are
/// read: [`settings`], with the bone maps of the skeletons chosen (made again after the read
/// when `--skeleton` names none of them: that is an error then).
type Ahead = (
    Profile,
    NormalizeOptions,
    Option<Result<Mapped, NormalizeError>>,
);

/// The input read, and what `normalize` needs beside it ([`Ahead`]): the settings resolved on a
/// thread of their own while the file is read, the skeletons mapped while its clips are read on
/// another thread (a file with many keys; with few, the skeletons are given after the clips, on
/// this thread, and mapped later, beside the JSON readied for writing). Settings that fail win
/// over a file that does (as when they were resolved before the read).
fn read_and_settle(args: &NormalizeArgs) -> (Result<Kept, Error>, Result<Ahead, Failure>) {
    let here = std::thread::current().id();
    std::thread::scope(|s| {
        let resolving = std::thread::Builder::new()
            .name("skelnorm settings".into())
            .spawn_scoped(s, || settings(args));
        let resolving = std::sync::Mutex::new(resolving.ok());
        // The settings resolved there, or here when no thread could be started.
        let resolved = || {
            let thread = resolving.lock().ok().and_then(|mut t| t.take());
            match thread.map(|t| t.join()) {
                Some(Ok(settings)) => settings,
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                None => settings(args),
            }
        };
        let mut ahead = None;
        let read = super::read_and(&args.input, &mut |skeletons| {
            let beside = std::thread::current().id() != here;
            ahead = Some(resolved().map(|(profile, options)| {
                if beside {
                    with_maps(args, (profile, options), skeletons)
                } else {
                    (profile, options, None)
                }
            }));
        });
        let ahead = ahead.unwrap_or_else(|| resolved().map(|(p, o)| (p, o, None)));
        (read, ahead)
    })
}

/// The profile and options `settings` with the bone maps of the skeletons `args` chooses (see
/// [`Ahead`]).
fn with_maps(
    args: &NormalizeArgs,
    (profile, mut options): (Profile, NormalizeOptions),
    skeletons: &[Skeleton],
) -> Ahead {
    let chosen = match args.skeleton.map(u32::try_from) {
        None => None,
        Some(Ok(k)) if (k as usize) < skeletons.len() => Some(SkeletonId(k)),
        Some(_) => return (profile, options, None),
    };
    options.skeleton = chosen;
    let mapped = map_skeletons(skeletons, &profile, &options);
    (profile, options, Some(mapped))
}
