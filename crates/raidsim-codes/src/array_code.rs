//! EVENODD (Blaum, Brady, Bruck, Menon 1995) and RDP (Corbett et al. 2004):
//! XOR array codes over p − 1 rows of symbols, p prime.
//!
//! A column of `len` bytes holds p − 1 symbols; symbol r is bytes
//! `[r·L, (r+1)·L)` with `L = len / (p − 1)`. Cell (r, c) lies on diagonal
//! `(r + c) mod p`. Column order (external, as callers pass columns): data
//! 0..k−1, then the row parity, then the second (diagonal) parity.
//!
//! * EVENODD: data columns 0..k−1, k ≤ p; columns k..p−1 are imaginary zeros.
//!   Row parity P[r] = ⊕ of row r. S = ⊕ of diagonal p − 1. Diagonal parity
//!   Q[d] = S ⊕ (⊕ of diagonal d), d = 0..p−2.
//! * RDP: data columns 0..k−1, k ≤ p − 1; columns k..p−2 are imaginary
//!   zeros; the row parity sits at internal column p − 1 and takes part in
//!   the diagonals; Q[d] = ⊕ of diagonal d over columns 0..p−1, d = 0..p−2;
//!   diagonal p − 1 is not stored.
//!
//! Both codes are described by their parity equations (each a set of cells
//! whose XOR is zero). Decoding any one or two erased columns solves those
//! equations over GF(2) for the erased cells; the same solver, with both
//! parity columns erased, yields each parity cell's expansion over data
//! cells — the structure the array planner uses.

use crate::xor::{xor_into, xor_many};
use crate::{Error, Result};

/// Which XOR array code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    /// EVENODD.
    Evenodd,
    /// Row-Diagonal Parity.
    Rdp,
}

/// A cell: (internal column, row).
type Cell = (usize, usize);

/// For each parity cell `(column, row)`, the data cells `(column, row)` whose XOR it is.
pub type Cover = Vec<((usize, usize), Vec<(usize, usize)>)>;

/// One code instance: kind, prime, data columns.
#[derive(Clone, Debug)]
pub struct ArrayCode {
    kind: ArrayKind,
    p: usize,
    k: usize,
    equations: Vec<Vec<Cell>>,
}

/// The largest prime accepted: 256 data columns at most. Decoding solves
/// 2(p − 1) equations over about p² known cells, so cost grows as p⁴/64;
/// at p = 257 a decode takes a fraction of a second.
pub const MAX_PRIME: usize = 257;

/// Whether `n` is prime.
pub fn is_prime(n: usize) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

/// The smallest prime p that fits k data columns.
pub fn default_prime(kind: ArrayKind, k: usize) -> usize {
    let min = match kind {
        ArrayKind::Evenodd => k.max(3),
        ArrayKind::Rdp => (k + 1).max(3),
    };
    (min..).find(|&n| is_prime(n)).unwrap_or(min)
}

impl ArrayCode {
    /// The code for `k` data columns and prime `p` (`None`: the smallest that fits).
    pub fn new(kind: ArrayKind, k: usize, p: Option<usize>) -> Result<Self> {
        let p = p.unwrap_or_else(|| default_prime(kind, k));
        if p > MAX_PRIME {
            return Err(Error::Shape(format!("p = {p}: at most {MAX_PRIME} (256 data columns) is supported")));
        }
        if !is_prime(p) || p < 3 {
            return Err(Error::Shape(format!("p = {p} must be a prime >= 3")));
        }
        let max_k = match kind {
            ArrayKind::Evenodd => p,
            ArrayKind::Rdp => p - 1,
        };
        if k == 0 || k > max_k {
            return Err(Error::Shape(format!("{kind:?} with p = {p} takes 1..={max_k} data columns, got {k}")));
        }
        let mut code = Self { kind, p, k, equations: Vec::new() };
        code.equations = code.build_equations();
        Ok(code)
    }

