//! Flags of the stages after mapping, one struct per stage, each resolved over the stage's
//! options from the settings file (defaults < settings file < flags).

use super::Failure;
use skelnorm::rename::RenameOptions;
use skelnorm::rest::RestOptions;
use skelnorm::settings::Settings;
use skelnorm::tracks::{TrackOptions, UnmappedBones};

/// Flags of the rest fix; each flips or sets one field of `RestOptions` (defaults there).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RestArgs {
    /// Leave the nodes above the skeleton (0.01 scales, Z-up rotations) where they are.
    #[arg(long)]
    pub keep_node_transforms: bool,
    /// Do not turn a character that faces −Z or sideways.
    #[arg(long)]
    pub no_facing: bool,
    /// Turn a character that faces −Z or sideways only inside its skeleton, with the opposite
    /// turn on the node above it, so the scene looks as before (by default the whole scene
    /// turns to face +Z, leaving no transform above the skeleton).
    #[arg(long)]
    pub keep_scene_transform: bool,
    /// Keep the rest pose's silhouette (no A-pose → T-pose).
    #[arg(long)]
    pub no_silhouette: bool,
    /// Leave bones within this many degrees of the profile's direction alone (default 0:
    /// align exactly; Godot uses 15).
    #[arg(long, value_name = "DEG")]
    pub silhouette_threshold: Option<f32>,
    /// A profile bone the silhouette fix leaves alone (repeatable).
    #[arg(long, value_name = "BONE")]
    pub silhouette_skip: Vec<String>,
    /// Make feet flat (toes forward) instead of keeping their pitch.
    #[arg(long)]
    pub flatten_feet: bool,
    /// Keep mapped bones' global rest rotations instead of the profile's.
    #[arg(long)]
    pub no_overwrite_axes: bool,
    /// Divide root and hips translation keys by the hips height (recorded in the clip).
    #[arg(long)]
    pub motion_scale: bool,
    /// Make the bind pose the new T-pose: skinned vertices are baked into it (linear blend
    /// skinning; the report gives the largest displacement) and the inverse bind matrices come
    /// from the new rest.
    #[arg(long)]
    pub rebind: bool,
    /// Keep every skin's bind as the file had it (vertex data untouched): each joint's skinning
    /// matrix stays the same, and Blender shows the original bind as the rest.
    #[arg(long, conflicts_with = "rebind")]
    pub keep_bind: bool,
}

impl RestArgs {
    /// Writes the flags given into the rest options `o` (from the defaults or a settings file).
    pub fn apply(&self, o: &mut RestOptions) -> Result<(), Failure> {
        o.apply_node_transforms &= !self.keep_node_transforms;
        o.fix_facing &= !self.no_facing;
        o.keep_scene_transform |= self.keep_scene_transform;
        o.fix_silhouette &= !self.no_silhouette;
        if let Some(t) = self.silhouette_threshold {
            if !(0.0..=180.0).contains(&t) {
                return Err(Failure::Usage(format!(
                    "--silhouette-threshold {t}: must be between 0 and 180 degrees"
                )));
            }
            o.silhouette_threshold_deg = t;
        }
        o.silhouette_skip
            .extend(self.silhouette_skip.iter().cloned());
        o.flatten_feet |= self.flatten_feet;
        o.overwrite_axes &= !self.no_overwrite_axes;
        o.motion_scale |= self.motion_scale;
        o.rebind |= self.rebind;
        o.keep_bind |= self.keep_bind;
        Ok(())
    }
}

/// Which stages run; each flag turns one off.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct StageArgs {
    /// Skip the rest fix (keep the rest pose, axes and node transforms).
    #[arg(long)]
    pub no_rest: bool,
    /// Skip track stripping (keep every channel).
    #[arg(long)]
    pub no_strip: bool,
    /// Skip renaming (keep every bone's name).
    #[arg(long)]
    pub no_rename: bool,
}

/// What `--unmapped-bones` takes.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnmappedArg {
    /// Leave their tracks in the clips.
    Keep,
    /// Remove their tracks.
    Remove,
    /// Move their tracks to companion clips named `<clip>.unmapped`.
    Separate,
}

