//! Kpé (RULES §1).
