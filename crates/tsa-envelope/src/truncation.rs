//! Honest truncation: a capped list that cannot exist without its exact pre-cap total.

use std::num::NonZeroUsize;

/// A list cut to a cap, remembering how many items there were before the cut.
///
/// The only constructors count every item, so `total` is always exact and
/// `items.len() <= cap` always holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Capped<T> {
    items: Vec<T>,
    total: usize,
    cap: NonZeroUsize,
}

impl<T> Capped<T> {
    /// Keeps the first `cap` items of `iter` and counts all of them.
    pub fn collect(iter: impl IntoIterator<Item = T>, cap: NonZeroUsize) -> Self {
        let mut items = Vec::new();
        let mut total = 0usize;
        for item in iter {
            if total < cap.get() {
                items.push(item);
            }
            total += 1;
        }
        Capped { items, total, cap }
    }

    /// The first `cap` of `ranked` (a window of a longer result) together with the
    /// exact `total` counted elsewhere (a SQL `count(*)`); never under `ranked.len()`.
    pub fn counted(ranked: Vec<T>, total: usize, cap: NonZeroUsize) -> Self {
        let total = total.max(ranked.len());
        let mut items = ranked;
        items.truncate(cap.get());
        Capped { items, total, cap }
    }

    /// Keeps the first items of `items` while `fits` says the running list still fits
    /// (a character budget, say), and never more than the cap. The total stays exact.
    pub fn collect_within(
        items: Vec<T>,
        cap: NonZeroUsize,
        mut fits: impl FnMut(&T) -> bool,
    ) -> Self {
        let total = items.len();
        let mut kept = Vec::new();
        for item in items {
            if kept.len() >= cap.get() || !fits(&item) {
                break;
            }
            kept.push(item);
        }
        Capped {
            items: kept,
            total,
            cap,
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

    /// True iff anything was omitted (exactly `cap` items is not truncated).
    pub fn truncated(&self) -> bool {
        self.total > self.items.len()
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
    /// How to get the rest, e.g. `raise limit, or ...`.
    pub remedy: String,
}

impl ListSpelling {
    /// `showing <listed> of <total> <noun> — <remedy>` with the real numbers.
    pub fn next_step<T>(&self, capped: &Capped<T>) -> String {
        format!(
            "showing {} of {} {} — {}",
            capped.listed(),
            capped.total(),
            self.noun,
            self.remedy
        )
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
    fn budget_drops_whole_rows_and_keeps_the_total() {
        let mut used = 0;
        let c = Capped::collect_within(vec![10, 10, 10, 10], cap(50), |n| {
            used += n;
            used <= 25
        });
        assert_eq!((c.total(), c.listed(), c.truncated()), (4, 2, true));
    }
}
