//! A map as a list sorted by key: the few operations the chat module's line marks and the
//! executor's ref registry need, in the order a `BTreeMap` gives (one value per key, the last
//! inserted; keys ascending), without the B-tree's insertion and removal code for one more type
//! in each wasm module (some kilobytes each). Insertion is linear, so only for keys that mostly
//! arrive in ascending order (message indexes, ref numbers).

/// Values by key, sorted by key.
#[derive(Debug, Clone)]
pub struct SortedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<K: Ord + Copy, V> SortedMap<K, V> {
    fn find(&self, key: K) -> Result<usize, usize> {
        self.0.binary_search_by_key(&key, |(at, _)| *at)
    }

    /// The value of `key`.
    pub fn get(&self, key: K) -> Option<&V> {
        let at = self.find(key).ok()?;
        self.0.get(at).map(|(_, value)| value)
    }

    /// The value of `key`, to change.
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        let at = self.find(key).ok()?;
        self.0.get_mut(at).map(|(_, value)| value)
    }

    /// Sets the value of `key` (replacing the one it had).
    pub fn insert(&mut self, key: K, value: V) {
        match self.find(key) {
            Ok(at) => {
                if let Some(slot) = self.0.get_mut(at) {
                    slot.1 = value;
                }
            }
            Err(at) => self.0.insert(at, (key, value)),
        }
    }

    /// Forgets `key`.
    pub fn remove(&mut self, key: K) {
        if let Ok(at) = self.find(key) {
            self.0.remove(at);
        }
    }

    /// Keeps the entries `keep` says to keep.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.0.retain_mut(|(key, value)| keep(key, value));
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No key at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries, keys ascending.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.0.iter().map(|(key, value)| (key, value))
    }

    /// The keys, ascending.
    pub fn keys(&self) -> impl Iterator<Item = K> + '_ {
        self.0.iter().map(|(key, _)| *key)
    }

    /// The values, keys ascending, to change.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, value)| value)
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}
