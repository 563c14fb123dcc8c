"""Evaluation harnesses: behaviour scenarios and retrieval benchmarks."""