/// Flags of track stripping; each flips or sets one field of `TrackOptions` (defaults there).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct TrackArgs {
    /// Remove every channel that is not a bone transform (morph weights, pointer channels,
    /// other nodes).
    #[arg(long)]
    pub except_bone_transform: bool,
    /// Keep the translation tracks of every bone (by default only Root and Hips keep theirs,
    /// unless a track moves its bone).
    #[arg(long)]
    pub keep_positions: bool,
    /// A profile bone whose translation tracks are kept, besides Root and Hips (repeatable).
    #[arg(long, value_name = "BONE")]
    pub position_bone: Vec<String>,
    /// What becomes of the tracks of unmapped bones.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub unmapped_bones: Option<UnmappedArg>,
    /// Remove channels whose every key equals the rest.
    #[arg(long)]
    pub drop_rest_channels: bool,
    /// How close to the rest counts as the rest (fraction of the height; radians for
    /// rotations; default 1e-5).
    #[arg(long, value_name = "X")]
    pub track_tolerance: Option<f32>,
}

impl TrackArgs {
    /// Writes the flags given into the stripping options `o` (from the defaults or a settings
    /// file).
    pub fn apply(&self, o: &mut TrackOptions) {
        o.except_bone_transform |= self.except_bone_transform;
        o.unimportant_positions &= !self.keep_positions;
        o.position_bones.extend(self.position_bone.iter().cloned());
        if let Some(u) = self.unmapped_bones {
            o.unmapped_bones = match u {
                UnmappedArg::Keep => UnmappedBones::Keep,
                UnmappedArg::Remove => UnmappedBones::Remove,
                UnmappedArg::Separate => UnmappedBones::Separate,
            };
        }
        o.drop_rest_channels |= self.drop_rest_channels;
        if let Some(t) = self.track_tolerance {
            o.tolerance = t;
        }
    }
}

/// Flags of renaming.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct RenameArgs {
    /// Also name the node above the bones (Godot: GeneralSkeleton), adding one if the bones
    /// hang from the scene.
    #[arg(long, value_name = "NAME")]
    pub skeleton_name: Option<String>,
}

impl RenameArgs {
    /// Writes the flags given into the renaming options `o` (from the defaults or a settings
    /// file).
    pub fn apply(&self, o: &mut RenameOptions) {
        if let Some(n) = &self.skeleton_name {
            o.skeleton_name = Some(n.clone());
        }
    }
}

/// Every stage's flags, as `normalize` and `batch` take them.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct StageFlags {
    #[command(flatten)]
    pub stages: StageArgs,
    #[command(flatten)]
    pub rest: RestArgs,
    #[command(flatten)]
    pub tracks: TrackArgs,
    #[command(flatten)]
    pub rename: RenameArgs,
}

impl StageFlags {
    /// Writes the stage switches and each stage's flags given into `settings` (they win over
    /// the file's).
    pub fn apply(&self, settings: &mut Settings) -> Result<(), Failure> {
        let n = &mut settings.normalize;
        n.fix_rest &= !self.stages.no_rest;
        n.strip_tracks &= !self.stages.no_strip;
        n.rename_bones &= !self.stages.no_rename;
        self.rest.apply(&mut settings.rest)?;
        self.tracks.apply(&mut settings.tracks);
        self.rename.apply(&mut settings.rename);
        Ok(())
    }
}

/// The settings file given (a usage error naming the file when it cannot be read or parsed), or
/// the defaults.
pub fn load_settings(
    path: Option<&std::path::Path>,
) -> Result<skelnorm::settings::Settings, Failure> {
    match path {
        Some(p) => skelnorm::settings::Settings::load(p).map_err(|e| Failure::Usage(e.to_string())),
        None => Ok(skelnorm::settings::Settings::default()),
    }
}

/// A path given as a flag, as text for a [`Settings`](skelnorm::settings::Settings) field: made
/// absolute when the settings came from a file (whose relative paths start at its folder, while a
/// flag's start at the working directory).
pub fn flag_path(path: &std::path::Path, settings_from_file: bool) -> String {
    let path = if settings_from_file && path.is_relative() {
        std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
    } else {
        path.to_path_buf()
    };
    path.to_string_lossy().into_owned()
}

/// Settings resolved into options; a usage error naming the file or value when they do not.
pub fn resolve(
    settings: &skelnorm::settings::Settings,
) -> Result<skelnorm::settings::Resolved, Failure> {
    settings
        .resolve()
        .map_err(|e| Failure::Usage(e.to_string()))
}
