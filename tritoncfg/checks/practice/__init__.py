"""TC901-TC916: best practice: configs Triton loads, but that serve worse than meant."""
