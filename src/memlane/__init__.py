"""memlane: long-term memory engine for LLM assistants and agents."""
