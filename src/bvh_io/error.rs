//! Errors of reading and writing BVH text: reading errors name the line (1-based).

/// What went wrong reading or writing BVH.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BvhError {
    /// The text does not follow the BVH grammar at `line`.
    #[error("line {line}: {message}")]
    Syntax {
        /// 1-based line number (the last line plus one when the text ended too early).
        line: usize,
        /// What was expected or found, lowercase.
        message: String,
    },
    /// A motion line has the wrong number of values.
    #[error(
        "line {line}: frame {frame} has {found} values, the hierarchy declares {expected} channels"
    )]
    FrameLength {
        /// 1-based line number.
        line: usize,
        /// 0-based frame index.
        frame: usize,
        /// Values found on the line.
        found: usize,
        /// Channels declared by the hierarchy.
        expected: usize,
    },
    /// The text ends before every declared frame was read.
    #[error("the file ends after {found} of {declared} frames (truncated?)")]
    MissingFrames {
        /// Frames read.
        found: usize,
        /// Frames the `Frames:` line declares.
        declared: u64,
    },
    /// The scale given or the values read give lengths that are not finite.
    #[error("scale {0} is not a finite positive number")]
    Scale(f32),
    /// The skeleton or clip handed to [`write`](super::write) cannot be written.
    #[error("cannot write: {0}")]
    Write(String),
}

/// Shorthand for a [`BvhError::Syntax`].
pub(crate) fn syntax(line: usize, message: impl Into<String>) -> BvhError {
    BvhError::Syntax {
        line,
        message: message.into(),
    }
}
