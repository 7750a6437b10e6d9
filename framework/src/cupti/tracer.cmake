# Defined in the tracer commit.
