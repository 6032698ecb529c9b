//! Work split in two halves run side by side, for stages whose loops over many keys pay for a
//! second thread (the rest fix's conversion and check, track stripping's look for moving bones).

/// `work(first)` and `work(second)` side by side ([`rayon::join`]: on this thread and, when the
/// pool has one free, another).
pub fn in_two<P: Send, R: Send + Default>(
    first: P,
    second: P,
    work: impl Fn(P) -> R + Sync,
) -> (R, R) {
    rayon::join(|| work(first), || work(second))
}

/// How many of the items weighing `weights` (in order, `total` in all) make up the first half:
/// up to and including the one whose running sum reaches half of `total` (all of them if none
/// does).
pub fn first_half(weights: impl IntoIterator<Item = usize>, total: usize) -> usize {
    let (mut sum, mut n) = (0, 0);
    for w in weights {
        n += 1;
        sum += w;
        if 2 * sum >= total {
            break;
        }
    }
    n
}
