"""Test support: fakes of the servers hws talks to and shared helpers, used by tests and bench only."""
