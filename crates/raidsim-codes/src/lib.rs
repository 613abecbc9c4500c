//! # raidsim-codes
//!
//! Byte codecs of the RAID-6 codes raidsim simulates, and their structure:
//! which parity cells cover which data cells. No engine, no I/O.
//!
//! | code | module | conventions |
//! |---|---|---|
//! | Reed–Solomon P+Q | [`pq`] | Linux md RAID-6: GF(2^8), polynomial 0x11d, generator 2; P = ⊕ D_i, Q = Σ 2^i D_i with i the data index (md's Q slot order); any column length |
//! | EVENODD | [`array_code`] | p prime, k ≤ p data columns, imaginary zero columns up to p − 1; p − 1 symbols per column; cell (r, c) on diagonal (r + c) mod p |
//! | RDP | [`array_code`] | p prime, k ≤ p − 1, row parity at internal column p − 1 takes part in the diagonals, diagonal p − 1 not stored |
//!
//! Columns are always passed as data 0..k−1, then the row parity (P), then
//! the second parity (Q, or the diagonal parity). Every code recovers any
//! one or two erased columns.
//!
//! ```
//! use raidsim_codes::{Code, encode, decode};
//! let data: Vec<Vec<u8>> = (0..4).map(|i| vec![i as u8 + 1; 16]).collect();
//! let refs: Vec<&[u8]> = data.iter().map(|d| d.as_slice()).collect();
//! let [p, q] = encode(Code::Evenodd, &refs, None)?;
//! let mut cols: Vec<Option<Vec<u8>>> = data.iter().cloned().map(Some).chain([Some(p), Some(q)]).collect();
//! cols[1] = None;
//! cols[3] = None;
//! decode(Code::Evenodd, &mut cols, None)?;
//! assert_eq!(cols[1].as_deref(), Some(&data[1][..]));
//! # Ok::<(), raidsim_codes::Error>(())
//! ```
// The workspace lint denies unsafe code (raidsim-core allows it in one
// place, its prefetch); this crate has none and forbids it outright.
#![forbid(unsafe_code)]

pub mod array_code;
pub mod gf256;
pub mod pq;
pub mod xor;

use array_code::{ArrayCode, ArrayKind};

/// Errors of the codecs.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    /// Wrong number or length of columns, bad prime.
    #[error("{0}")]
    Shape(String),
    /// More than two columns erased.
    #[error("{0} columns erased; these codes recover at most 2")]
    TooManyErasures(usize),
    /// Unknown code name.
    #[error("unknown code `{0}`; valid: rs, evenodd, rdp")]
    UnknownCode(String),
}

/// Result alias.
pub type Result<T> = std::result::Result<T, Error>;

/// A RAID-6 code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Reed–Solomon P+Q (Linux md RAID-6).
    Rs,
    /// EVENODD.
    Evenodd,
    /// Row-Diagonal Parity.
    Rdp,
}

impl Code {
    /// Parses `"rs"`, `"evenodd"` or `"rdp"`.
    pub fn from_name(name: &str) -> Result<Self> {
        match name {
            "rs" => Ok(Code::Rs),
            "evenodd" => Ok(Code::Evenodd),
            "rdp" => Ok(Code::Rdp),
            other => Err(Error::UnknownCode(other.into())),
        }
    }

    fn array(self, k: usize, p: Option<usize>) -> Result<Option<ArrayCode>> {
        match self {
            // Q's coefficients 2^i repeat after 255 columns, so two columns
            // would share one and double erasures could not be told apart.
            Code::Rs if k > MAX_RS_DATA_COLUMNS => Err(Error::Shape(format!(
                "Reed-Solomon P+Q takes at most {MAX_RS_DATA_COLUMNS} data columns (2^i repeats after that; mdadm takes at most 256 devices at level 6, 254 data), got {k}"
            ))),
            Code::Rs => Ok(None),
            Code::Evenodd => ArrayCode::new(ArrayKind::Evenodd, k, p).map(Some),
            Code::Rdp => ArrayCode::new(ArrayKind::Rdp, k, p).map(Some),
        }
    }
}

/// The most data columns P+Q's generator 2 keeps apart in GF(2^8).
pub const MAX_RS_DATA_COLUMNS: usize = 255;

