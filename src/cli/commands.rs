//! The command line's shape: the top-level flags and one subcommand per job, with the exit-code
//! table `--help` shows.

use super::{batch, convert, map, mirror, normalize, retarget, ExistingFlag};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

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
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Metres per unit of BVH inputs (such as 0.01 for centimetres); guessed from the
    /// skeleton's height by default.
    #[arg(long, global = true, value_name = "M")]
    pub bvh_scale: Option<f32>,
}

#[derive(Subcommand)]
pub enum Command {
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

/// The command's name and input when it was asked for JSON on stdout (`--json`): a failure then
/// prints a report too, so a script reading stdout always gets one.
pub fn json_context(command: &Command) -> Option<(&'static str, String)> {
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

/// Runs `config`: prints the defaults as a settings file, or the reports' JSON Schema.
pub fn config(dump_defaults: bool, json_schema: bool) -> Result<i32, super::Failure> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if json_schema {
        serde_json::to_writer_pretty(&mut out, &skelnorm::report::json_schema())?;
        writeln!(out)?;
    } else if dump_defaults {
        out.write_all(skelnorm::settings::Settings::dump_defaults().as_bytes())?;
    } else {
        return Err(super::Failure::Usage(
            "config: nothing to do (try --dump-defaults or --json-schema)".into(),
        ));
    }
    Ok(super::EXIT_OK)
}
