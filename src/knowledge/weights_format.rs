//! The weights file format shared by every game's trained knowledge.
//!
//! A little-endian binary file, version 1:
//!
//! | field | encoding |
//! |---|---|
//! | magic | the 8 bytes `PONDERW\n` |
//! | format version | u32, 1 |
//! | game | u16 length + UTF-8 (the `set_game` name, e.g. `reversi`) |
//! | feature set | u16 length + UTF-8 (the features the tables belong to, e.g. [`crate::knowledge::reversi_patterns::FEATURE_SET`]) |
//! | data hash | u64: FNV-1a 64 of the training data (the shards' bytes, in file-name order) |
//! | description | u32 length + UTF-8: how the data and the weights were made (commands, sizes) |
//! | table count | u32 |
//! | each table | u32 length, u32 count of non-zero entries, then per entry u32 index (strictly increasing) and i16 value |
//! | checksum | u64: FNV-1a 64 of every byte before it |
//!
//! Tables are stored sparsely because a pattern table holds one weight per configuration and
//! most configurations never occur in play. What the values mean (their unit, which table is
//! which) is the feature set's business.

use std::fmt;

/// The first bytes of every weights file.
pub const MAGIC: &[u8; 8] = b"PONDERW\n";

/// The format version this code reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// What a weights file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightsHeader {
    pub game: String,
    pub feature_set: String,
    /// FNV-1a 64 of the training data ([`fnv1a`]).
    pub data_hash: u64,
    pub description: String,
}

/// A whole weights file: the header and the tables in the feature set's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightsFile {
    pub header: WeightsHeader,
    pub tables: Vec<Vec<i16>>,
}

/// Why a weights file was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsError {
    /// The file ends before a field it announces.
    Truncated,
    /// The file does not start with [`MAGIC`].
    NotAWeightsFile,
    UnsupportedVersion(u32),
    WrongGame {
        expected: String,
        found: String,
    },
    WrongFeatureSet {
        expected: String,
        found: String,
    },
    /// The table count or a table's length differs from the feature set's.
    WrongTableShape {
        table: usize,
        expected: usize,
        found: usize,
    },
    /// An entry index out of its table or out of order.
    BadIndex {
        table: usize,
        index: u32,
    },
    NotUtf8,
    ChecksumMismatch,
    /// Bytes after the checksum.
    TrailingBytes,
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Truncated => write!(f, "weights file truncated"),
            WeightsError::NotAWeightsFile => write!(f, "not a ponder weights file (bad magic)"),
            WeightsError::UnsupportedVersion(version) => {
                write!(f, "weights format version {version} not supported (this build reads {FORMAT_VERSION})")
            }
            WeightsError::WrongGame { expected, found } => {
                write!(f, "weights for game '{found}', expected '{expected}'")
            }
            WeightsError::WrongFeatureSet { expected, found } => {
                write!(f, "weights for feature set '{found}', expected '{expected}'")
            }
            WeightsError::WrongTableShape { table, expected, found } => {
                write!(f, "weights table {table}: {found} entries, the feature set has {expected}")
            }
            WeightsError::BadIndex { table, index } => {
                write!(f, "weights table {table}: entry index {index} out of range or out of order")
            }
            WeightsError::NotUtf8 => write!(f, "weights header text is not UTF-8"),
            WeightsError::ChecksumMismatch => write!(f, "weights file checksum mismatch (corrupted)"),
            WeightsError::TrailingBytes => write!(f, "bytes after the weights file's checksum"),
        }
    }
}

impl std::error::Error for WeightsError {}

