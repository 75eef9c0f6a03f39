//! Host tests of the kernel logic.
