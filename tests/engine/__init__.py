"""Engine tests: the engine's modules, called directly or through `hws run`, on real files and state.db."""
