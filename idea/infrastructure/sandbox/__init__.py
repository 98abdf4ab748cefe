"""Operating-system enforcement of file permissions: Landlock and the `sandbox-exec` wrapper."""
