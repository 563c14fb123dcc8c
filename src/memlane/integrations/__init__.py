"""Interfaces to agent frameworks, built on the public :class:`memlane.Memory` API (LangGraph: the
``langgraph`` extra)."""
