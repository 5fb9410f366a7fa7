//! A stable insertion sort for the short lists the chat module sorts (handshake candidates, a
//! message's action results, the names of a state's parts): the same order as `slice::sort_by`
//! (equal items keep their order), without the standard library's stable sort, which is
//! compiled once per element type and was about a twentieth of the chat module's code. Quadratic:
//! only for lists of tens to a few hundred items.

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

#[cfg(test)]
mod tests {
    use super::*;

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
