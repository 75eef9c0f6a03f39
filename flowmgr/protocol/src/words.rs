//! Reading and writing message words in order: how specs and statistics
//! travel in an IPC message. A reader that runs out of words says so
//! instead of inventing zeros, so a short message is an error with a name.

/// Words read in order from a received message.
pub struct Reader<'a> {
    words: &'a [u64],
    at: usize,
}

/// The message ended before a field the reader needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Short {
    /// Which word was missing.
    pub at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(words: &'a [u64]) -> Self {
        Self { words, at: 0 }
    }

    pub fn next(&mut self) -> Result<u64, Short> {
        let w = *self.words.get(self.at).ok_or(Short { at: self.at })?;
        self.at += 1;
        Ok(w)
    }

    /// Words read so far.
    pub fn position(&self) -> usize {
        self.at
    }

    /// Skips to word `at` (a fixed-size record's end).
    pub fn seek(&mut self, at: usize) {
        self.at = at;
    }
}

/// Words written in order into a message being built.
pub struct Writer<'a> {
    words: &'a mut [u64],
    at: usize,
}

/// The message has no room for another word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Full;

impl<'a> Writer<'a> {
    pub fn new(words: &'a mut [u64]) -> Self {
        Self { words, at: 0 }
    }

    pub fn put(&mut self, w: u64) -> Result<(), Full> {
        *self.words.get_mut(self.at).ok_or(Full)? = w;
        self.at += 1;
        Ok(())
    }

    /// Words written so far.
    pub fn len(&self) -> usize {
        self.at
    }

    /// Pads with zeros up to word `at`.
    pub fn pad_to(&mut self, at: usize) -> Result<(), Full> {
        while self.at < at {
            self.put(0)?;
        }
        Ok(())
    }
}