fn check_equal(cols: &[&[u8]]) -> Result<usize> {
    let len = cols.first().map(|c| c.len()).ok_or_else(|| Error::Shape("no data columns".into()))?;
    if cols.iter().any(|c| c.len() != len) {
        return Err(Error::Shape("columns must have equal lengths".into()));
    }
    Ok(len)
}

/// The two parity columns of `data`: `[row parity, second parity]`.
pub fn encode(code: Code, data: &[&[u8]], p: Option<usize>) -> Result<[Vec<u8>; 2]> {
    let len = check_equal(data)?;
    let (mut a, mut b) = (vec![0u8; len], vec![0u8; len]);
    encode_into(code, data, p, &mut a, &mut b)?;
    Ok([a, b])
}

/// As [`encode`], into caller buffers (no allocation for P+Q).
pub fn encode_into(code: Code, data: &[&[u8]], p: Option<usize>, row: &mut [u8], second: &mut [u8]) -> Result<()> {
    check_equal(data)?;
    match code.array(data.len(), p)? {
        None => {
            pq::encode(data, row, second);
            Ok(())
        }
        Some(c) => c.encode(data, row, second),
    }
}

/// Fills the erased (`None`) columns of `cols` (data..., row parity, second parity).
pub fn decode(code: Code, cols: &mut [Option<Vec<u8>>], p: Option<usize>) -> Result<()> {
    if cols.len() < 3 {
        return Err(Error::Shape("need at least one data column and two parity columns".into()));
    }
    let present: Vec<&[u8]> = cols.iter().flatten().map(Vec::as_slice).collect();
    if !present.is_empty() {
        check_equal(&present)?;
    }
    match code.array(cols.len() - 2, p)? {
        None => pq::decode(cols),
        Some(c) => c.decode(cols),
    }
}

/// Small-write update: data column `index` changes from `old` to `new`;
/// `row` and `second` (the parity columns) are updated in place from the
/// delta alone.
// One argument per column and role, as the Python API names them.
#[allow(clippy::too_many_arguments)]
pub fn update(code: Code, k: usize, p: Option<usize>, row: &mut [u8], second: &mut [u8], index: usize, old: &[u8], new: &[u8]) -> Result<()> {
    if index >= k || old.len() != new.len() || old.len() != row.len() || row.len() != second.len() {
        return Err(Error::Shape(format!("update of column {index} of {k}: columns must have equal lengths")));
    }
    let Some(c) = code.array(k, p)? else {
        pq::update(row, second, index, old, new);
        return Ok(());
    };
    let l = row.len() / c.rows();
    if row.len() % c.rows() != 0 {
        return Err(Error::Shape(format!("column length {} is not divisible by p - 1 = {}", row.len(), c.rows())));
    }
    let mut delta = old.to_vec();
    xor::xor_into(&mut delta, new);
    for ((pc, pr), cover) in c.parity_cover() {
        let target = if pc == k { &mut *row } else { &mut *second };
        for (dc, dr) in cover {
            if dc == index {
                xor::xor_into(&mut target[pr * l..(pr + 1) * l], &delta[dr * l..(dr + 1) * l]);
            }
        }
    }
    Ok(())
}

/// Which parity cells cover which data cells, in one codeword.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Structure {
    /// Rows of cells in a codeword (P+Q: 1; EVENODD, RDP: p − 1).
    pub rows: usize,
    /// Data columns.
    pub data_columns: usize,
    /// For each parity cell `(column, row)` (column k = row parity, k + 1 =
    /// second parity), the data cells `(column, row)` whose sum it is.
    pub cover: array_code::Cover,
}

/// The structure of `code` with `k` data columns.
pub fn structure(code: Code, k: usize, p: Option<usize>) -> Result<Structure> {
    match code.array(k, p)? {
        None => {
            let all: Vec<(usize, usize)> = (0..k).map(|c| (c, 0)).collect();
            Ok(Structure { rows: 1, data_columns: k, cover: vec![((k, 0), all.clone()), ((k + 1, 0), all)] })
        }
        Some(c) => Ok(Structure { rows: c.rows(), data_columns: k, cover: c.parity_cover() }),
    }
}

/// The prime a code uses for `k` data columns when none is given (P+Q: none).
pub fn default_prime(code: Code, k: usize) -> Option<usize> {
    match code {
        Code::Rs => None,
        Code::Evenodd => Some(array_code::default_prime(ArrayKind::Evenodd, k)),
        Code::Rdp => Some(array_code::default_prime(ArrayKind::Rdp, k)),
    }
}
