//! A stable insertion sort for the short lists the chat module sorts (handshake candidates, a
//! message's action results, the names of a state's parts): the same order as `slice::sort_by`
//! (equal items keep their order), without the standard library's stable sort, which is
//! compiled once per element type and was about a twentieth of the chat module's code. Quadratic:
//! only for lists of tens to a few hundred items. [`heap_sort`] is the executor's, for lists of
//! any length whose items all differ.

/// Sorts `items` so that no item comes after one it `is_less` than, keeping the order of items
/// neither is less than (stable, as `slice::sort_by`).
pub fn sort_by<T>(items: &mut [T], mut is_less: impl FnMut(&T, &T) -> bool) {
    for end in 1..items.len() {
        let mut at = end;
        while at > 0 {
            let (Some(before), Some(item)) = (items.get(at - 1), items.get(at)) else {
                break;
            };
            if !is_less(item, before) {
                break;
            }
            items.swap(at - 1, at);
            at -= 1;
        }
    }
}

/// [`sort_by`] on a key (as `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a) < key(b));
}

/// Sorts `items` ascending in O(n log n) with a heap sort: a few hundred bytes of wasm instead of
/// the standard library's sorts (some kilobytes each). Not stable, so only for items that are
/// all different (the executor's lists end in the item's position), where every sort gives the
/// same order.
pub fn heap_sort<T: Ord>(items: &mut [T]) {
    /// Moves the item at `at` down the max-heap `heap` until both children are smaller.
    fn sift_down<T: Ord>(heap: &mut [T], mut at: usize) {
        loop {
            let left = 2 * at + 1;
            let right = left + 1;
            let mut largest = at;
            if heap
                .get(left)
                .is_some_and(|child| heap.get(largest) < Some(child))
            {
                largest = left;
            }
            if heap
                .get(right)
                .is_some_and(|child| heap.get(largest) < Some(child))
            {
                largest = right;
            }
            if largest == at {
                return;
            }
            heap.swap(at, largest);
            at = largest;
        }
    }
    for at in (0..items.len() / 2).rev() {
        sift_down(items, at);
    }
    for end in (1..items.len()).rev() {
        items.swap(0, end);
        if let Some(heap) = items.get_mut(..end) {
            sift_down(heap, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_sort_sorts_as_the_standard_sort() {
        // Every list of up to 7 keys from 0..4 (equal keys included), and longer pseudo-random
        // lists of the executor's key type.
        for len in 0..=7u32 {
            for code in 0..4u32.pow(len) {
                let mut items: Vec<u32> = (0..len).map(|i| (code / 4u32.pow(i)) % 4).collect();
                let mut expected = items.clone();
                expected.sort();
                heap_sort(&mut items);
                assert_eq!(items, expected);
            }
        }
        let mut seed = 7u64;
        for len in [8usize, 100, 1000] {
            let mut items: Vec<(u64, u64, usize)> = (0..len)
                .map(|position| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    ((seed >> 60) & 1, (seed >> 33) % 16, position)
                })
                .collect();
            let mut expected = items.clone();
            expected.sort();
            heap_sort(&mut items);
            assert_eq!(items, expected);
        }
    }

    #[test]
    fn sorts_as_the_standard_stable_sort() {
        // Every list of up to 7 keys from 0..4, each item tagged with its position: equal keys
        // must keep their order, as the standard library's stable sort keeps them.
        for len in 0..=7u32 {
            for code in 0..4u32.pow(len) {
                let items: Vec<(u32, u32)> =
                    (0..len).map(|i| ((code / 4u32.pow(i)) % 4, i)).collect();
                let mut ours = items.clone();
                let mut theirs = items.clone();
                sort_by_key(&mut ours, |item| item.0);
                theirs.sort_by_key(|item| item.0);
                assert_eq!(ours, theirs);
            }
        }
        let mut names = vec![
            "w1x.0".to_owned(),
            "head".into(),
            "m.10".into(),
            "m.2".into(),
        ];
        let mut expected = names.clone();
        sort_by(&mut names, |a, b| a < b);
        expected.sort();
        assert_eq!(names, expected);
    }
}
