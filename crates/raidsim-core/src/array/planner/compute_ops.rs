//! The parity engine's work for a plan under `parity_compute = "code_ops"`:
//! region operations (XORs, GF(2^8) multiplies) per cell, by code.

use super::*;

impl Planner {
    /// Engine operations (XORs, multiplies) to run one cell of data column
    /// `col` into a parity cell of `kind` (0 = row, 1 = second parity): a
    /// multiply for Reed–Solomon's Q term of a column other than 0, whose
    /// coefficient g^0 = 1 makes it an XOR, as every XOR code's term is.
    pub(super) fn term_ops(&self, kind: usize, col: usize) -> (u64, u64) {
        if kind == 1 && self.q_multiplies && col != 0 {
            (0, 1)
        } else {
            (1, 0)
        }
    }

    /// Engine operations per byte of one lost cell: its row's or chain's
    /// `k` other cells XORed (`by_row`: one lost data column beside the row
    /// parity, or any loss of an XOR code), and for Reed–Solomon's other
    /// losses `k` multiplies as well.
    pub(super) fn decode_ops(&self, by_row: bool) -> (u64, u64) {
        let k = u64::from(self.geom.data_units);
        (k, if self.q_multiplies && !by_row { k } else { 0 })
    }
}
