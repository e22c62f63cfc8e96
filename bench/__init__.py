"""Benchmarks that print figures; speed is measured here, never asserted in tests."""