    /// The prime.
    pub fn p(&self) -> usize {
        self.p
    }

    /// Rows (symbols per column): p − 1.
    pub fn rows(&self) -> usize {
        self.p - 1
    }

    /// Data columns.
    pub fn data_columns(&self) -> usize {
        self.k
    }

    fn p_col(&self) -> usize {
        match self.kind {
            ArrayKind::Evenodd => self.p,
            ArrayKind::Rdp => self.p - 1,
        }
    }

    fn q_col(&self) -> usize {
        self.p_col() + 1
    }

    /// Internal column of external column `e` (data..., P, Q).
    fn internal(&self, e: usize) -> usize {
        match e {
            e if e < self.k => e,
            e if e == self.k => self.p_col(),
            _ => self.q_col(),
        }
    }

    /// External column of an internal one, `None` for imaginary zero columns.
    fn external(&self, c: usize) -> Option<usize> {
        if c < self.k {
            Some(c)
        } else if c == self.p_col() {
            Some(self.k)
        } else if c == self.q_col() {
            Some(self.k + 1)
        } else {
            None
        }
    }

    fn build_equations(&self) -> Vec<Vec<Cell>> {
        let (p, rows) = (self.p, self.p - 1);
        let mut eqs = Vec::new();
        // Row parity: data (and imaginary) columns of the row, and P.
        for r in 0..rows {
            let mut e: Vec<Cell> = (0..self.p_col()).map(|c| (c, r)).collect();
            e.push((self.p_col(), r));
            eqs.push(e);
        }
        // Diagonal parity.
        // EVENODD: internal columns 0..p-1 are data; RDP: 0..p-2 data and p-1 the row parity.
        let diag_cols = p;
        let on = |d: usize| -> Vec<Cell> { (0..rows).flat_map(|r| (0..diag_cols).map(move |c| (c, r))).filter(|&(c, r)| (r + c) % p == d).collect() };
        for d in 0..rows {
            let mut e = on(d);
            if self.kind == ArrayKind::Evenodd {
                e.extend(on(p - 1)); // the adjuster S
            }
            e.push((self.q_col(), d));
            eqs.push(e);
        }
        eqs
    }

    fn symbol_len(&self, len: usize) -> Result<usize> {
        if len % (self.p - 1) != 0 {
            return Err(Error::Shape(format!("column length {len} is not divisible by p - 1 = {}", self.p - 1)));
        }
        Ok(len / (self.p - 1))
    }

    /// Writes the row parity and the diagonal parity of `data` (k columns).
    pub fn encode(&self, data: &[&[u8]], row_parity: &mut [u8], diag: &mut [u8]) -> Result<()> {
        if data.len() != self.k {
            return Err(Error::Shape(format!("{} data columns given, the code has {}", data.len(), self.k)));
        }
        let len = row_parity.len();
        if data.iter().any(|d| d.len() != len) || diag.len() != len {
            return Err(Error::Shape("columns must have equal lengths".into()));
        }
        let l = self.symbol_len(len)?;
        let (p, rows) = (self.p, self.p - 1);
        // Each output symbol is one pass over its sources (xor_many), so every
        // byte of parity is written once.
        xor_many(row_parity, data);
        let row_parity: &[u8] = row_parity;
        let mut srcs: Vec<&[u8]> = Vec::with_capacity(p + 1);
        let mut s = vec![0u8; l];
        if self.kind == ArrayKind::Evenodd {
            self.diagonal_cells(p - 1, data, row_parity, l, &mut srcs);
            xor_many(&mut s, &srcs);
        }
        for g in 0..rows {
            srcs.clear();
            if self.kind == ArrayKind::Evenodd {
                srcs.push(&s);
            }
            self.diagonal_cells(g, data, row_parity, l, &mut srcs);
            xor_many(&mut diag[g * l..(g + 1) * l], &srcs);
        }
        Ok(())
    }

