//! Kiothi (RULES §2).
