"""TC000: what a real Triton said when `tritoncfg verify` loaded the model."""
