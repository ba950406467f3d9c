"""The runners behind `tritoncfg probe`, each imported lazily by name."""
