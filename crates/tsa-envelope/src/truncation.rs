//! Honest truncation: a capped list that cannot exist without its exact pre-cap total.

use std::cell::Cell;
use std::num::NonZeroUsize;

thread_local! {
    /// Rows a constructor keeps beyond its cap on this thread (see [`with_reach`]).
    static REACH: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` with every [`Capped`] built on this thread keeping up to `reach` rows
/// beyond its cap, so that a resumed call (`offset`, `cursor`) can skip the rows an
/// earlier page listed and still fill a page: the caller then calls
/// [`Capped::page`], which restores `items.len() <= cap`.
pub fn with_reach<R>(reach: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            REACH.with(|r| r.set(self.0));
        }
    }
    let _restore = Restore(REACH.with(|r| r.replace(reach)));
    f()
}

fn kept(cap: NonZeroUsize) -> usize {
    cap.get().saturating_add(REACH.with(Cell::get))
}

/// A list cut to a cap, remembering how many items there were before the cut.
///
/// The only constructors count every item, so `total` is always exact and
/// `items.len() <= cap` always holds (outside [`with_reach`]). `offset` is how many
/// leading rows an earlier page of the same call listed ([`Capped::page`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Capped<T> {
    items: Vec<T>,
    total: usize,
    cap: NonZeroUsize,
    offset: usize,
}

impl<T> Capped<T> {
    /// Keeps the first `cap` items of `iter` and counts all of them.
    pub fn collect(iter: impl IntoIterator<Item = T>, cap: NonZeroUsize) -> Self {
        let mut items = Vec::new();
        let mut total = 0usize;
        let keep = kept(cap);
        for item in iter {
            if total < keep {
                items.push(item);
            }
            total += 1;
        }
        Capped {
            items,
            total,
            cap,
            offset: 0,
        }
    }

    /// The first `cap` of `ranked` (a window of a longer result) together with the
    /// exact `total` counted elsewhere (a SQL `count(*)`); never under `ranked.len()`.
    pub fn counted(ranked: Vec<T>, total: usize, cap: NonZeroUsize) -> Self {
        let total = total.max(ranked.len());
        let mut items = ranked;
        items.truncate(kept(cap));
        Capped {
            items,
            total,
            cap,
            offset: 0,
        }
    }

    /// Keeps the first items of `items` while `fits` says the running list still fits
    /// (a character budget, say), and never more than the cap. The total stays exact.
    pub fn collect_within(
        items: Vec<T>,
        cap: NonZeroUsize,
        mut fits: impl FnMut(&T) -> bool,
    ) -> Self {
        let total = items.len();
        let keep = kept(cap);
        let mut listed = Vec::new();
        for item in items {
            if listed.len() >= keep || !fits(&item) {
                break;
            }
            listed.push(item);
        }
        Capped {
            items: listed,
            total,
            cap,
            offset: 0,
        }
    }

    pub fn items(&self) -> &[T] {
        &self.items
    }

    pub fn into_items(self) -> Vec<T> {
        self.items
    }

    /// The exact count before the cap.
    pub fn total(&self) -> usize {
        self.total
    }

    /// How many items are listed.
    pub fn listed(&self) -> usize {
        self.items.len()
    }

    pub fn cap(&self) -> usize {
        self.cap.get()
    }

    /// How many leading rows an earlier page listed (0 on a first page).
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Where the next page starts: the rows listed so far, this page's included.
    pub fn next_offset(&self) -> usize {
        self.offset + self.items.len()
    }

    /// True iff rows remain after the listed ones (exactly `cap` items is not
    /// truncated); on a resumed page, rows left for a later page.
    pub fn truncated(&self) -> bool {
        self.total > self.next_offset()
    }

    /// This list as a later page: the first `offset` rows (listed by earlier pages)
    /// are skipped, then at most `cap` rows kept. The total stays exact.
    pub fn page(&mut self, offset: usize) {
        let skip = offset.saturating_sub(self.offset).min(self.items.len());
        self.items.drain(..skip);
        self.items.truncate(self.cap.get());
        self.offset = offset.max(self.offset);
    }

    /// Drops the last listed item (a budget cut); the total stays exact.
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop()
    }

    /// Keeps the listed items `f` accepts (a budget cut); the total stays exact.
    pub fn retain(&mut self, f: impl FnMut(&T) -> bool) {
        self.items.retain(f);
    }

    /// Applies `f` to the listed items, keeping the counts.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Capped<U> {
        Capped {
            items: self.items.into_iter().map(f).collect(),
            total: self.total,
            cap: self.cap,
            offset: self.offset,
        }
    }
}

/// How one tool spells the four truncation parts of one list (spec §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListSpelling {
    /// Key of the list itself, e.g. `callers`.
    pub list_key: &'static str,
    /// Key of the exact pre-cap total, e.g. `caller_count`.
    pub total_key: &'static str,
    /// Key of the listed count, e.g. `callers_listed`.
    pub listed_key: &'static str,
    /// Key of the cap, e.g. `listed_cap`.
    pub cap_key: &'static str,
    /// What the items are called in `next_step`, e.g. `callers`.
    pub noun: &'static str,
    /// How to get the rest, e.g. `raise limit, or ...` (empty: the cursor sentence
    /// after it says it).
    pub remedy: String,
}

impl ListSpelling {
    /// The spelling of one list: its key, the keys of its exact total, listed count
    /// and cap, what its items are called, and how to get the rest.
    pub fn new(
        list_key: &'static str,
        total_key: &'static str,
        listed_key: &'static str,
        cap_key: &'static str,
        noun: &'static str,
        remedy: impl Into<String>,
    ) -> ListSpelling {
        ListSpelling {
            list_key,
            total_key,
            listed_key,
            cap_key,
            noun,
            remedy: remedy.into(),
        }
    }

    /// `showing <listed> of <total> <noun> — <remedy>` with the real numbers.
    /// A later page says which rows it lists: `showing <first>-<last> of <total>`.
    pub fn next_step<T>(&self, capped: &Capped<T>) -> String {
        let shown = match capped.offset() {
            0 => capped.listed().to_string(),
            o if capped.listed() == 0 => format!("none past row {o}"),
            o => format!("rows {}-{}", o + 1, o + capped.listed()),
        };
        match self.remedy.as_str() {
            // The cursor sentence that follows says how to get the rest.
            "" => format!("showing {shown} of {} {}", capped.total(), self.noun),
            remedy => format!(
                "showing {shown} of {} {} — {remedy}",
                capped.total(),
                self.noun
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cap(n: usize) -> NonZeroUsize {
        NonZeroUsize::new(n).unwrap()
    }

    #[test]
    fn exact_cap_is_not_truncated() {
        let c = Capped::collect(0..3, cap(3));
        assert_eq!((c.total(), c.listed(), c.truncated()), (3, 3, false));
    }

    #[test]
    fn counts_everything_before_the_cut() {
        let c = Capped::collect(0..39, cap(3));
        assert_eq!(
            (c.total(), c.listed(), c.cap(), c.truncated()),
            (39, 3, 3, true)
        );
    }

    #[test]
    fn counted_keeps_the_exact_total_of_a_window() {
        let c = Capped::counted(vec![1, 2, 3, 4], 40, cap(3));
        assert_eq!((c.total(), c.listed(), c.truncated()), (40, 3, true));
        let c = Capped::counted(vec![1, 2], 0, cap(3));
        assert_eq!((c.total(), c.listed(), c.truncated()), (2, 2, false));
    }

    #[test]
    fn a_page_under_reach_skips_the_rows_listed_before() {
        let mut c = with_reach(4, || Capped::collect(0..10, cap(3)));
        assert_eq!(c.listed(), 7);
        c.page(4);
        assert_eq!(c.items(), &[4, 5, 6]);
        assert_eq!((c.total(), c.offset(), c.next_offset()), (10, 4, 7));
        assert!(c.truncated());
        let mut last = with_reach(9, || Capped::collect(0..10, cap(3)));
        last.page(9);
        assert_eq!((last.items(), last.truncated()), (&[9][..], false));
        assert_eq!(
            Capped::collect(0..10, cap(3)).listed(),
            3,
            "reach is scoped"
        );
    }

    #[test]
    fn budget_drops_whole_rows_and_keeps_the_total() {
        let mut used = 0;
        let c = Capped::collect_within(vec![10, 10, 10, 10], cap(50), |n| {
            used += n;
            used <= 25
        });
        assert_eq!((c.total(), c.listed(), c.truncated()), (4, 2, true));
    }
}
