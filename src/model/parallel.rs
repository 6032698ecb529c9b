//! Work split in two halves run side by side, for stages whose loops over many keys pay for a
//! second thread (the rest fix's conversion of keys).

/// `work(first)` and `work(second)` side by side ([`rayon::join`]: on this thread and, when the
/// pool has one free, another).
pub fn in_two<P: Send, R: Send + Default>(
    first: P,
    second: P,
    work: impl Fn(P) -> R + Sync,
) -> (R, R) {
    rayon::join(|| work(first), || work(second))
}
