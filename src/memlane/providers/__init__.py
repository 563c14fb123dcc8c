"""Providers: embedders and LLM clients, looked up by name and imported only when chosen."""
