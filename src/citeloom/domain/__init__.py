"""Pure domain types and policies. Nothing here imports a framework or touches I/O."""