/// FNV-1a 64 over `bytes`, continuing from `hash` (start with [`FNV_OFFSET`]).
pub fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |hash, &byte| (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The FNV-1a 64 offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The file's bytes.
pub fn encode(file: &WeightsFile) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    for text in [&file.header.game, &file.header.feature_set] {
        out.extend_from_slice(&(text.len() as u16).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    out.extend_from_slice(&file.header.data_hash.to_le_bytes());
    out.extend_from_slice(&(file.header.description.len() as u32).to_le_bytes());
    out.extend_from_slice(file.header.description.as_bytes());
    out.extend_from_slice(&(file.tables.len() as u32).to_le_bytes());
    for table in &file.tables {
        out.extend_from_slice(&(table.len() as u32).to_le_bytes());
        let nonzero = table.iter().filter(|&&value| value != 0).count() as u32;
        out.extend_from_slice(&nonzero.to_le_bytes());
        for (index, &value) in table.iter().enumerate().filter(|(_, value)| **value != 0) {
            out.extend_from_slice(&(index as u32).to_le_bytes());
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    let checksum = fnv1a(FNV_OFFSET, &out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// Reads a weights file made for `game` and `feature_set`, whose tables must have exactly the
/// lengths `table_sizes`.
///
/// # Errors
/// A [`WeightsError`] saying what is wrong; nothing is read partially.
pub fn decode(bytes: &[u8], game: &str, feature_set: &str, table_sizes: &[usize]) -> Result<WeightsFile, WeightsError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(WeightsError::NotAWeightsFile);
    }
    let mut reader = Reader { bytes, at: MAGIC.len() };
    let version = reader.u32()?;
    if version != FORMAT_VERSION {
        return Err(WeightsError::UnsupportedVersion(version));
    }
    let found_game = reader.short_text()?;
    if found_game != game {
        return Err(WeightsError::WrongGame { expected: game.to_string(), found: found_game });
    }
    let found_features = reader.short_text()?;
    if found_features != feature_set {
        return Err(WeightsError::WrongFeatureSet { expected: feature_set.to_string(), found: found_features });
    }
    let data_hash = reader.u64()?;
    let description = reader.long_text()?;
    let table_count = reader.u32()? as usize;
    if table_count != table_sizes.len() {
        return Err(WeightsError::WrongTableShape {
            table: table_count.min(table_sizes.len()),
            expected: table_sizes.len(),
            found: table_count,
        });
    }
    let tables = table_sizes
        .iter()
        .enumerate()
        .map(|(table, &size)| reader.sparse_table(table, size))
        .collect::<Result<Vec<_>, _>>()?;
    let body_end = reader.at;
    let checksum = reader.u64()?;
    if reader.at != bytes.len() {
        return Err(WeightsError::TrailingBytes);
    }
    if checksum != fnv1a(FNV_OFFSET, &bytes[..body_end]) {
        return Err(WeightsError::ChecksumMismatch);
    }
    Ok(WeightsFile {
        header: WeightsHeader { game: found_game, feature_set: found_features, data_hash, description },
        tables,
    })
}

/// Reads fields off the front of a byte slice, failing with [`WeightsError::Truncated`].
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, count: usize) -> Result<&[u8], WeightsError> {
        let end = self.at.checked_add(count).filter(|&end| end <= self.bytes.len()).ok_or(WeightsError::Truncated)?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WeightsError> {
        Ok(self.take(N)?.try_into().expect("take returns N bytes"))
    }

    fn u16(&mut self) -> Result<u16, WeightsError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32, WeightsError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, WeightsError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn text(&mut self, length: usize) -> Result<String, WeightsError> {
        String::from_utf8(self.take(length)?.to_vec()).map_err(|_| WeightsError::NotUtf8)
    }

    /// A text preceded by its u16 length.
    fn short_text(&mut self) -> Result<String, WeightsError> {
        let length = self.u16()?;
        self.text(usize::from(length))
    }

    /// A text preceded by its u32 length.
    fn long_text(&mut self) -> Result<String, WeightsError> {
        let length = self.u32()?;
        self.text(length as usize)
    }

    fn sparse_table(&mut self, table: usize, size: usize) -> Result<Vec<i16>, WeightsError> {
        let length = self.u32()? as usize;
        if length != size {
            return Err(WeightsError::WrongTableShape { table, expected: size, found: length });
        }
        let nonzero = self.u32()? as usize;
        // Each entry takes 6 bytes: a count beyond what is left is a truncated file, caught
        // before allocating for it.
        if nonzero > size || nonzero.saturating_mul(6) > self.bytes.len() - self.at {
            return Err(WeightsError::Truncated);
        }
        let mut values = vec![0i16; size];
        let mut next_allowed = 0usize;
        for _ in 0..nonzero {
            let index = self.u32()?;
            if (index as usize) < next_allowed || index as usize >= size {
                return Err(WeightsError::BadIndex { table, index });
            }
            values[index as usize] = i16::from_le_bytes(self.array()?);
            next_allowed = index as usize + 1;
        }
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> WeightsFile {
        WeightsFile {
            header: WeightsHeader {
                game: "reversi".to_string(),
                feature_set: "test-features".to_string(),
                data_hash: 0x1234_5678_9abc_def0,
                description: "made by a test".to_string(),
            },
            tables: vec![vec![0, 5, 0, -7], vec![], vec![i16::MIN, 0, i16::MAX]],
        }
    }

    const SIZES: [usize; 3] = [4, 0, 3];

    #[test]
    fn a_file_round_trips() {
        let bytes = encode(&sample());
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(decode(&bytes, "reversi", "test-features", &SIZES), Ok(sample()));
    }

    #[test]
    fn the_header_refuses_other_games_features_versions_and_shapes() {
        let bytes = encode(&sample());
        assert_eq!(
            decode(&bytes, "hex", "test-features", &SIZES),
            Err(WeightsError::WrongGame { expected: "hex".into(), found: "reversi".into() })
        );
        assert!(matches!(decode(&bytes, "reversi", "other", &SIZES), Err(WeightsError::WrongFeatureSet { .. })));
        assert!(matches!(
            decode(&bytes, "reversi", "test-features", &[4, 0]),
            Err(WeightsError::WrongTableShape { expected: 2, found: 3, .. })
        ));
        assert_eq!(
            decode(&bytes, "reversi", "test-features", &[4, 1, 3]),
            Err(WeightsError::WrongTableShape { table: 1, expected: 1, found: 0 })
        );
        let mut newer = bytes.clone();
        newer[8] = 2;
        assert_eq!(decode(&newer, "reversi", "test-features", &SIZES), Err(WeightsError::UnsupportedVersion(2)));
        assert_eq!(decode(b"PONDERX\n", "reversi", "test-features", &SIZES), Err(WeightsError::NotAWeightsFile));
        assert_eq!(decode(b"", "reversi", "test-features", &SIZES), Err(WeightsError::NotAWeightsFile));
        // The messages name what is wrong.
        let message = decode(&bytes, "hex", "test-features", &SIZES).unwrap_err().to_string();
        assert!(message.contains("'reversi'") && message.contains("'hex'"), "{message}");
    }

    #[test]
    fn damage_is_detected_at_every_byte() {
        let bytes = encode(&sample());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], "reversi", "test-features", &SIZES).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode(&longer, "reversi", "test-features", &SIZES), Err(WeightsError::TrailingBytes));
        // Flipping a bit of a value is caught by the checksum.
        let mut flipped = bytes.clone();
        let last_value = bytes.len() - 9;
        flipped[last_value] ^= 1;
        assert_eq!(decode(&flipped, "reversi", "test-features", &SIZES), Err(WeightsError::ChecksumMismatch));
    }
}
