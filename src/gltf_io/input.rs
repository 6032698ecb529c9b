//! An input file's bytes, read whole, as the document is parsed from them.

/// An input file's bytes (see [`read_input_early`](super::read_input_early)).
#[derive(Debug)]
pub struct Input {
    pub(crate) bytes: Vec<u8>,
}

impl Input {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The file's bytes, owned.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

impl From<Vec<u8>> for Input {
    fn from(bytes: Vec<u8>) -> Input {
        Input { bytes }
    }
}
