"""The machinery: the registry of rules, the context a run shares, the engine and its plan,
selection, suppressions and rule docs."""
