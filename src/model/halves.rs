//! Work split in two halves run side by side, for stages whose loops over many keys pay for a
//! second thread (the rest fix's conversion and check, track stripping's look for moving bones).

/// `work(first)` on this thread and, at the same time, `work(second)` on another one (or after
/// it, on this one, if no thread can be started).
pub fn in_two<P: Send, R: Send + Default>(
    first: P,
    second: P,
    work: impl Fn(P) -> R + Sync,
) -> (R, R) {
    let mut second = Some(second);
    let (mine, theirs) = std::thread::scope(|s| {
        let worker = super::spawn_apart(s, "skelnorm half", || second.take().map(&work));
        let mine = work(first);
        let theirs = match worker.map(|w| w.join()) {
            Ok(Ok(theirs)) => theirs,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => None,
        };
        (mine, theirs)
    });
    let theirs = theirs.or_else(|| second.take().map(&work));
    (mine, theirs.unwrap_or_default())
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