    /// The stored cells on diagonal `g`: data cells, and for RDP the row parity's.
    fn diagonal_cells<'a>(&self, g: usize, data: &[&'a [u8]], row_parity: &'a [u8], l: usize, out: &mut Vec<&'a [u8]>) {
        let p = self.p;
        for r in 0..p - 1 {
            let c = (g + p - r) % p;
            if c < self.k {
                out.push(&data[c][r * l..(r + 1) * l]);
            } else if self.kind == ArrayKind::Rdp && c == p - 1 {
                out.push(&row_parity[r * l..(r + 1) * l]);
            }
        }
    }

    /// Fills the erased (`None`) columns of `cols` = data..., row parity, diagonal parity.
    pub fn decode(&self, cols: &mut [Option<Vec<u8>>]) -> Result<()> {
        if cols.len() != self.k + 2 {
            return Err(Error::Shape(format!("{} columns given, expected {} data + 2 parity", cols.len(), self.k)));
        }
        let erased: Vec<usize> = (0..cols.len()).filter(|&i| cols[i].is_none()).collect();
        if erased.len() > 2 {
            return Err(Error::TooManyErasures(erased.len()));
        }
        if erased.is_empty() {
            return Ok(());
        }
        let len = cols.iter().flatten().map(Vec::len).next().ok_or_else(|| Error::Shape("every column is erased".into()))?;
        if cols.iter().flatten().any(|c| c.len() != len) {
            return Err(Error::Shape("columns must have equal lengths".into()));
        }
        let l = self.symbol_len(len)?;
        let unknown: Vec<usize> = erased.iter().map(|&e| self.internal(e)).collect();
        let solution = self.solve(&unknown)?;
        let mut out: Vec<Vec<u8>> = erased.iter().map(|_| vec![0u8; len]).collect();
        for (cell, terms) in solution {
            let slot = unknown.iter().position(|&c| c == cell.0).unwrap_or(0);
            let dst = &mut out[slot][cell.1 * l..(cell.1 + 1) * l];
            for (c, r) in terms {
                if let Some(e) = self.external(c) {
                    if let Some(src) = cols[e].as_deref() {
                        xor_into(dst, &src[r * l..(r + 1) * l]);
                    }
                }
            }
        }
        for (e, col) in erased.into_iter().zip(out) {
            cols[e] = Some(col);
        }
        Ok(())
    }

    /// Solves the parity equations for every cell of the `unknown` internal
    /// columns: each unknown cell = ⊕ of the listed known cells.
    fn solve(&self, unknown: &[usize]) -> Result<Vec<(Cell, Vec<Cell>)>> {
        let rows = self.p - 1;
        let cells: Vec<Cell> = unknown.iter().flat_map(|&c| (0..rows).map(move |r| (c, r))).collect();
        let index = |cell: &Cell| cells.iter().position(|x| x == cell);
        let ncols_known = self.q_col() + 1;
        let known_bit = |&(c, r): &Cell| c * rows + r;
        let words = (ncols_known * rows).div_ceil(64);
        // Each equation: a bitset over the unknown cells (2(p − 1) of them,
        // more than one machine word once p > 33) and one over known cells.
        let unknown_words = cells.len().div_ceil(64);
        let has = |set: &[u64], bit: usize| set[bit / 64] >> (bit % 64) & 1 == 1;
        let mut system: Vec<(Vec<u64>, Vec<u64>)> = self
            .equations
            .iter()
            .map(|eq| {
                let mut u = vec![0u64; unknown_words];
                let mut k = vec![0u64; words];
                for cell in eq {
                    let (set, b) = match index(cell) {
                        Some(i) => (&mut u, i),
                        None => (&mut k, known_bit(cell)),
                    };
                    set[b / 64] ^= 1 << (b % 64);
                }
                (u, k)
            })
            .collect();
        // Gauss-Jordan elimination over GF(2): unknown `bit` is pivoted on row `bit`.
        for (bit, cell) in cells.iter().enumerate() {
            let Some(found) = (bit..system.len()).find(|&i| has(&system[i].0, bit)) else {
                return Err(Error::Shape(format!("the erased columns are not recoverable (cell {cell:?})")));
            };
            system.swap(bit, found);
            let (pu, pk) = system[bit].clone();
            for (i, eq) in system.iter_mut().enumerate() {
                if i != bit && has(&eq.0, bit) {
                    eq.0.iter_mut().zip(&pu).for_each(|(a, b)| *a ^= b);
                    eq.1.iter_mut().zip(&pk).for_each(|(a, b)| *a ^= b);
                }
            }
        }
        let mut out = Vec::with_capacity(cells.len());
        for (bit, cell) in cells.iter().enumerate() {
            let only_bit = |u: &[u64]| u.iter().enumerate().all(|(w, &x)| x == if w == bit / 64 { 1 << (bit % 64) } else { 0 });
            let eq = system.iter().find(|e| only_bit(&e.0)).ok_or_else(|| Error::Shape("singular system".into()))?;
            let terms = (0..ncols_known * rows).filter(|b| eq.1[b / 64] >> (b % 64) & 1 == 1).map(|b| (b / rows, b % rows)).collect();
            out.push((*cell, terms));
        }
        Ok(out)
    }

    /// For every parity cell (external column, row), the data cells
    /// (external column, row) whose XOR it is, in (column, row) order:
    /// written out from the codes' definitions, in O(p²).
    pub fn parity_cover(&self) -> Cover {
        let (p, k, rows) = (self.p, self.k, self.p - 1);
        let row = |r: usize| -> Vec<(usize, usize)> { (0..k).map(|c| (c, r)).collect() };
        // Data cells on diagonal d (imaginary columns hold zeros).
        let diagonal = |d: usize| -> Vec<(usize, usize)> { (0..rows).map(|r| ((d + p - r) % p, r)).filter(|&(c, _)| c < k).collect() };
        let mut cover: Cover = (0..rows).map(|r| ((k, r), row(r))).collect();
        for d in 0..rows {
            let mut cells = diagonal(d);
            match self.kind {
                // Q[d] = S ⊕ diagonal d, S = diagonal p − 1.
                ArrayKind::Evenodd => cells.extend(diagonal(p - 1)),
                // The row parity's cell on diagonal d is (p − 1, r) with
                // r = d + 1 (mod p); it stands for the data of row r.
                ArrayKind::Rdp => {
                    if d + 1 < rows {
                        cells.extend(row(d + 1));
                    }
                }
            }
            cover.push(((k + 1, d), xor_sets(cells)));
        }
        cover
    }

    /// The same covers, derived by solving the parity equations with both
    /// parity columns erased: an independent derivation for tests.
    pub fn parity_cover_by_elimination(&self) -> Result<Cover> {
        let solution = self.solve(&[self.p_col(), self.q_col()])?;
        let to_external = |c: usize| self.external(c).ok_or_else(|| Error::Shape(format!("internal column {c} is imaginary")));
        solution
            .into_iter()
            .map(|((c, r), terms)| {
                let mut data: Vec<(usize, usize)> = terms.into_iter().filter_map(|(tc, tr)| self.external(tc).map(|e| (e, tr))).collect();
                data.sort_unstable();
                Ok(((to_external(c)?, r), data))
            })
            .collect()
    }
}

/// The cells appearing an odd number of times (GF(2) sum), sorted.
fn xor_sets(mut cells: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    cells.sort_unstable();
    let mut out = Vec::with_capacity(cells.len());
    let mut i = 0;
    while i < cells.len() {
        let run = cells[i..].iter().take_while(|&&c| c == cells[i]).count();
        if run % 2 == 1 {
            out.push(cells[i]);
        }
        i += run;
    }
    out
}
