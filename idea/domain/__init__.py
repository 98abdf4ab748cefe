"""Pure model: values, rules and pure functions. No I/O, no threads, no clock reads, no Qt."""
