//! The `--existing` flag every command that writes files takes, over the library's
//! [`Existing`](skelnorm::jobs::Existing).

use super::Failure;

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

impl From<skelnorm::jobs::Existing> for ExistingArg {
    fn from(e: skelnorm::jobs::Existing) -> Self {
        use skelnorm::jobs::Existing;
        match e {
            Existing::Overwrite => ExistingArg::Overwrite,
            Existing::Skip => ExistingArg::Skip,
            Existing::Error => ExistingArg::Error,
        }
    }
}

impl From<ExistingArg> for skelnorm::jobs::Existing {
    fn from(e: ExistingArg) -> Self {
        use skelnorm::jobs::Existing;
        match e {
            ExistingArg::Overwrite => Existing::Overwrite,
            ExistingArg::Skip => Existing::Skip,
            ExistingArg::Error => Existing::Error,
        }
    }
}

/// The `--existing` flag of every command that writes files; one default everywhere (the
/// library's [`Existing::default`](skelnorm::jobs::Existing)).
#[derive(clap::Args, Debug, Clone)]
pub struct ExistingFlag {
    /// What to do when an output exists: overwrite it (the default), skip it (exit 0, said on
    /// stderr) or error (exit 1 naming it).
    #[arg(
        long,
        value_enum,
        value_name = "WHAT",
        default_value_t = ExistingArg::from(skelnorm::jobs::Existing::default())
    )]
    pub existing: ExistingArg,
}

impl ExistingFlag {
    /// Whether to write `output`: true when it does not exist or is to be overwritten; false
    /// (after saying so on stderr) when it exists and is to be skipped; an error naming it when
    /// it exists and `--existing error`.
    pub fn proceed(&self, output: &std::path::Path) -> Result<bool, Failure> {
        let go = skelnorm::jobs::proceed(output, self.existing.into())?;
        if !go {
            super::say_skipped(output);
        }
        Ok(go)
    }
}
