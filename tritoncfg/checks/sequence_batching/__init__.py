"""TC601-TC633: VALIDATE, SCHEDULER and RUNTIME: sequence batching controls and implicit state."""
