//! Routing (written next).
